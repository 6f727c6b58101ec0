"""The eval: run question sets through the real gate and grade what a student is shown by content."""

from __future__ import annotations

import hashlib
import json
import re
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from citetutor.errors import InputError
from citetutor.states import DocStatus, ReviewState

SUPPORTED, UNRELATED, NEAR_MISS = "supported", "unrelated", "near-miss"
CORRECT, WRONG, INCOMPLETE, FALSE_REFUSAL = "correct", "WRONG SHOWN", "incomplete", "false refusal"


@dataclass(frozen=True)
class Case:
    """One question: supported (with its pages and answer key) or one that must be refused.

    The key grades content, not pages: every `must` pattern has to match what the student is
    shown (the facts a right answer states), and no `must_not` pattern may (the statements that
    make it wrong: a flipped sign, the other law). Patterns are case-insensitive regexes.
    """

    question: str
    pages: tuple[int, ...] = ()
    refuse: str = ""  # "unrelated" | "near-miss" | "" for a supported question
    mode: str = "explain"
    must: tuple[str, ...] = ()
    must_not: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        """supported, unrelated or near-miss."""
        return self.refuse or SUPPORTED

    def grade(self, shown: str, pages: list[int]) -> str:
        """correct, WRONG SHOWN (a wrong statement or only wrong pages) or incomplete (key facts missing)."""
        text = _normalised(shown)
        if any(re.search(p, text) for p in self.must_not) or not set(pages) & set(self.pages):
            return WRONG
        return CORRECT if all(re.search(p, text) for p in self.must) else INCOMPLETE

    def states_a_key_fact(self, text: str) -> bool:
        """Whether `text` matches one of the `must` patterns, read as `grade` reads an answer."""
        normal = _normalised(text)
        return any(re.search(p, normal) for p in self.must)


def _normalised(text: str) -> str:
    """Lower-cased, whitespace collapsed: how key patterns read a text."""
    return " ".join(text.lower().split())


@dataclass(frozen=True)
class QuestionSet:
    """A PDF and the questions asked of it; `untouched` sets are held out from tuning."""

    name: str
    pdf: Path
    subject: str
    cases: tuple[Case, ...]
    untouched: bool = False


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
    form: str = ""  # how an answer was shown: "checked" (model wording) or "quote" (the notes' words)

    @property
    def verdict(self) -> str:
        """correct, WRONG SHOWN, incomplete, false refusal; refused or LET THROUGH for the rest."""
        if self.case.kind != SUPPORTED:
            return "refused" if self.status == "refused" else "LET THROUGH"
        if self.status == "refused":
            return FALSE_REFUSAL
        return self.case.grade(self.answer, self.pages)


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

    def quotes(self) -> int:
        """Supported answers shown as the notes' own words."""
        return sum(o.case.kind == SUPPORTED and o.form == "quote" for o in self.outcomes)


def _case(raw: dict) -> Case:
    return Case(raw["question"], tuple(raw.get("pages", ())), raw.get("refuse", ""),
                raw.get("mode", "explain"), tuple(raw.get("must", ())), tuple(raw.get("must_not", ())))


def load_set(path: Path, pdf: Path | None = None) -> QuestionSet:
    """Read a question set; its `pdf` is relative to the set's own file unless `pdf` is given."""
    try:
        raw = json.loads(Path(path).read_text())
        cases = tuple(_case(c) for c in raw["cases"])
        for case in cases:  # a broken pattern would otherwise surface mid-run, an hour in
            for pattern in case.must + case.must_not:
                re.compile(pattern)
    except (OSError, ValueError, KeyError, TypeError, re.error) as exc:
        raise InputError(f"Cannot read the question set {path} ({exc}); see evals/ for the format.") from exc
    pdf = Path(pdf) if pdf else (Path(path).parent / raw["pdf"]).resolve()
    _check_pdf(pdf, raw.get("source"))
    return QuestionSet(Path(path).stem, pdf, raw.get("subject", Path(path).stem), cases,
                       bool(raw.get("untouched")))


