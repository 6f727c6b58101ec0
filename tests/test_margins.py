"""Running headers and footers stay on the page but out of what is chunked, searched and quoted."""

import json

import pymupdf
import pytest

from citetutor.margins import without_running_lines
from citetutor.pdf import open_pdf, read_page
from tests.corpus import corpus_file
from tests.helpers import make_pipeline

HEADER = "Map Projections Poster"
BODY = ["Mercator maps keep angles true.", "Equal-area maps keep sizes true.",
        "Gnomonic maps show great circles as straight lines.", "Globes show everything true.",
        "Robinson maps balance size and shape."]


def _printout(pages: int, header: str = HEADER, middle: str = "") -> bytes:
    """A browser print-out: a title at the top, 'N of M' at the bottom, a sentence between."""
    doc = pymupdf.open()
    for n in range(pages):
        page = doc.new_page()  # 595 x 842 points
        page.insert_text((72, 40), header, fontsize=9)
        page.insert_text((72, 400), BODY[n % len(BODY)], fontsize=11)
        if middle:
            page.insert_text((72, 430), middle, fontsize=11)
        page.insert_text((480, 820), f"{n + 1} of {pages}", fontsize=9)
    return doc.tobytes()


@pytest.fixture
def pipe(tmp_path):
    pipe = make_pipeline(tmp_path)
    pipe.subject_id = pipe.create_subject("Maps")
    return pipe


def _chunks(pipe) -> list[tuple[int, str, str]]:
    return pipe.store.query("SELECT page_no, text, word_boxes FROM chunks ORDER BY page_no")


def test_lines_repeated_in_the_margins_of_most_pages_are_not_chunked(pipe):
    pipe.upload(_printout(5), "poster.pdf", pipe.subject_id)
    chunks = _chunks(pipe)
    assert [text for _, text, _ in chunks] == BODY
    for _, text, word_boxes in chunks:  # offsets and boxes were rebuilt with the text
        for start, end, *box in json.loads(word_boxes):
            assert text[start:end] and 380 < box[3] < 410, "each word box is the body line's"
    stored = pipe.store.query("SELECT text FROM pages ORDER BY page_no")
    assert HEADER in stored[0][0] and "1 of 5" in stored[0][0], "the page's own text keeps them"


SIDEBAR = ["Lecture 1:", "Introduction to", "Financial Risk", "Outline", "Risk classification"]


def _beamer_with_sidebar(pages: int) -> bytes:
    """Slides whose navigation runs down a left sidebar, written between the body's lines as
    such a theme's text layer orders them."""
    doc = pymupdf.open()
    for n in range(pages):
        page = doc.new_page(width=363, height=272)
        page.insert_text((60, 90), BODY[n % len(BODY)], fontsize=9)
        for i, line in enumerate(SIDEBAR):
            page.insert_text((4, 60 + 20 * i), line, fontsize=6)
        page.insert_text((60, 110), "(14) holds on every slide.", fontsize=9)
    return doc.tobytes()


def test_a_sidebar_repeated_on_most_slides_is_not_chunked(pipe):
    pipe.upload(_beamer_with_sidebar(5), "lecture.pdf", pipe.subject_id)
    texts = [text for _, text, _ in _chunks(pipe)]
    assert len(texts) == 5 and not any(line in text for text in texts for line in SIDEBAR)
    assert all(text.startswith(BODY[n]) and "holds on every slide" in text for n, text in enumerate(texts))


def _powerpoint_export(pages: int) -> bytes:
    """Slides whose footer, a date on the left and the slide number on the right, sits 83% down
    the page: above any margin, on the same row of every slide (an operating-systems deck)."""
    doc = pymupdf.open()
    for n in range(pages):
        page = doc.new_page(width=842, height=595)
        page.insert_text((60, 120), BODY[n % len(BODY)], fontsize=19)
        page.insert_text((60, 160), f"Step {n + 1} of the example: 2 threads, {n + 3} locks.", fontsize=19)
        page.insert_text((99, 497), "13/11/2025", fontsize=10)
        page.insert_text((732, 497), str(n + 21), fontsize=10)
    return doc.tobytes()


def test_a_date_and_slide_number_on_one_row_of_every_slide_are_not_chunked(pipe):
    pipe.upload(_powerpoint_export(5), "deadlock.pdf", pipe.subject_id)
    texts = [text for _, text, _ in _chunks(pipe)]
    assert texts == [f"{BODY[n]}\nStep {n + 1} of the example: 2 threads, {n + 3} locks." for n in range(5)]


def test_one_label_down_the_side_is_the_slides_own_and_stays(pipe):
    doc = pymupdf.open()
    for n in range(5):
        page = doc.new_page(width=363, height=272)
        page.insert_text((60, 90), BODY[n], fontsize=9)
        page.insert_text((320, 130), f"Slide {n + 1}", fontsize=6)
    pipe.upload(doc.tobytes(), "handout.pdf", pipe.subject_id)
    assert all(f"Slide {n + 1}" in text for n, (_, text, _) in enumerate(_chunks(pipe))), "not a sidebar"


def test_a_line_repeated_mid_page_is_notes_and_stays(pipe):
    pipe.upload(_printout(4, middle="Distortion is unavoidable."), "poster.pdf", pipe.subject_id)
    assert all(text.endswith("Distortion is unavoidable.") and HEADER not in text for _, text, _ in _chunks(pipe))


def test_a_short_document_keeps_its_lines(pipe):
    pipe.upload(_printout(2), "two.pdf", pipe.subject_id)
    assert all(HEADER in text for _, text, _ in _chunks(pipe)), "two pages cannot show a line runs"


@pytest.mark.parametrize("name", ["mit801sc-ch06-circular-motion.pdf", "fiset-static-and-dynamic-arrays-slides.pdf"])
def test_real_notes_without_running_lines_keep_every_line(name):
    doc = open_pdf(corpus_file("course", name), name)
    pages = [read_page(doc, i, name) for i in range(doc.page_count)]
    assert without_running_lines(pages) == pages


def test_pages_that_hold_only_repeated_lines_keep_them(pipe):
    doc = pymupdf.open()
    for n in range(4):
        doc.new_page().insert_text((72, 40), f"This is page {n + 1}", fontsize=9)
    pipe.upload(doc.tobytes(), "pages.pdf", pipe.subject_id)
    assert [text for _, text, _ in _chunks(pipe)] == [f"This is page {n}" for n in range(1, 5)]
