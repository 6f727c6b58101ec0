"""The support check with flags only (today's schema) against the previous one that also
wrote a "why" for each claim: the same real drafts, both verdicts and seconds side by side.

For every supported question of the given eval sets: retrieve, draft with the embedded
drafter, blind-solve with the verifier (so its KV cache holds the evidence, as in the gate),
then run both support checks on that draft, alternating which goes first.
`CITETUTOR_DATA_DIR=/tmp/ct PYTHONPATH=. .venv/bin/python scripts/bench_support.py evals/*.json`
"""

import json
import sys
import time
from pathlib import Path

from pydantic import BaseModel, Field, create_model

from citetutor import prompts
from citetutor.config import Settings
from citetutor.devtools.evaluation import SUPPORTED, load_set
from citetutor.evidence import evidence_block, number_evidence
from citetutor.gate import verify_messages
from citetutor.pipeline import Pipeline
from citetutor.retrieval import Scope
from citetutor.schemas import BlindSolve, Draft, support_verdict_for

PREVIOUS_TASK = """Question: {question}
The tutor's claims, each with the sentences it cites:
{claims}
Task: for each claim, say what its cited sentences state, then whether they state the claim.
Then say whether the claims answer the question that was asked."""


class ExplainedVerdict(BaseModel):
    """The previous per-claim verdict: claim number and a written reason before the flag."""

    claim: int = Field(description="The claim's number, from 1.")
    why: str = Field(max_length=80, description="In a few words, what the cited sentences say about it.")
    supported: bool = Field(description="True only if the cited sentences state the claim.")


def previous_schema(claims: int) -> type[BaseModel]:
    return create_model(f"Explained{claims}",
                        verdicts=(list[ExplainedVerdict], Field(min_length=claims, max_length=claims)),
                        answers_question=(bool, Field(description="True if the claims answer the question asked.")))


def flags(reply_text: str) -> list[bool]:
    reply = json.loads(reply_text)
    return [v["supported"] for v in reply["verdicts"]] + [reply["answers_question"]]


def main(paths: list[str]) -> None:
    pipe = Pipeline(Settings(runtime="embedded"))
    drafter, verifier = pipe.gate.drafter, pipe.gate.verifier
    same = total = 0
    for n, path in enumerate(paths):
        qset = load_set(Path(path))
        subject = pipe.create_subject(f"bench-support-{qset.name}")
        if not pipe.documents(subject):
            pipe.upload(qset.pdf.read_bytes(), qset.pdf.name, subject)
        for i, case in enumerate(c for c in qset.cases if c.kind == SUPPORTED):
            found = pipe.gate.search(case.question, Scope(subject))
            sentences = number_evidence(found.hits, case.question, pipe.gate.embedder,
                                        pipe.gate.limits.evidence_sentences)
            user = prompts.DRAFT_USER.format(evidence=evidence_block(sentences), question=case.question,
                                             task=prompts.DRAFT_MODE[case.mode])
            reply = drafter.chat_json([{"role": "system", "content": prompts.DRAFT_SYSTEM},
                                       {"role": "user", "content": user}], Draft.model_json_schema())
            draft = Draft.model_validate_json(reply.text)
            by_number = {s.number: s for s in sentences}
            if any(k not in by_number for c in draft.claims for k in c.sentences):
                continue  # the gate's code checks stop this draft before any support check
            verifier.chat_json(verify_messages(sentences, prompts.BLIND_TASK.format(question=case.question)),
                               BlindSolve.model_json_schema())
            claims = "\n".join(f"{k}. {c.text}\n   cites: " + " ".join(
                f"[{by_number[j].label}] {by_number[j].text}" for j in c.sentences)
                for k, c in enumerate(draft.claims, start=1))
            checks = {"flags": (prompts.SUPPORT_TASK, support_verdict_for(len(draft.claims))),
                      "with why": (PREVIOUS_TASK, previous_schema(len(draft.claims)))}
            order = list(checks) if (n + i) % 2 == 0 else list(reversed(checks))
            seen = {}
            for name in order:
                task, schema = checks[name]
                started = time.perf_counter()
                out = verifier.chat_json(verify_messages(sentences, task.format(question=case.question, claims=claims)),
                                         schema.model_json_schema())
                seen[name] = (time.perf_counter() - started, out.completion_tokens, flags(out.text))
            total += 1
            same += seen["flags"][2] == seen["with why"][2]
            print(" ".join(f"{name} {t:4.1f} s {k:3d} tok {v}" for name, (t, k, v) in seen.items())
                  + f"  {case.question[:60]}", flush=True)
    print(f"same verdicts on {same} of {total} drafts")


if __name__ == "__main__":
    main(sys.argv[1:])