def _check_pdf(pdf: Path, source: dict | None) -> None:
    """The set's PDF must be there, and be the very file its questions were written from."""
    where = (f" It is {source['path']} of the public repository {source['repo']} at commit "
             f"{source['commit']} ({source.get('licence', 'licence not stated')}); save it there."
             if source else "")
    if not pdf.is_file():
        raise InputError(f"No PDF at {pdf}: fix the set's \"pdf\" path or pass --pdf PATH.{where}")
    if source and hashlib.sha256(pdf.read_bytes()).hexdigest() != source["sha256"]:
        raise InputError(f"{pdf} is not the file this set was written from (SHA-256 differs).{where}")


def ingest_set(pipe, qset: QuestionSet) -> int:
    """A subject named for the set, holding the set's PDF; its id.

    Lecture slides sometimes show a page of a paper as a picture (the Kermack-McKendrick deck
    shows the 1927 paper's first page twice): the deck is then held for Scan Review like any
    scan. The eval does what a learner does there, accepting each page's OCR draft, and says so.
    A PDF with no text layer at all is refused: its answers would grade OCR, not the gate."""
    subject = pipe.create_subject(qset.subject)
    result = pipe.upload(qset.pdf.read_bytes(), qset.pdf.name, subject)
    if result.status == DocStatus.READY:
        return subject
    if not result.chunks:
        raise InputError(f"{qset.pdf.name} was read as a scan ({result.status}): its pages without a "
                         "text layer stay out of retrieval until reviewed, so the set cannot be run. "
                         "Use a PDF with a text layer.")
    pipe.run_ocr(result.doc_id)
    pages = pipe.scan_pages(result.doc_id)
    print(f"  ({qset.pdf.name}: {len(pages)} scanned page(s) "
          f"{', '.join(str(p['page_no']) for p in pages)} reviewed as a learner would, OCR draft accepted)",
          flush=True)
    for page in pages:  # an empty draft cannot be approved (scan.review_page): the page is blank
        pipe.review_page(result.doc_id, page["page_no"], page["text"],
                         ReviewState.APPROVED if page["text"].strip() else ReviewState.BLANK)
    return subject


def run_set(pipe, qset: QuestionSet, draft_only: bool = False,
            on_case: Callable[[Outcome], None] = lambda o: None) -> Report:
    """Ingest the set's PDF into `pipe`, ask every question through the gate, and time it."""
    subject = ingest_set(pipe, qset)
    report = Report(qset.name)
    for case in qset.cases:
        started = time.perf_counter()
        result = pipe.ask(case.question, subject, mode=case.mode)
        outcome = Outcome(case, result.status, sorted({c.page_no for c in result.citations}),
                          time.perf_counter() - started, result.reasons, result.text,
                          result.relevance, stage_summary(result.spans), result.form)
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
    """The eval table, one row per question set, graded by content."""
    head = ("| set | content-correct | wrong shown | incomplete | false refusals | shown as quotes "
            "| unrelated refused | near-miss refused | median latency (supported) | gated / draft-only |")
    rows = [head, "|" + "---|" * 10]
    for r in reports:
        ratio = (f"{r.median_seconds() / statistics.median(r.draft_only_seconds):.2f}×"
                 if r.draft_only_seconds else "not measured")
        rows.append(
            f"| {r.name} | {r.count(SUPPORTED, CORRECT)}/{r.total(SUPPORTED)} "
            f"| {r.count(SUPPORTED, WRONG)} | {r.count(SUPPORTED, INCOMPLETE)} "
            f"| {r.count(SUPPORTED, FALSE_REFUSAL)} | {r.quotes()} "
            f"| {r.count(UNRELATED, 'refused')}/{r.total(UNRELATED)} "
            f"| {r.count(NEAR_MISS, 'refused')}/{r.total(NEAR_MISS)} "
            f"| {r.median_seconds():.1f} s | {ratio} |")
    return "\n".join(rows)


def case_line(outcome: Outcome) -> str:
    """One line per question, and every shown answer in full, for reading an eval run."""
    pages = ",".join(map(str, outcome.pages)) or "-"
    why = f" ({', '.join(outcome.reasons)})" if outcome.reasons else ""
    line = (f"{outcome.seconds:6.1f} s  {outcome.verdict:14} p.{pages:8} cos {outcome.relevance:.2f}  "
            f"{outcome.case.question[:70]}{why}  [{outcome.stages}]")
    if outcome.status == "answered":
        line += f"\n           shown{' as quote' if outcome.form == 'quote' else ''}: {outcome.answer}"
    return line
