"""The OCR eval: each engine's text of hand-transcribed scan pages, scored by character error
rate, timed per page, side by side in one run (`python -m citetutor ocr-eval`)."""

from __future__ import annotations

import re
import time
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pymupdf

from citetutor.errors import ModelUnavailable
from citetutor.marking import edit_distance
from citetutor.models.base import OcrModel
from citetutor.pdf import render_png

# evals/ocr/<scan file stem>-p<N>.txt is page N of <scan file stem>.pdf in the shared corpus.
_PAGE_FILE = re.compile(r"^(?P<scan>.+)-p(?P<page>\d+)\.txt$")


@dataclass(frozen=True)
class PageScore:
    """One engine on one page."""

    engine: str
    page: str
    cer: float
    seconds: float


def normalised(text: str) -> str:
    """Text as compared: NFKC, lower case, one space between words."""
    return " ".join(unicodedata.normalize("NFKC", text).lower().split())


def character_error_rate(hypothesis: str, reference: str) -> float:
    """Edit distance (insertions, deletions, substitutions) over the reference's length."""
    hyp, ref = normalised(hypothesis), normalised(reference)
    return edit_distance(ref, hyp) / max(len(ref), 1)


def pages(transcriptions: Path, scans: Path) -> list[tuple[str, Path, int, str]]:
    """(name, scan PDF, page number, reference text) for each transcription file."""
    found = []
    for path in sorted(transcriptions.glob("*.txt")):
        match = _PAGE_FILE.match(path.name)
        if match:
            found.append((path.stem, scans / f"{match['scan']}.pdf", int(match["page"]), path.read_text()))
    return found


def score(engines: dict[str, OcrModel], transcriptions: Path, scans: Path, dpi: int,
          on_skip: Callable[[str, str], None] = lambda engine, why: None) -> list[PageScore]:
    """Every engine on every transcribed page, rendered as the product renders scans; an
    engine that cannot run here (not installed) is skipped and `on_skip` says why."""
    scores = []
    engines = dict(engines)
    for name, pdf, page_no, reference in pages(transcriptions, scans):
        doc = pymupdf.open(pdf)
        try:
            png = render_png(doc, page_no, dpi)
        finally:
            doc.close()
        for engine_name, engine in list(engines.items()):
            started = time.perf_counter()
            try:
                text = engine.transcribe(png).text
            except ModelUnavailable as exc:
                on_skip(engine_name, str(exc))
                del engines[engine_name]
                continue
            scores.append(PageScore(engine_name, name, character_error_rate(text, reference),
                                    time.perf_counter() - started))
    return scores


def table(scores: list[PageScore]) -> str:
    """Engine rows, a CER column per page, then the mean CER and seconds per page."""
    page_names = list(dict.fromkeys(s.page for s in scores))
    rows = ["| engine | " + " | ".join(f"CER {p}" for p in page_names) + " | mean CER | seconds per page |",
            "|" + "---|" * (len(page_names) + 3)]
    for engine in dict.fromkeys(s.engine for s in scores):
        mine = {s.page: s for s in scores if s.engine == engine}
        cers = [mine[p].cer for p in page_names]
        seconds = sum(s.seconds for s in mine.values()) / len(mine)
        rows.append(f"| {engine} | " + " | ".join(f"{c:.0%}" for c in cers)
                    + f" | {sum(cers) / len(cers):.0%} | {seconds:.1f} |")
    return "\n".join(rows)
