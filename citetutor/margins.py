"""Running headers and footers: a line repeated in the margin of most pages is not notes.

A browser print-out stamps every page with the page's title, its web address, the date and
"6 of 20"; Beamer slides carry a navigation bar ("Introductions Course Outline History/Logic")
and "38 / 38"; a PowerPoint export may set its date and slide number above any margin, on the
same row of every slide ("13/11/2025 24", 83% down). Left in the text, they join the first or
last sentence of every page, and a quote once began "Map Projections Poster
http://rnlnx635.er.usgs.gov/... This new space-age conformal projection was developed ...".
Some Beamer themes put the navigation in a sidebar instead, whose lines the text layer
interleaves with the slide's: an answer read "exposure to loss due to a specific introduction
to financial risk counterparty failing to meet ...". They are taken out of what is chunked and
searched; the page itself, and its stored text, keep them.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace

from citetutor.pdf import PageContent, Word

MARGIN = 0.12  # share of the page height at the top and at the bottom that counts as margin
SIDE = 0.15  # share of the page width at the left and at the right that a sidebar's lines stay within
MIN_PAGES = 3  # a line must repeat on at least this many pages, and on half of those with text
# Running lines a side must hold to be a sidebar: a navigation column lists sections; one label
# there ("Slide 7" on each page of a geostatistics handout) is the slide's own, and stays.
MIN_SIDEBAR_LINES = 3


@dataclass(frozen=True)
class _Line:
    start: int
    end: int
    key: str  # the line as compared across pages: lower case, every number as "#"
    margin: str  # "edge", "left", "right", "row N" (a line without words N% down) or "" (the text)


def without_running_lines(pages: list[PageContent]) -> list[PageContent]:
    """The pages without the lines that repeat in the top or bottom margin, down one side as a
    sidebar, or (dates and numbers) on one row, of most of them."""
    lines = [_lines(page) for page in pages]
    counts = Counter(place for page_lines in lines
                     for place in {(line.margin, line.key) for line in page_lines if line.margin})
    least = max(MIN_PAGES, sum(bool(p.text.strip()) for p in pages) / 2)
    running = {place for place, count in counts.items() if count >= least}
    sides = Counter(margin for margin, _ in running if margin in ("left", "right"))
    running = {(margin, key) for margin, key in running
               if margin not in ("left", "right") or sides[margin] >= MIN_SIDEBAR_LINES}
    if not running:
        return pages
    return [_without(page, [line for line in page_lines if (line.margin, line.key) in running])
            for page, page_lines in zip(pages, lines)]


def _lines(page: PageContent) -> list[_Line]:
    """The page text's lines, each with the margin its words lie in."""
    found, start, index = [], 0, 0
    for text in page.text.split("\n"):
        end = start + len(text)
        middles, lefts, rights = [], [], []
        while index < len(page.words) and page.words[index].start < end:  # words are in text order
            word = page.words[index]
            middles.append((word.rect[1] + word.rect[3]) / 2)
            lefts.append(word.rect[0])
            rights.append(word.rect[2])
            index += 1
        key = " ".join(re.sub(r"\d+", "#", text.lower()).split())
        if middles and key and page.height > 0:
            margin = _margin(page, sum(middles) / len(middles), min(lefts), max(rights), key)
            found.append(_Line(start, end, key, margin))
        start = end + 1
    return found


def _margin(page: PageContent, middle: float, left: float, right: float, key: str) -> str:
    """Where a line lies: "edge" (top or bottom margin), "left" or "right" (a side), "row N"
    (N% down the page) for a line without words inside it, or "" for the page's own text."""
    place = middle / page.height
    if place < MARGIN or place > 1 - MARGIN:
        return "edge"
    # Only words count at the sides: a bare "(14)" there is an equation's label, which the text
    # cites. A line without words on one row of most pages is a date or a page number set above
    # the margin; a sentence repeated there is a build's bullet, and stays.
    if page.width <= 0 or re.search(r"[a-z]{2}", key) is None:
        return f"row {round(100 * place)}"
    if right < SIDE * page.width:
        return "left"
    return "right" if left > (1 - SIDE) * page.width else ""


def _without(page: PageContent, dropped: list[_Line]) -> PageContent:
    """The page with the words of `dropped` lines taken out, text and offsets rebuilt; a page
    whose every line repeats on the others ("This is page 3" on each of 30 pages) keeps them,
    since then they are all it says."""
    if not dropped:
        return page
    kept = [w for w in page.words if not any(line.start <= w.start < line.end for line in dropped)]
    if not kept:
        return page
    parts: list[str] = []
    words: list[Word] = []
    pos, previous = 0, None
    for word in kept:
        if previous is not None:
            # A line break anywhere between two kept words stays a line break.
            sep = "\n" if "\n" in page.text[previous.end:word.start] else " "
            parts.append(sep)
            pos += 1
        parts.append(word.text)
        words.append(Word(word.text, pos, pos + len(word.text), word.rect))
        pos += len(word.text)
        previous = word
    return replace(page, text="".join(parts), words=words)
