"""Scanned pages: OCR drafts, learner review against the image, then retrieval."""

from __future__ import annotations

from pathlib import Path

from citetutor import catalog, index
from citetutor.chunking import chunk_page
from citetutor.config import Limits
from citetutor.errors import InputError, NotFound
from citetutor.index import Progress
from citetutor.library import get_document
from citetutor.models.base import Embedder, OcrModel
from citetutor.pdf import PageContent
from citetutor.states import ReviewState
from citetutor.store import Store

REVIEW_STATES = (ReviewState.APPROVED, ReviewState.BLANK)


def run_ocr(store: Store, ocr: OcrModel, tracer, doc_id: str,
            progress: Progress = lambda f, m: None) -> int:
    """Draft a transcription for every pending page that has none yet; returns pages done."""
    todo = [p for p in catalog.scan_pages(store, doc_id) if p["review_state"] == ReviewState.PENDING and not p["text"]]
    doc = get_document(store, doc_id)
    with tracer.request("ocr", doc["subject_id"], doc["title"]) as trace:
        for number, page in enumerate(todo, start=1):
            progress((number - 1) / max(len(todo), 1), f"Reading page {page['page_no']} ({number} of {len(todo)})")
            with trace.span("ocr", model=ocr.name, attempt=number) as span:
                result = ocr.transcribe(Path(page["image_path"]).read_bytes())
                span.record(outcome="partial" if result.partial else "ok")
            catalog.save_ocr_draft(store, doc_id, page["page_no"], result.text, result.partial, result.lines)
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
    if not catalog.is_scanned_page(store, doc_id, page_no):
        raise NotFound(f"Page {page_no} of this document is not a scanned page to review.")
    catalog.save_review(store, doc_id, page_no, text.strip() if state == ReviewState.APPROVED else "", state)
    return _release_if_complete(store, embedder, limits, doc_id)


def _release_if_complete(store: Store, embedder: Embedder, limits: Limits, doc_id: str) -> bool:
    """When no page is pending, chunk and embed the approved pages and open the document."""
    if catalog.pages_pending(store, doc_id):
        return False
    chunks = [c for page_no, text in catalog.approved_pages(store, doc_id)
              for c in chunk_page(doc_id, PageContent(page_no, text), limits.chunk_chars, limits.chunk_overlap)]
    index.release_scan(store, embedder, doc_id, chunks)
    return True
