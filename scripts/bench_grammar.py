"""Schema-constrained decoding against free generation on the packaged GGUFs, side by side.

Usage: .venv/bin/python scripts/bench_grammar.py [data_dir]
Prints tokens per second for each model with and without the draft schema's grammar; the
prompt is read once first so both timed calls reuse it from the KV cache (decoding alone).
"""

import sys
import time
from pathlib import Path

from citetutor.config import Settings
from citetutor.models.embedded import QWEN_0_5B, QWEN_1_5B, LlamaChat
from citetutor.schemas import Draft

MESSAGES = [
    {"role": "system", "content": "You are a study tutor. Reply with JSON."},
    {"role": "user", "content": "Evidence:\n[S1] Any radial inward acceleration is called centripetal "
                                "acceleration.\n[S2] An object traveling in a circular orbit is always "
                                "accelerating towards the center.\n\nQuestion: What is centripetal "
                                "acceleration? Write claims that cite sentence numbers."}]


def tokens_per_second(llama, schema: dict | None, repeats: int = 3) -> float:
    """Median completion tokens per second over `repeats` calls."""
    rates = []
    for _ in range(repeats):
        extra = {"response_format": {"type": "json_object", "schema": schema}} if schema else {}
        started = time.perf_counter()
        reply = llama.create_chat_completion(messages=MESSAGES, temperature=0, max_tokens=96, **extra)
        rates.append(reply["usage"]["completion_tokens"] / (time.perf_counter() - started))
    return sorted(rates)[len(rates) // 2]


if __name__ == "__main__":
    data_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else Settings().data_dir
    for spec in (QWEN_1_5B, QWEN_0_5B):
        llama = LlamaChat(spec, data_dir / "models")._load()
        llama.create_chat_completion(messages=MESSAGES, temperature=0, max_tokens=1)  # warm prefix
        free, constrained = tokens_per_second(llama, None), tokens_per_second(llama, Draft.model_json_schema())
        print(f"{spec.label}: free {free:.1f} tok/s, with the Draft schema {constrained:.1f} tok/s "
              f"(free / constrained = {free / constrained:.2f}×)")
