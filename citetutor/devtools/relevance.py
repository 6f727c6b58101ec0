"""The pre-gate's relevance floor against question sets: which floor lets which questions through.

The tutor refuses before any model runs when no evidence sentence is close enough in meaning
to the question (cosine of the best one below `min_sentence_relevance`). This measures that
cosine for every question of every set, exactly as the tutor computes it (hybrid retrieval and
its chunk floor, then the numbered evidence sentences), and counts, per candidate floor, how
many supported, near-miss and unrelated questions would pass it. Only the embedder runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from citetutor.devtools.evaluation import NEAR_MISS, SUPPORTED, UNRELATED, QuestionSet, ingest_set
from citetutor.retrieval import Scope
from citetutor.tutor import evidence_sentences

FLOORS = (0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55)


@dataclass(frozen=True)
class Closeness:
    """One question's best evidence-sentence cosine, and whether the sentence stating its key was among them."""

    set_name: str
    kind: str
    question: str
    cosine: float
    key_in_evidence: bool


def measure_set(pipe, qset: QuestionSet,
                on_case: Callable[[Closeness], None] = lambda c: None) -> list[Closeness]:
    """Ingest the set's PDF into `pipe` and measure every question's pre-gate cosine."""
    subject = ingest_set(pipe, qset)
    gate = pipe.gate
    rows = []
    for case in qset.cases:
        # Below the chunk floor the tutor refuses before numbering sentences: cosine 0 here.
        sentences = evidence_sentences(gate, case.question, gate.search(case.question, Scope(subject)))
        # The key is "in evidence" when one sentence on an expected page states a key fact:
        # below that, no floor and no gate can give a right answer.
        key_in = any(s.hit.page_no in case.pages and case.states_a_key_fact(s.text) for s in sentences)
        row = Closeness(qset.name, case.kind, case.question,
                        max((s.cosine for s in sentences), default=0.0), key_in)
        rows.append(row)
        on_case(row)
    return rows


def case_line(row: Closeness) -> str:
    """One line per question."""
    key = "" if row.kind != SUPPORTED else ("  key in evidence" if row.key_in_evidence else "  KEY NOT IN EVIDENCE")
    return f"  cos {row.cosine:5.2f}  {row.kind:9}  {row.question[:80]}{key}"


def floor_table(rows: list[Closeness], current: float, floors: tuple[float, ...] = FLOORS) -> str:
    """Per floor: how many questions of each kind would reach the models (the rest are refused)."""
    def passing(kind: str, floor: float) -> str:
        of_kind = [r for r in rows if r.kind == kind]
        return f"{sum(r.cosine >= floor for r in of_kind)}/{len(of_kind)}"

    lines = ["| floor | supported reach the models | near-miss reach the models | unrelated reach the models |",
             "|---|---|---|---|"]
    for floor in sorted({*floors, current}):
        mark = " (current)" if floor == current else ""
        lines.append(f"| {floor:.2f}{mark} | {passing(SUPPORTED, floor)} | {passing(NEAR_MISS, floor)} "
                     f"| {passing(UNRELATED, floor)} |")
    missing = sum(r.kind == SUPPORTED and not r.key_in_evidence for r in rows)
    lines.append(f"\nSupported questions whose key sentence retrieval did not bring: {missing}/"
                 f"{sum(r.kind == SUPPORTED for r in rows)} (no floor can help those).")
    return "\n".join(lines)
