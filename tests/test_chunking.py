"""Chunks stay within size, overlap, and never cross a page boundary."""

import json

import pymupdf

from citetutor.chunking import chunk_page, spans
from citetutor.pdf import open_pdf, read_page
from tests.corpus import MIT, corpus_file


def test_spans_respect_size_and_overlap():
    text = " ".join(f"word{i}" for i in range(2000))
    result = spans(text, 1600, 200)
    assert all(end - start <= 1600 for start, end in result)
    assert result[0][0] == 0 and result[-1][1] == len(text)
    for (_, e1), (s2, _) in zip(result, result[1:]):
        assert 0 < e1 - s2 <= 200 + 20, "neighbours share about 200 characters"
        assert text[s2 - 1] == " ", "chunks start on a whole word"


def test_short_text_is_one_span():
    assert spans("Newton's second law.", 1600, 200) == [(0, 20)]


def test_real_pages_chunk_without_crossing_pages():
    doc = open_pdf(corpus_file(*MIT).read_bytes(), "mit.pdf")
    for index in range(doc.page_count):
        page = read_page(doc, index, "mit.pdf")
        chunks = chunk_page("doc1", page, 1600, 200)
        for chunk in chunks:
            assert chunk.page_no == index + 1
            assert len(chunk.text) <= 1600
            assert chunk.text in page.text, "a chunk is a slice of its own page only"
            assert chunk.id == f"doc1-p{index + 1}-c{chunk.ord}"
        if page.text.strip():
            assert chunks and json.loads(chunks[0].bboxes), "chunks carry highlight boxes"


def test_chunk_ids_are_deterministic():
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Centripetal acceleration points to the centre.")
    data = doc.tobytes()
    first = chunk_page("d", read_page(open_pdf(data, "a.pdf"), 0, "a.pdf"), 1600, 200)
    second = chunk_page("d", read_page(open_pdf(data, "a.pdf"), 0, "a.pdf"), 1600, 200)
    assert [c.id for c in first] == [c.id for c in second] == ["d-p1-c0"]


def test_exponents_keep_their_place_as_superscripts():
    # The garbled case: page 8 of the MIT chapter read "θ(t) = At − Bt3".
    doc = open_pdf(corpus_file(*MIT).read_bytes(), "mit.pdf")
    page = read_page(doc, 7, "mit.pdf")
    assert "θ(t) = At³ − Bt" in page.text
    word = next(w for w in page.words if w.text == "At³")
    assert page.text[word.start:word.end] == "At³", "one character each: offsets and boxes hold"
    from citetutor.retrieval import tokenize
    assert "at3" in tokenize(page.text), "search and the code checks read it as At3"


def test_a_claim_may_write_an_exponent_either_way():
    from citetutor.checks import numbers_in as _numbers
    assert _numbers("θ(t) = At^3 − Bt") == _numbers("θ(t) = At³ − Bt") == {"3"}
