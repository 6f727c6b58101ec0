"""Schema-constrained decoding against free generation on the packaged GGUFs, side by side.

Usage: .venv/bin/python scripts/bench_grammar.py [data_dir]
For each model and each schema the gate sends, prints decoding tokens per second free,
with llama-cpp-python's stock grammar sampler, and with the lazy sampler the product uses,
and whether stock and lazy wrote the same JSON. Then, for each model, the seconds its prompt
pass takes over one evidence block of 12 sentences: the part of the verifier's work that
no sampler change can remove (both models must read the evidence). The prompt is read once before the timed
calls, so every timed call reuses it from the KV cache and times decoding alone.
"""

import sys
import time
from pathlib import Path

from llama_cpp import Llama
from pydantic import BaseModel

from citetutor.config import Settings
from citetutor.models.embedded import QWEN_0_5B, QWEN_1_5B, assembled_gguf
from citetutor.models.lazy_grammar import LazyGrammarLlama
from citetutor.schemas import BlindSolve, Draft

EVIDENCE = ("Evidence:\n[S1] Any radial inward acceleration is called centripetal acceleration.\n"
            "[S2] An object traveling in a circular orbit is always accelerating towards the center.\n"
            "[S3] The period T is the time it takes to complete one circle.\n\n")
CASES: list[tuple[type[BaseModel], str]] = [
    (Draft, "Question: What is centripetal acceleration?\nTask: write claims that cite sentence numbers."),
    (BlindSolve, "Question: What is the period?\nTask: answer in one short sentence and give the "
                 "numbers of the sentences that state the answer."),
]


def decode(llama, task: str, schema: dict | None) -> tuple[float, str]:
    """Completion tokens per second and the text, for one greedy call."""
    messages = [{"role": "system", "content": "You are a careful reader. Reply with JSON."},
                {"role": "user", "content": EVIDENCE + task}]
    llama.reset()  # the same KV state for every call: a cache left by another reply shifts logits
    llama.create_chat_completion(messages=messages, temperature=0, max_tokens=1)  # read the prompt
    extra = {"response_format": {"type": "json_object", "schema": schema}} if schema else {}
    started = time.perf_counter()
    reply = llama.create_chat_completion(messages=messages, temperature=0, max_tokens=160, **extra)
    rate = reply["usage"]["completion_tokens"] / (time.perf_counter() - started)
    return rate, reply["choices"][0]["message"]["content"]


def prompt_pass_seconds(llama) -> tuple[float, int]:
    """Seconds and tokens to read a 12-sentence evidence prompt from an empty KV cache."""
    evidence = "".join(f"[S{i}] An object moving in a circle of radius r at speed v has a centripetal "
                       f"acceleration v^2/r directed toward the center (case {i}).\n" for i in range(1, 13))
    messages = [{"role": "system", "content": "You are a careful reader. Reply with JSON."},
                {"role": "user", "content": "Evidence:\n" + evidence + "\nQuestion: What is it?"}]
    llama.reset()
    started = time.perf_counter()
    reply = llama.create_chat_completion(messages=messages, temperature=0, max_tokens=1)
    return time.perf_counter() - started, reply["usage"]["prompt_tokens"]


if __name__ == "__main__":
    data_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else Settings().data_dir
    for spec in (QWEN_1_5B, QWEN_0_5B):
        path = str(assembled_gguf(spec, data_dir / "models"))
        stock = Llama(model_path=path, n_ctx=2048, n_threads=2, verbose=False)
        lazy = LazyGrammarLlama(model_path=path, n_ctx=2048, n_threads=2, verbose=False)
        for schema, task in CASES:
            free, _ = decode(stock, task, None)
            slow, stock_text = decode(stock, task, schema.model_json_schema())
            fast, lazy_text = decode(lazy, task, schema.model_json_schema())
            print(f"{spec.label} {schema.__name__:15} free {free:5.1f} tok/s | stock grammar "
                  f"{slow:5.1f} ({free / slow:.2f}x slower) | lazy grammar {fast:5.1f} "
                  f"({free / fast:.2f}x slower) | same JSON: {stock_text == lazy_text}", flush=True)
        seconds, tokens = prompt_pass_seconds(lazy)
        print(f"{spec.label} prompt pass: {seconds:.2f} s for {tokens} tokens", flush=True)
