"""Does the blind solve overlap the draft on this machine? Real embedded models, side by side.

For three MIT questions: the draft alone, the blind solve alone, then both at once with 2
threads each and with 1 thread each (the KV cache is cleared before every call). On 2 cores
"both at once" taking the sum of the two alone is what makes the gate cost more than a draft.
`CITETUTOR_DATA_DIR=/tmp/ct PYTHONPATH=. .venv/bin/python scripts/bench_overlap.py`
"""

import contextlib
import threading
import time
from pathlib import Path

import llama_cpp

from citetutor import prompts
from citetutor.config import Settings
from citetutor.evidence import evidence_block, number_evidence
from citetutor.gate import verify_messages
from citetutor.pipeline import Pipeline
from citetutor.retrieval import Scope
from citetutor.schemas import BlindSolve, Draft

MIT = Path(__file__).resolve().parents[2] / "shared/corpus/course/mit801sc-ch06-circular-motion.pdf"
QUESTIONS = ["What is centripetal acceleration?", "What is the small angle approximation?",
             "What are the SI units of angular velocity?"]


def messages(pipe: Pipeline, subject: int, question: str) -> tuple[list[dict], list[dict]]:
    """The draft's and the blind solve's messages, as the gate builds them."""
    gate = pipe.gate
    found = gate.search(question, Scope(subject))
    sentences = number_evidence(found.hits, question, gate.embedder, gate.limits.evidence_sentences)
    user = prompts.DRAFT_USER.format(evidence=evidence_block(sentences), question=question,
                                     task=prompts.DRAFT_MODE["explain"])
    draft = [{"role": "system", "content": prompts.DRAFT_SYSTEM}, {"role": "user", "content": user}]
    return draft, verify_messages(sentences, prompts.BLIND_TASK.format(question=question))


def timed(model, msgs: list[dict], schema, out: dict, key: str) -> None:
    """One cold call (KV cache cleared), its seconds stored under `key`."""
    model._load().reset()
    started = time.perf_counter()
    model.chat_json(msgs, schema.model_json_schema())
    out[key] = time.perf_counter() - started


def threads(model, n: int) -> None:
    llama = model._load()
    llama_cpp.llama_set_n_threads(llama._ctx.ctx, n, n)


def main() -> None:
    pipe = Pipeline(Settings(runtime="embedded"))
    subject = pipe.create_subject("bench-overlap")
    if not pipe.documents(subject):
        with contextlib.redirect_stdout(None):
            pipe.upload(MIT.read_bytes(), MIT.name, subject)
    drafter, verifier = pipe.gate.drafter, pipe.gate.verifier
    for question in QUESTIONS:
        draft, blind = messages(pipe, subject, question)
        alone: dict = {}
        threads(drafter, 2)
        threads(verifier, 2)
        timed(drafter, draft, Draft, alone, "draft")
        timed(verifier, blind, BlindSolve, alone, "blind")
        row = f"{question[:40]:40}  draft {alone['draft']:5.1f} s  blind {alone['blind']:4.1f} s"
        for n in (2, 1):
            threads(drafter, n)
            threads(verifier, n)
            both: dict = {}
            started = time.perf_counter()
            workers = [threading.Thread(target=timed, args=(drafter, draft, Draft, both, "draft")),
                       threading.Thread(target=timed, args=(verifier, blind, BlindSolve, both, "blind"))]
            for w in workers:
                w.start()
            for w in workers:
                w.join()
            row += f"  together ({n}+{n} threads) {time.perf_counter() - started:5.1f} s"
        print(row, flush=True)


if __name__ == "__main__":
    main()
