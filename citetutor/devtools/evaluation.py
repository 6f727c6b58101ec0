"""Eval as a product feature: run a question set through the real gate and count what a student gets."""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from citetutor.errors import InputError

SUPPORTED, UNRELATED, NEAR_MISS = "supported", "unrelated", "near-miss"


@dataclass(frozen=True)
class Case:
    """One question: supported (with the pages that answer it) or one that must be refused."""

    question: str
    pages: tuple[int, ...] = ()
    refuse: str = ""  # "unrelated" | "near-miss" | "" for a supported question
    mode: str = "explain"

    @property
    def kind(self) -> str:
        """supported, unrelated or near-miss."""
        return self.refuse or SUPPORTED


@dataclass(frozen=True)
class QuestionSet:
    """A PDF and the questions asked of it."""

    name: str
    pdf: Path
    subject: str
    cases: tuple[Case, ...]


@dataclass
class Outcome:
    """What the gate did with one case."""

    case: Case
    status: str
    pages: list[int]
    seconds: float
    reasons: list[str]
    answer: str
    relevance: float = 0.0
    stages: str = ""

    @property
    def verdict(self) -> str:
        """correct, false refusal, wrong-but-accepted, refused or let through."""
        if self.case.kind != SUPPORTED:
            return "refused" if self.status == "refused" else "LET THROUGH"
        if self.status == "refused":
            return "false refusal"
        return "correct" if set(self.pages) & set(self.case.pages) else "WRONG-BUT-ACCEPTED"


@dataclass
class Report:
    """Outcomes of one question set, with optional draft-only timings for the same questions."""

    name: str
    outcomes: list[Outcome] = field(default_factory=list)
    draft_only_seconds: list[float] = field(default_factory=list)

    def count(self, kind: str, verdict: str) -> int:
        """How many cases of `kind` got `verdict`."""
        return sum(o.case.kind == kind and o.verdict == verdict for o in self.outcomes)

    def total(self, kind: str) -> int:
        """How many cases of `kind` the set has."""
        return sum(o.case.kind == kind for o in self.outcomes)

    def median_seconds(self, kind: str = SUPPORTED) -> float:
        """Median gated latency over cases of `kind`."""
        times = [o.seconds for o in self.outcomes if o.case.kind == kind]
        return statistics.median(times) if times else 0.0


def load_set(path: Path, pdf: Path | None = None) -> QuestionSet:
    """Read a question set; its `pdf` is relative to the set's own file unless `pdf` is given."""
    try:
        raw = json.loads(Path(path).read_text())
        cases = tuple(Case(c["question"], tuple(c.get("pages", ())), c.get("refuse", ""),
                           c.get("mode", "explain")) for c in raw["cases"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"Cannot read the question set {path} ({exc}); see evals/ for the format.") from exc
    pdf = Path(pdf) if pdf else (Path(path).parent / raw["pdf"]).resolve()
    if not pdf.is_file():
        raise InputError(f"No PDF at {pdf}: fix the set's \"pdf\" path or pass --pdf PATH.")
    return QuestionSet(Path(path).stem, pdf, raw.get("subject", Path(path).stem), cases)


def run_set(pipe, qset: QuestionSet, draft_only: bool = False,
            on_case: Callable[[Outcome], None] = lambda o: None) -> Report:
    """Ingest the set's PDF into `pipe`, ask every question through the gate, and time it."""
    subject = pipe.create_subject(qset.subject)
    pipe.upload(qset.pdf.read_bytes(), qset.pdf.name, subject)
    report = Report(qset.name)
    for case in qset.cases:
        started = time.perf_counter()
        result = pipe.ask(case.question, subject, mode=case.mode)
        outcome = Outcome(case, result.status, sorted({c.page_no for c in result.citations}),
                          time.perf_counter() - started, result.reasons, result.text,
                          result.relevance, stage_summary(result.spans))
        report.outcomes.append(outcome)
        on_case(outcome)
    # A second pass, not interleaved: right after its gated run a question's prompt would sit
    # warm in the drafter's KV cache and flatter the draft-only time.
    for case in qset.cases if draft_only else ():
        if case.kind == SUPPORTED:
            started = time.perf_counter()
            pipe.draft_only(case.question, subject, mode=case.mode)
            report.draft_only_seconds.append(time.perf_counter() - started)
    return report


def stage_summary(spans: list[dict]) -> str:
    """Seconds per model stage of one request, e.g. 'draft 21.0+4.1 blind_solve 11.9'."""
    by_stage: dict[str, list[float]] = {}
    for span in spans:
        if span["name"] in ("draft", "blind_solve", "support_check"):
            by_stage.setdefault(span["name"], []).append(span["duration_ms"] / 1000)
    return " ".join(f"{name} " + "+".join(f"{t:.1f}" for t in times) for name, times in by_stage.items())


def table(reports: list[Report]) -> str:
    """The eval table, one row per question set."""
    head = ("| set | supported correct | false refusals | wrong-but-accepted | unrelated refused "
            "| near-miss refused | median latency (supported) | gated / draft-only |")
    rows = [head, "|" + "---|" * 8]
    for r in reports:
        ratio = (f"{r.median_seconds() / statistics.median(r.draft_only_seconds):.2f}×"
                 if r.draft_only_seconds else "not measured")
        rows.append(
            f"| {r.name} | {r.count(SUPPORTED, 'correct')}/{r.total(SUPPORTED)} "
            f"| {r.count(SUPPORTED, 'false refusal')} | {r.count(SUPPORTED, 'WRONG-BUT-ACCEPTED')} "
            f"| {r.count(UNRELATED, 'refused')}/{r.total(UNRELATED)} "
            f"| {r.count(NEAR_MISS, 'refused')}/{r.total(NEAR_MISS)} "
            f"| {r.median_seconds():.1f} s | {ratio} |")
    return "\n".join(rows)


def case_line(outcome: Outcome) -> str:
    """One line per question, for watching an eval run."""
    pages = ",".join(map(str, outcome.pages)) or "-"
    why = f" ({', '.join(outcome.reasons)})" if outcome.reasons else ""
    line = (f"{outcome.seconds:6.1f} s  {outcome.verdict:18} p.{pages:8} cos {outcome.relevance:.2f}  "
            f"{outcome.case.question[:70]}{why}  [{outcome.stages}]")
    return line + (f"\n           answer: {outcome.answer}" if outcome.status == "answered" else "")
