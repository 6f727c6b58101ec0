"""Scans: OCR drafts, review against the image, out of retrieval until every page is done."""

import pytest

from citetutor.errors import InputError
from citetutor.retrieval import Scope, search
from tests.corpus import HANDWRITTEN, corpus_file
from tests.fakes import ScriptedOcr
from tests.helpers import make_pipeline

PAGES = [f"Page {i}: the work done moving a charge equals the change in potential energy {i}"
         for i in range(1, 7)]


@pytest.fixture
def scan(tmp_path):
    pipe = make_pipeline(tmp_path, ocr=ScriptedOcr(*PAGES, partial_pages=(6,)))
    pipe.subject_id = pipe.create_subject("E&M")
    pipe.doc = pipe.upload(corpus_file(*HANDWRITTEN).read_bytes(), "07_Energy.pdf", pipe.subject_id)
    return pipe


def _hits(pipe):
    return search(pipe.store, pipe.models.embedder, "work done moving a charge potential energy",
                  Scope(pipe.subject_id)).hits


def test_ocr_drafts_every_page_and_labels_partial_output(scan):
    progress = []
    assert scan.run_ocr(scan.doc.doc_id, progress=lambda f, m: progress.append(m)) == 6
    pages = scan.scan_pages(scan.doc.doc_id)
    assert [p["text"] for p in pages] == PAGES
    assert [p["ocr_partial"] for p in pages] == [False] * 5 + [True]
    assert scan.run_ocr(scan.doc.doc_id) == 0, "drafts are not redone"
    assert len(progress) == 7


def test_document_stays_out_of_retrieval_until_every_page_is_reviewed(scan):
    scan.run_ocr(scan.doc.doc_id)
    doc_id = scan.doc.doc_id
    for page_no in range(1, 6):
        assert scan.review_page(doc_id, page_no, PAGES[page_no - 1] + " (checked)", "approved") is False
        assert _hits(scan) == [], "nothing from a half-reviewed scan is retrievable"
    assert scan.review_page(doc_id, 6, "", "blank") is True
    hits = _hits(scan)
    assert hits and all(h.page_no != 6 for h in hits), "blank pages are excluded"
    assert any("(checked)" in h.text for h in hits), "the learner's edits are what gets indexed"
    assert scan.document(doc_id)["status"] == "ready"


def test_reopening_a_page_takes_the_document_out_again(scan):
    scan.run_ocr(scan.doc.doc_id)
    for page_no in range(1, 7):
        scan.review_page(scan.doc.doc_id, page_no, PAGES[page_no - 1], "approved")
    scan.reopen_page(scan.doc.doc_id, 2)
    assert _hits(scan) == []
    assert scan.review_page(scan.doc.doc_id, 2, "Page 2 corrected text about potential energy", "approved")
    chunk_pages = scan.store.query("SELECT page_no FROM chunks WHERE doc_id = ? ORDER BY page_no",
                                   [scan.doc.doc_id])
    assert [p for (p,) in chunk_pages] == [1, 2, 3, 4, 5, 6]


def test_approving_an_empty_page_asks_for_text_or_blank(scan):
    with pytest.raises(InputError, match="mark it blank"):
        scan.review_page(scan.doc.doc_id, 1, "  ", "approved")


def test_a_scan_release_with_a_resized_embedder_is_refused_and_loses_no_review(scan):
    """Vectors of two sizes under one model name once broke every question in the subject."""
    from citetutor.errors import EmbeddingMismatch
    from tests.corpus import MIT
    scan.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", scan.subject_id)  # 256-number vectors
    scan.run_ocr(scan.doc.doc_id)
    for page_no in range(1, 6):
        scan.review_page(scan.doc.doc_id, page_no, PAGES[page_no - 1], "approved")
    scan.models.embedder.dim = 32  # same name, other size
    with pytest.raises(EmbeddingMismatch, match="Re-embed"):
        scan.review_page(scan.doc.doc_id, 6, "", "blank")
    sizes = scan.store.query("SELECT DISTINCT len(vector) FROM embeddings")
    assert sizes == [(256,)], "no vector of the other size was stored"
    assert [p["review_state"] for p in scan.scan_pages(scan.doc.doc_id)] == ["approved"] * 5 + ["blank"]
    scan.models.embedder.dim = 256  # the model is put back: the release goes through
    assert scan.review_page(scan.doc.doc_id, 6, "", "blank") is True
    assert _hits(scan), "and the subject answers questions again"
