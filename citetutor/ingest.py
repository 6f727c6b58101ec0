"""PDF -> pages -> chunks -> embeddings, stored in one transaction per document."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from citetutor import catalog, index
from citetutor.chunking import Chunk, chunk_page
from citetutor.config import Limits
from citetutor.errors import InputError, PdfError
from citetutor.library import drop_files_if_unowned, file_lock, original_path, page_image_dir
from citetutor.margins import without_running_lines
from citetutor.models.base import Embedder
from citetutor.pdf import PageContent, open_pdf, page_count, read_page, render_png
from citetutor.states import DocStatus, PageSource, ReviewState
from citetutor.store import Store

Progress = index.Progress


@dataclass(frozen=True)
class IngestResult:
    """What happened to one upload."""

    doc_id: str
    title: str
    kind: str  # text | scan
    status: DocStatus
    pages: int
    chunks: int
    duplicate: bool = False
    ocr_problem: str = ""  # why a scan has no OCR drafts yet (the upload itself is kept)


def _quiet(_: float, __: str) -> None:
    """Default progress sink."""


def document_id(subject_id: int, sha256: str) -> str:
    """Deterministic document ID: the same file in the same subject always gets the same ID."""
    return hashlib.sha256(f"{subject_id}:{sha256}".encode()).hexdigest()[:8]


def ingest_pdf(store: Store, embedder: Embedder, files_dir: Path, data: bytes, filename: str,
               subject_id: int, limits: Limits, password: str | None = None,
               progress: Progress = _quiet) -> IngestResult:
    """Ingest one PDF; on any error nothing is stored and no file is left behind."""
    filename = readable_filename(filename)
    _check_size(data, filename, limits)
    sha = hashlib.sha256(data).hexdigest()
    doc_id = document_id(subject_id, sha)
    with file_lock(sha):  # the same PDF uploaded twice at once: the second finds the first
        existing = catalog.document(store, doc_id)
        if existing:
            return _duplicate(store, existing)
        pages = _read_pages(data, filename, password, limits, progress)
        try:
            kind = "scan" if any(p.is_scanned for p in pages) else "text"
            images = _keep_files(data, filename, password, pages, files_dir, sha, limits)
            chunks = [c for p in without_running_lines(pages) if not p.is_scanned
                      for c in chunk_page(doc_id, p, limits.chunk_chars, limits.chunk_overlap)]
            vectors = index.embed(store, embedder, [c.text for c in chunks], progress)
            status = DocStatus.NEEDS_REVIEW if kind == "scan" else DocStatus.READY
            _store_document(store, doc_id, sha, subject_id, filename, kind, status, pages, images,
                            chunks, vectors, embedder)
        except BaseException:  # Streamlit's Stop and Rerun too: they can fire inside progress
            drop_files_if_unowned(store, files_dir, sha)
            raise
    progress(1.0, "Done")
    return IngestResult(doc_id, _title(filename), kind, status, len(pages), len(chunks))


def readable_filename(name: str) -> str:
    """A name that can be stored and shown: stray bytes read as Latin-1, no folders or controls."""
    raw = name.encode("utf-8", "surrogateescape")  # a Latin-1 name arrives as surrogates
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    text = "".join(ch for ch in text.replace("\\", "/") if ch.isprintable())
    return Path(text).name.strip() or "upload.pdf"


def _check_size(data: bytes, filename: str, limits: Limits) -> None:
    """Refuse empty or oversized uploads before parsing."""
    if not data:
        raise InputError(f"'{filename}' is empty (0 bytes); pick the real file and upload again.")
    if len(data) > limits.max_upload_mb * 1024 * 1024:
        raise InputError(f"'{filename}' is larger than {limits.max_upload_mb} MB; split it into chapters.")


def _duplicate(store: Store, row: catalog.DocumentRow) -> IngestResult:
    """The same file is already in this subject: report it instead of storing it twice."""
    return IngestResult(row["id"], row["title"], row["kind"], DocStatus(row["status"]), row["page_count"],
                        catalog.chunk_count(store, row["id"]), duplicate=True)


def _read_pages(data: bytes, filename: str, password: str | None, limits: Limits,
                progress: Progress) -> list[PageContent]:
    """Every page's text layer, or an error that names the problem."""
    doc = open_pdf(data, filename, password)
    try:
        count = page_count(doc, filename)
        if count > limits.max_pages:
            raise InputError(f"'{filename}' has {count} pages (limit {limits.max_pages}); split it.")
        pages = []
        for index in range(count):
            progress(0.4 * index / count, f"Reading page {index + 1} of {count}")
            pages.append(read_page(doc, index, filename))
    finally:
        doc.close()
    if all(p.is_blank for p in pages):
        raise PdfError(f"'{filename}' has no text and no scanned pages, so there is nothing to study.")
    return pages


def _keep_files(data: bytes, filename: str, password: str | None, pages: list[PageContent],
                files_dir: Path, sha: str, limits: Limits) -> dict[int, str]:
    """Keep the original PDF and render the scanned pages' images for OCR and review."""
    files_dir.mkdir(parents=True, exist_ok=True)
    original = original_path(files_dir, sha)
    if not original.exists():
        partial = original.with_suffix(".part")
        partial.write_bytes(data)
        partial.replace(original)  # whole or absent
    scanned = [p.page_no for p in pages if p.is_scanned]
    if not scanned:
        return {}
    image_dir = page_image_dir(files_dir, sha)
    image_dir.mkdir(parents=True, exist_ok=True)
    doc = open_pdf(data, filename, password)
    try:
        images = {}
        for page_no in scanned:
            path = image_dir / f"p{page_no}.png"
            path.write_bytes(render_png(doc, page_no, limits.ocr_dpi))
            images[page_no] = str(path)
        return images
    finally:
        doc.close()


def _store_document(store: Store, doc_id: str, sha: str, subject_id: int, filename: str,
                    kind: str, status: str, pages: list[PageContent], images: dict[int, str],
                    chunks: list[Chunk], vectors: np.ndarray, embedder: Embedder) -> None:
    """Write the document, its pages, chunks and vectors atomically."""
    dim = int(vectors.shape[1]) if len(chunks) else None
    row = catalog.NewDocument(id=doc_id, sha256=sha, subject_id=subject_id, title=_title(filename),
                              filename=filename, kind=kind, status=status, page_count=len(pages),
                              embedding_model=embedder.name, embedding_dim=dim)
    rows = [catalog.NewPage(page_no=p.page_no, text=p.text, review_state=_review_state(p),
                            source=PageSource.OCR if p.is_scanned else PageSource.TEXT,
                            image_path=images.get(p.page_no), width=p.width, height=p.height)
            for p in pages]
    index.index_document(store, lambda cur: catalog.write_document(cur, row, rows), chunks, vectors,
                         embedder.name)


def _review_state(page: PageContent) -> str:
    """Scanned pages wait for review; text and blank pages need none."""
    if page.is_scanned:
        return ReviewState.PENDING
    return ReviewState.BLANK if page.is_blank else ReviewState.NONE


def _title(filename: str) -> str:
    """A readable title from the file name."""
    stem = Path(filename).stem.replace("_", " ").replace("-", " ").strip()
    return stem or "Untitled"
