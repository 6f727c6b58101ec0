"""Split page text into overlapping chunks that never cross a page boundary."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from citetutor.pdf import PageContent

BREAKS = ("\n\n", ". ", "\n", "; ", ", ", " ")


@dataclass(frozen=True)
class Chunk:
    """A piece of one page with a deterministic ID and highlight boxes."""

    id: str
    doc_id: str
    page_no: int
    ord: int
    text: str
    start: int
    end: int
    bboxes: str  # JSON list of [x0, y0, x1, y1] line boxes, for the viewer highlight
    word_boxes: str = "[]"  # JSON [start, end, x0, y0, x1, y1] per word, offsets in `text`


def chunk_id(doc_id: str, page_no: int, ord_: int) -> str:
    """Deterministic citation ID: the same chunk has the same ID in every run."""
    return f"{doc_id}-p{page_no}-c{ord_}"


def spans(text: str, size: int, overlap: int) -> list[tuple[int, int]]:
    """Character spans of at most `size`, overlapping by about `overlap`, cut at natural breaks."""
    if overlap >= size:
        raise ValueError("overlap must be smaller than the chunk size")
    result: list[tuple[int, int]] = []
    start, n = 0, len(text)
    while start < n:
        end = min(start + size, n)
        if end < n:
            end = _natural_end(text, start, end)
        result.append((start, end))
        if end >= n:
            break
        start = _next_start(text, max(end - overlap, start + 1), end)
    return result


def _natural_end(text: str, start: int, hard_end: int) -> int:
    """Latest break in the second half of the window, else the hard end."""
    floor = start + (hard_end - start) // 2
    for mark in BREAKS:
        cut = text.rfind(mark, floor, hard_end)
        if cut != -1:
            return cut + len(mark.rstrip()) if mark.strip() else cut
    return hard_end


def _next_start(text: str, candidate: int, end: int) -> int:
    """Move the overlap start forward to a word boundary so chunks begin on a whole word."""
    space = text.find(" ", candidate, end)
    start = space + 1 if space != -1 else candidate
    while start < end and text[start].isspace():
        start += 1
    return start


def chunk_page(doc_id: str, page: PageContent, size: int, overlap: int) -> list[Chunk]:
    """Chunks of one page, each with the boxes of the words it covers."""
    chunks = []
    for ord_, (start, end) in enumerate(spans(page.text, size, overlap)):
        body = page.text[start:end].strip()
        if body:
            offset = start + len(page.text[start:end]) - len(page.text[start:end].lstrip())
            boxes = _line_boxes(page, start, end)
            chunks.append(Chunk(chunk_id(doc_id, page.page_no, ord_), doc_id, page.page_no,
                                ord_, body, start, end, json.dumps(boxes),
                                json.dumps(_word_boxes(page, offset, offset + len(body)))))
    return chunks


def _word_boxes(page: PageContent, start: int, end: int) -> list[list[float]]:
    """Each covered word's span (relative to `start`) and box, so a sentence can be highlighted."""
    return [[w.start - start, w.end - start, *(round(v, 1) for v in w.rect)]
            for w in page.words if w.start >= start and w.end <= end]


def _line_boxes(page: PageContent, start: int, end: int) -> list[list[float]]:
    """Merge the covered words' boxes into one box per text line (small and highlightable)."""
    return line_boxes(w.rect for w in page.words if not (w.end <= start or w.start >= end))


def line_boxes(word_rects: Iterable[Sequence[float]]) -> list[list[float]]:
    """Word boxes in reading order merged into one box per text line."""
    boxes: list[list[float]] = []
    for x0, y0, x1, y1 in word_rects:
        last = boxes[-1] if boxes else None
        if last and abs(last[1] - y0) < 2 and abs(last[3] - y1) < 2:
            last[0], last[2] = min(last[0], x0), max(last[2], x1)
        else:
            boxes.append([round(x0, 1), round(y0, 1), round(x1, 1), round(y1, 1)])
    return boxes
