"""Ingestion of real PDFs into real DuckDB: pages, chunks, vectors, atomicity."""

from dataclasses import replace

import numpy as np
import pytest

from citetutor.errors import InputError
from tests.corpus import HANDWRITTEN, MIT, SLIDES, corpus_file
from tests.fakes import HashEmbedder
from tests.helpers import make_pipeline


def test_course_pdf_is_ingested_with_model_identity(tmp_path):
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("Mechanics")
    seen = []
    result = pipe.upload(corpus_file(*MIT).read_bytes(), "mit8_01 ch6.pdf", subject,
                         progress=lambda f, m: seen.append(f))
    assert (result.kind, result.status, result.pages) == ("text", "ready", 19)
    assert result.chunks >= 19
    doc = pipe.document(result.doc_id)
    assert (doc["embedding_model"], doc["embedding_dim"]) == ("test:hash-256", 256)
    stored = pipe.store.query("SELECT count(*) FROM embeddings e JOIN chunks c ON c.id = e.chunk_id "
                              "WHERE c.doc_id = ?", [result.doc_id])[0][0]
    assert stored == result.chunks
    assert seen == sorted(seen) and seen[-1] == 1.0, "progress only moves forward, ends at 100%"
    assert (tmp_path / "files" / f"{doc['sha256']}.pdf").exists()


def test_same_file_twice_is_reported_not_duplicated(tmp_path):
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("Mechanics")
    data = corpus_file(*MIT).read_bytes()
    first = pipe.upload(data, "a.pdf", subject)
    again = pipe.upload(data, "copy.pdf", subject)
    assert again.duplicate and again.doc_id == first.doc_id
    assert len(pipe.documents(subject)) == 1


class FailingEmbedder(HashEmbedder):
    """Fails after the pages are read and the original is kept, as a dropped server would."""

    def embed(self, texts):
        raise RuntimeError("model server went away")


def test_failure_midway_stores_nothing_and_leaves_no_files(tmp_path):
    pipe = make_pipeline(tmp_path, embedder=FailingEmbedder())
    subject = pipe.create_subject("Mechanics")
    with pytest.raises(RuntimeError):
        pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", subject)
    for table in ("documents", "pages", "chunks", "embeddings"):
        assert pipe.store.query(f"SELECT count(*) FROM {table}")[0][0] == 0
    assert not list((tmp_path / "files").glob("*"))


def test_scan_is_detected_with_page_images_and_kept_out_of_retrieval(tmp_path):
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("E&M")
    result = pipe.upload(corpus_file(*HANDWRITTEN).read_bytes(), "07_Energy.pdf", subject)
    assert (result.kind, result.status, result.chunks) == ("scan", "needs_review", 0)
    pages = pipe.scan_pages(result.doc_id)
    assert len(pages) == 6 and all(p["review_state"] == "pending" for p in pages)
    assert all(open(p["image_path"], "rb").read(4) == b"\x89PNG" for p in pages)


def test_empty_upload_and_size_limit_are_refused(tmp_path):
    pipe = make_pipeline(tmp_path, limits={"max_upload_mb": 1})
    subject = pipe.create_subject("S")
    with pytest.raises(InputError, match="empty"):
        pipe.upload(b"", "nothing.pdf", subject)
    with pytest.raises(InputError, match="larger than 1 MB"):
        pipe.upload(corpus_file(*MIT).read_bytes(), "big.pdf", subject)


def test_delete_document_removes_rows_and_file(tmp_path):
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("Mechanics")
    result = pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", subject)
    pipe.delete_document(result.doc_id)
    assert pipe.store.query("SELECT count(*) FROM chunks")[0][0] == 0
    assert not list((tmp_path / "files").glob("*.pdf"))


def test_reembed_replaces_vectors_and_model_identity(tmp_path):
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("Mechanics")
    result = pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", subject)
    pipe.models = replace(pipe.models, embedder=HashEmbedder(name="test:hash-32", dim=32))
    assert pipe.reembed(result.doc_id) == result.chunks
    dims = pipe.store.query("SELECT DISTINCT model, len(vector) FROM embeddings")
    assert dims == [("test:hash-32", 32)]
    assert np.isclose(pipe.document(result.doc_id)["embedding_dim"], 32)


def test_a_poster_sized_scanned_page_is_kept_as_a_bounded_image(tmp_path):
    import pymupdf

    from tests.test_embedded_models import render_png as text_png
    doc = pymupdf.open()
    page = doc.new_page(width=14400, height=14400)
    page.insert_image(page.rect, stream=text_png("Momentum is mass times velocity"))
    pipe = make_pipeline(tmp_path)
    result = pipe.upload(doc.tobytes(), "poster.pdf", pipe.create_subject("S"))
    assert result.kind == "scan"
    image = pymupdf.Pixmap(pipe.scan_pages(result.doc_id)[0]["image_path"])
    assert max(image.width, image.height) <= 4000


def test_latin1_and_path_like_file_names_are_stored_readably(tmp_path):
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("S")
    name = b"caf\xe9 notes.pdf".decode("utf-8", "surrogateescape")  # as a Latin-1 file system hands it over
    result = pipe.upload(corpus_file(*MIT).read_bytes(), name, subject)
    assert result.title == "café notes"
    assert pipe.store.query("SELECT filename FROM documents")[0][0] == "café notes.pdf"
    other = pipe.upload(corpus_file(*SLIDES).read_bytes(), "..\\..\\evil/../x.pdf", subject)
    assert other.title == "x"


def test_a_source_page_is_drawn_as_an_image_or_says_how_to_restore_it(tmp_path):
    import pymupdf

    from citetutor.errors import NotFound
    pipe = make_pipeline(tmp_path)
    doc = pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", pipe.create_subject("Mechanics"))
    png = pipe.page_image(doc.doc_id, 2)
    image = pymupdf.open(stream=png, filetype="png")
    assert image.page_count == 1 and image[0].rect.height > image[0].rect.width, "a portrait page"
    for original in pipe.settings.files_dir.glob("*.pdf"):
        original.unlink()
    with pytest.raises(NotFound, match="upload it again"):
        pipe.page_image(doc.doc_id, 2)


def _image_only_page(doc, grey) -> None:
    """A page holding nothing but one greyscale image (no text layer)."""
    import pymupdf

    height, width = grey.shape
    pixmap = pymupdf.Pixmap(pymupdf.csGRAY, width, height, grey.astype(np.uint8).tobytes(), 0)
    page = doc.new_page()
    page.insert_image(page.rect, stream=pixmap.tobytes("png"), keep_proportion=False)


def test_a_slide_that_is_only_a_background_image_is_blank_not_a_scan(tmp_path):
    import pymupdf

    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Stratified sampling takes random samples within strata.")
    _image_only_page(doc, np.tile(np.linspace(200, 255, 400), (300, 1)))  # a closing slide's gradient
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("Surveys")
    result = pipe.upload(doc.tobytes(), "deck.pdf", subject)
    assert (result.kind, result.status) == ("text", "ready"), "an empty slide must not hold the deck back"

    ink = np.full((300, 400), 250)
    ink[140:150, 50:350] = 20  # one dark stroke: something to read
    scanned = pymupdf.open()
    _image_only_page(scanned, ink)
    result = pipe.upload(scanned.tobytes(), "scan.pdf", subject)
    assert (result.kind, result.status) == ("scan", "needs_review")
