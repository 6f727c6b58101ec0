"""Verified answers kept by question, wording settings, evidence and models: repeats are instant."""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
from dataclasses import asdict
from pathlib import Path

from pydantic import BaseModel

from citetutor import prompts
from citetutor.store import Store

# The modules whose code decides which answer passes: a change to any of them re-checks old answers.
ANSWER_RULES = ("checks", "chunking", "evidence", "foils", "formulas", "gate", "margins", "meaning",
                "parts", "quotes", "retrieval", "schemas", "tutor")


def cache_key(question: str, mode: str, notes: str, evidence: list[str],
              models: tuple[str, ...], limits: BaseModel) -> str:
    """Same question, settings, evidence, models, prompts, limits and gate code -> same key."""
    prompt_text = [v for k, v in sorted(vars(prompts).items()) if k.isupper()]
    payload = json.dumps([" ".join(question.lower().split()), mode, notes.strip(), evidence, models,
                          limits.model_dump(), prompt_text, gate_fingerprint()], default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


@functools.cache
def gate_fingerprint() -> str:
    """A hash of the code that decides what passes, so a fixed gate re-checks old answers.

    Retrieval and chunking are in it: their stopwords and tokenizer decide which sentences
    the checks see, so a change there must not leave stale answers cached.
    """
    # Found by name, not imported: the tutor imports this module, and the cache must not import it back.
    specs = [importlib.util.find_spec(f"citetutor.{name}") for name in ANSWER_RULES]
    sources = b"".join(Path(str(spec.origin if spec else "")).read_bytes() for spec in specs)
    return hashlib.sha256(sources).hexdigest()


def lookup(store: Store, key: str) -> dict | None:
    """The cached answer's fields, if any."""
    rows = store.query("SELECT answer_json FROM answer_cache WHERE key = ?", [key])
    return json.loads(rows[0][0]) if rows else None


def keep(store: Store, key: str, answer) -> None:
    """Cache a verified answer (a TutorAnswer dataclass) without its per-request trace."""
    fields = {k: v for k, v in asdict(answer).items() if k not in ("request_id", "spans")}
    store.execute("INSERT OR REPLACE INTO answer_cache (key, answer_json) VALUES (?, ?)",
                  [key, json.dumps(fields)], library=False)
