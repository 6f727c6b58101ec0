"""The quiz eval: quizzes over page ranges of real PDFs, with every kept item printed for a
reader, and the reader's verdicts (kept in the repo) counted against what the gate kept."""

from __future__ import annotations

import hashlib
import json
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from citetutor.devtools.evaluation import SUPPORTED, QuestionSet, load_set
from citetutor.errors import InputError
from citetutor.quiz import QuizItem


@dataclass
class RangeReport:
    """One quiz over one page range."""

    pdf: str
    first: int
    last: int
    asked: int
    kept: list[QuizItem] = field(default_factory=list)
    kept_at: list[float] = field(default_factory=list)  # seconds from the start to each kept item
    seconds: float = 0.0
    rejected: dict[str, int] = field(default_factory=dict)
    shortfall: str = ""
    dropped: list[tuple[str, str, str]] = field(default_factory=list)
    tutor_question: str = ""  # a supported question of the PDF's set answered on these pages
    tutor_s: float | None = None  # its gated answer's time, measured right after the quiz

    @property
    def first_item_s(self) -> float | None:
        """Seconds until the first kept item was shown."""
        return self.kept_at[0] if self.kept_at else None


def verdict_key(pdf: str, item: QuizItem) -> str:
    """How a reader's verdict names an item: its PDF, stem and key (stable across runs)."""
    return hashlib.sha256(f"{pdf}\n{item.candidate.stem}\n{item.key}".encode()).hexdigest()[:16]


def load_plan(path: Path) -> list[tuple[QuestionSet, list[tuple[int, int]], int]]:
    """(question set, ranges, count) per entry of a quiz-range file: the sets name the PDFs."""
    try:
        raw = json.loads(path.read_text())
        plan = []
        for entry in raw["ranges"]:
            qset = load_set(path.parent / entry["set"])
            plan.append((qset, [tuple(r) for r in entry["pages"]], raw.get("count", 5)))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"Cannot read the quiz ranges {path} ({exc}); see evals/quiz/ranges.json.") from exc
    return plan


def run_ranges(pipe, plan, on_range: Callable[[RangeReport], None] = lambda r: None) -> list[RangeReport]:
    """Ingest each PDF once and make a quiz of each of its ranges, timing every kept item."""
    reports = []
    for qset, ranges, count in plan:
        subject = pipe.create_subject(qset.subject)
        doc = pipe.upload(qset.pdf.read_bytes(), qset.pdf.name, subject)
        for first, last in ranges:
            report = RangeReport(qset.pdf.name, first, last, count)
            started = time.perf_counter()

            def kept(item, report=report, started=started) -> None:
                report.kept_at.append(time.perf_counter() - started)
            result = pipe.quiz(doc.doc_id, first, last, count, on_item=kept)
            report.seconds = time.perf_counter() - started
            report.kept, report.rejected, report.shortfall = result.items, result.rejected, result.shortfall
            report.dropped = result.dropped
            _time_a_tutor_answer(pipe, qset, subject, report)
            reports.append(report)
            on_range(report)
    return reports


def _time_a_tutor_answer(pipe, qset: QuestionSet, subject: int, report: RangeReport, tries: int = 3) -> None:
    """Side by side with the quiz's first item: one gated tutor answer on the same pages (the
    set's supported questions on those pages, in order, until one is answered; a refusal
    takes no model time and is no comparison)."""
    on_pages = [c for c in qset.cases if c.kind == SUPPORTED and c.pages
                and all(report.first <= p <= report.last for p in c.pages)]
    for case in on_pages[:tries]:
        started = time.perf_counter()
        answered = pipe.ask(case.question, subject, mode=case.mode).status == "answered"
        if answered:
            report.tutor_question, report.tutor_s = case.question, time.perf_counter() - started
            return


def range_lines(report: RangeReport, verdicts: dict) -> str:
    """A range's figures and every kept item in full, with the reader's verdict if there is one."""
    first = f"{report.first_item_s:.0f} s" if report.first_item_s is not None else "-"
    per = f"{report.seconds / len(report.kept):.0f} s" if report.kept else "-"
    dropped = ", ".join(f"{n} {code}" for code, n in report.rejected.items()) or "none"
    lines = [f"## {report.pdf} pp. {report.first}-{report.last}: {len(report.kept)}/{report.asked} kept, "
             f"first after {first}, {per} per kept item, {report.seconds:.0f} s in all; dropped: {dropped}"
             + (f"\n   {report.shortfall}" if report.shortfall else "")
             + (f"\n   one gated tutor answer on these pages: {report.tutor_s:.0f} s ({report.tutor_question})"
                if report.tutor_s is not None else "")]
    for kind, code, detail in report.dropped:
        lines.append(f"  dropped {kind} ({code}): {detail}"[:400])
    for item in report.kept:
        c = item.candidate
        verdict = verdicts.get(verdict_key(report.pdf, item))
        lines.append(f"- [{verdict_key(report.pdf, item)}] {c.kind}: {c.stem}")
        if c.options:
            lines.append("    options: " + " | ".join(c.options))
        lines.append(f"    key: {item.key}   (p. {', '.join(map(str, item.pages))})")
        lines.append(f"    sentence: {' … '.join(item.quotes)}")
        lines.append(f"    reader: {verdict or 'not yet judged'}")
    return "\n".join(lines)


def table(reports: list[RangeReport], verdicts: dict) -> str:
    """Per PDF: ranges, kept of asked, kinds kept, wrong keys by the reader, times."""
    rows = ["| PDF | ranges | kept / asked | ranges with 0 | cloze / mcq / short kept | wrong keys "
            "(reader) | not yet judged | median first item | median per kept item | tutor answer, same pages |",
            "|" + "---|" * 10]
    by_pdf: dict[str, list[RangeReport]] = {}
    for r in reports:
        by_pdf.setdefault(r.pdf, []).append(r)
    for pdf, rs in by_pdf.items():
        items = [i for r in rs for i in r.kept]
        kinds = [sum(i.candidate.kind == k for i in items) for k in ("cloze", "mcq", "short")]
        judged = [verdicts.get(verdict_key(pdf, i)) for i in items]
        wrong = sum(v is not None and not v.get("key_right", False) for v in judged)
        firsts = [r.first_item_s for r in rs if r.first_item_s is not None]
        pers = [r.seconds / len(r.kept) for r in rs if r.kept]
        tutor = [r.tutor_s for r in rs if r.tutor_s is not None]
        rows.append(f"| {pdf} | {len(rs)} | {len(items)}/{sum(r.asked for r in rs)} "
                    f"| {sum(not r.kept for r in rs)} | {' / '.join(map(str, kinds))} | {wrong} "
                    f"| {sum(v is None for v in judged)} | {_median_s(firsts)} | {_median_s(pers)} "
                    f"| {_median_s(tutor)} |")
    return "\n".join(rows)


def _median_s(seconds: list[float]) -> str:
    """'12 s', or '-' when nothing was measured."""
    return f"{statistics.median(seconds):.0f} s" if seconds else "-"


def load_verdicts(path: Path) -> dict:
    """The reader's verdicts per item key ({} if none were written yet)."""
    return json.loads(path.read_text())["items"] if path.is_file() else {}
