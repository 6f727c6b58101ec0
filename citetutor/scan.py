"""Scanned pages: OCR drafts, learner review against the image, then retrieval."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from citetutor.chunking import chunk_page
from citetutor.config import Limits
from citetutor.errors import InputError, NotFound
from citetutor.ingest import embed_texts, insert_chunks
from citetutor.library import get_document
from citetutor.models.base import Embedder, OcrModel
from citetutor.pdf import PageContent
from citetutor.states import DocStatus, PageSource, ReviewState
from citetutor.store import Store

REVIEW_STATES = (ReviewState.APPROVED, ReviewState.BLANK)
SCANNED = f"source IN ('{PageSource.OCR}', '{PageSource.REVIEWED}')"  # pages that came from a scan


def pages_to_review(store: Store, doc_id: str) -> list[dict]:
    """Every scanned page of a document with its draft, image and state."""
    return store.query_dicts(
        "SELECT page_no, text, review_state, image_path, ocr_partial FROM pages "
        f"WHERE doc_id = ? AND {SCANNED} ORDER BY page_no", [doc_id])


def run_ocr(store: Store, ocr: OcrModel, tracer, doc_id: str,
            progress: Callable[[float, str], None] = lambda f, m: None) -> int:
    """Draft a transcription for every pending page that has none yet; returns pages done."""
    todo = [p for p in pages_to_review(store, doc_id) if p["review_state"] == ReviewState.PENDING and not p["text"]]
    doc = get_document(store, doc_id)
    with tracer.request("ocr", doc["subject_id"]) as trace:
        for number, page in enumerate(todo, start=1):
            progress((number - 1) / max(len(todo), 1), f"Reading page {page['page_no']} ({number} of {len(todo)})")
            with trace.span("ocr", model=ocr.name, attempt=number) as span:
                result = ocr.transcribe(Path(page["image_path"]).read_bytes())
                span.record(outcome="partial" if result.partial else "ok")
            store.execute("UPDATE pages SET text = ?, ocr_partial = ? WHERE doc_id = ? AND page_no = ?",
                          [result.text, result.partial, doc_id, page["page_no"]])
        trace.finish("ok", None, len(todo))
    progress(1.0, "OCR drafts ready for review")
    return len(todo)


def review_page(store: Store, embedder: Embedder, limits: Limits, doc_id: str, page_no: int,
                text: str, state: str) -> bool:
    """Save the learner's verdict on one page; returns True once the document is ready."""
    if state not in REVIEW_STATES:
        raise ValueError(f"review state must be one of {REVIEW_STATES}")
    if state == ReviewState.APPROVED and not text.strip():
        raise InputError(f"Page {page_no} is empty: type its text, or mark it blank to skip it.")
    rows = store.query(f"SELECT 1 FROM pages WHERE doc_id = ? AND page_no = ? AND {SCANNED}",
                       [doc_id, page_no])
    if not rows:
        raise NotFound(f"Page {page_no} of this document is not a scanned page to review.")
    store.execute("UPDATE pages SET text = ?, review_state = ?, source = ? WHERE doc_id = ? AND page_no = ?",
                  [text.strip() if state == ReviewState.APPROVED else "", state, PageSource.REVIEWED,
                   doc_id, page_no])
    return _release_if_complete(store, embedder, limits, doc_id)


def _release_if_complete(store: Store, embedder: Embedder, limits: Limits, doc_id: str) -> bool:
    """When no page is pending, chunk and embed the approved pages and open the document."""
    if store.query("SELECT 1 FROM pages WHERE doc_id = ? AND review_state = ?", [doc_id, ReviewState.PENDING]):
        return False
    approved = store.query("SELECT page_no, text FROM pages WHERE doc_id = ? AND review_state = ?",
                           [doc_id, ReviewState.APPROVED])
    chunks = [c for page_no, text in approved
              for c in chunk_page(doc_id, PageContent(page_no, text), limits.chunk_chars, limits.chunk_overlap)]
    vectors = embed_texts(embedder, [c.text for c in chunks])
    with store.transaction() as cur:
        ids = [c.id for c in chunks]
        if ids:  # re-review after reopening: replace the page's old chunks
            cur.execute(f"DELETE FROM embeddings WHERE chunk_id IN ({', '.join('?' * len(ids))})", ids)
            cur.execute(f"DELETE FROM chunks WHERE id IN ({', '.join('?' * len(ids))})", ids)
        insert_chunks(cur, chunks, vectors, embedder.name)
        dim = int(vectors.shape[1]) if chunks else None
        cur.execute("UPDATE documents SET status = ?, embedding_model = ?, "
                    "embedding_dim = coalesce(embedding_dim, ?) WHERE id = ?",
                    [DocStatus.READY, embedder.name, dim, doc_id])
    return True


def reopen_page(store: Store, doc_id: str, page_no: int) -> None:
    """Send a reviewed page back to review; the document leaves retrieval until it is done."""
    with store.transaction() as cur:
        cur.execute("DELETE FROM embeddings WHERE chunk_id IN "
                    "(SELECT id FROM chunks WHERE doc_id = ? AND page_no = ?)", [doc_id, page_no])
        cur.execute("DELETE FROM chunks WHERE doc_id = ? AND page_no = ?", [doc_id, page_no])
        cur.execute(f"UPDATE pages SET review_state = ? WHERE doc_id = ? AND page_no = ? AND {SCANNED}",
                    [ReviewState.PENDING, doc_id, page_no])
        cur.execute("UPDATE documents SET status = ? WHERE id = ?", [DocStatus.NEEDS_REVIEW, doc_id])
