"""The library's tables of subjects, documents and pages. Chunks, their search terms and
vectors belong to index.py, so this table layer depends on no search code.

Rows come back typed. The exceptions are retrieval.py's reads on the search path (the vector
block and BM25 postings of a scope, the embedding-model check, the winning chunks by key),
shaped by DuckDB's query plans and timed by the bench, and benchmark.py's synthetic libraries,
which live in their own files.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TypedDict, cast

from citetutor.states import DocStatus, PageSource, ReviewState
from citetutor.store import Store

# Pages that came from a scan: only these are reviewed.
SCANNED = f"source IN ('{PageSource.OCR}', '{PageSource.REVIEWED}')"


class SubjectRow(TypedDict):
    """A subject and how many documents it holds."""

    id: int
    name: str
    documents: int


class NewDocument(TypedDict):
    """A document row as ingest writes it."""

    id: str
    sha256: str
    subject_id: int
    title: str
    filename: str
    kind: str  # "text" or "scan"
    status: str  # a DocStatus
    page_count: int
    embedding_model: str
    embedding_dim: int | None


class DocumentRow(NewDocument):
    """One stored document."""

    created_at: datetime


class DocumentListing(DocumentRow):
    """A document as the Library lists it, with its counts."""

    chunks: int
    pages_to_review: int


class ScanPage(TypedDict):
    """A scanned page as Scan Review shows it."""

    page_no: int
    text: str
    review_state: str  # a ReviewState
    image_path: str
    ocr_partial: bool
    unsure: list[str]  # OCR lines read with low confidence, to check against the image


class NewPage(TypedDict):
    """A page to store with its document."""

    page_no: int
    text: str
    source: str  # a PageSource
    review_state: str
    image_path: str | None
    width: float
    height: float


# An OCR line below this confidence (0-1) is marked for the learner to check against the image.
LOW_CONFIDENCE = 0.6


# --- subjects ---------------------------------------------------------------------------


def subject_id(store: Store, name: str) -> int:
    """The subject with this name, created if there is none."""
    with store.transaction() as cur:
        row = cur.execute("SELECT id FROM subjects WHERE name = ?", [name]).fetchone()
        if row:
            return row[0]
        created = cur.execute(
            "INSERT INTO subjects (id, name) VALUES (nextval('subjects_seq'), ?) RETURNING id", [name]
        ).fetchone()
        assert created is not None  # RETURNING always yields the new row
        return created[0]


def subjects(store: Store) -> list[SubjectRow]:
    """All subjects with their document counts, by name."""
    return cast(list[SubjectRow], store.query_dicts(
        "SELECT s.id, s.name, count(d.id) AS documents FROM subjects s "
        "LEFT JOIN documents d ON d.subject_id = s.id GROUP BY s.id, s.name ORDER BY s.name"))


def delete_subject(store: Store, subject: int) -> None:
    """Remove a subject row and its chat (its documents go first, one by one)."""
    with store.transaction() as cur:
        cur.execute("DELETE FROM chat_turns WHERE subject_id = ?", [subject])
        cur.execute("DELETE FROM subjects WHERE id = ?", [subject])


# --- documents --------------------------------------------------------------------------


def documents(store: Store, subject: int | None = None) -> list[DocumentListing]:
    """Documents (optionally of one subject) with chunk counts, newest first."""
    where, params = ("WHERE d.subject_id = ?", [subject]) if subject is not None else ("", [])
    return cast(list[DocumentListing], store.query_dicts(
        "SELECT d.*, (SELECT count(*) FROM chunks c WHERE c.doc_id = d.id) AS chunks, "
        f"(SELECT count(*) FROM pages p WHERE p.doc_id = d.id AND p.review_state = '{ReviewState.PENDING}') "
        f"AS pages_to_review FROM documents d {where} ORDER BY d.created_at DESC, d.title",
        params))


def document(store: Store, doc_id: str) -> DocumentRow | None:
    """One document row, or None."""
    rows = store.query_dicts("SELECT * FROM documents WHERE id = ?", [doc_id])
    return cast(DocumentRow, rows[0]) if rows else None


def chunk_count(store: Store, doc_id: str) -> int:
    """How many chunks a document has."""
    return store.query("SELECT count(*) FROM chunks WHERE doc_id = ?", [doc_id])[0][0]


def file_in_use(store: Store, sha256: str) -> bool:
    """Whether any committed document is this file content."""
    return bool(store.query("SELECT 1 FROM documents WHERE sha256 = ?", [sha256]))


def files_in_use(store: Store) -> set[str]:
    """The file contents (SHA-256) that committed documents use."""
    return {row[0] for row in store.query("SELECT DISTINCT sha256 FROM documents")}


def write_document(cur, row: NewDocument, pages: list[NewPage]) -> None:
    """Write a document row and its pages inside the caller's transaction (index.py's)."""
    cur.execute(
        "INSERT INTO documents (id, sha256, subject_id, title, filename, kind, status, "
        "page_count, embedding_model, embedding_dim) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [row["id"], row["sha256"], row["subject_id"], row["title"], row["filename"], row["kind"],
         row["status"], row["page_count"], row["embedding_model"], row["embedding_dim"]])
    cur.executemany(
        "INSERT INTO pages (doc_id, page_no, text, source, review_state, image_path, width, "
        "height) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [[row["id"], p["page_no"], p["text"], p["source"], p["review_state"], p["image_path"],
          p["width"], p["height"]] for p in pages])


def delete_document(store: Store, doc_id: str) -> None:
    """Remove a document with its pages, chunks, vectors and quiz items, in one transaction."""
    with store.transaction() as cur:
        cur.execute("DELETE FROM embeddings WHERE chunk_id IN "
                    "(SELECT id FROM chunks WHERE doc_id = ?)", [doc_id])
        for table in ("chunks", "pages", "quiz_items", "review_cards"):
            cur.execute(f"DELETE FROM {table} WHERE doc_id = ?", [doc_id])
        cur.execute("DELETE FROM documents WHERE id = ?", [doc_id])
        cur.execute("DELETE FROM answer_cache")  # cached answers may cite this document


# --- scanned pages ----------------------------------------------------------------------


def scan_pages(store: Store, doc_id: str) -> list[ScanPage]:
    """Every scanned page of a document with its draft, image, state and unsure lines."""
    rows = store.query_dicts(
        "SELECT page_no, text, review_state, image_path, ocr_partial, ocr_lines FROM pages "
        f"WHERE doc_id = ? AND {SCANNED} ORDER BY page_no", [doc_id])
    for row in rows:
        lines = json.loads(row.pop("ocr_lines") or "[]")
        row["unsure"] = [text for text, confidence in lines if confidence < LOW_CONFIDENCE and text.strip()]
    return cast(list[ScanPage], rows)


def save_ocr_draft(store: Store, doc_id: str, page_no: int, text: str, partial: bool,
                   lines: list[tuple[str, float]] | None = None) -> None:
    """Store a page's OCR draft and, if the engine gave them, its lines' confidences."""
    store.execute("UPDATE pages SET text = ?, ocr_partial = ?, ocr_lines = ? WHERE doc_id = ? AND page_no = ?",
                  [text, partial, json.dumps(lines) if lines is not None else None, doc_id, page_no])


def is_scanned_page(store: Store, doc_id: str, page_no: int) -> bool:
    """Whether this page of the document came from a scan."""
    return bool(store.query(f"SELECT 1 FROM pages WHERE doc_id = ? AND page_no = ? AND {SCANNED}",
                            [doc_id, page_no]))


def save_review(store: Store, doc_id: str, page_no: int, text: str, state: str) -> None:
    """Store the learner's verdict and text for one scanned page."""
    store.execute("UPDATE pages SET text = ?, review_state = ?, source = ? WHERE doc_id = ? AND page_no = ?",
                  [text, state, PageSource.REVIEWED, doc_id, page_no])


def pages_pending(store: Store, doc_id: str) -> bool:
    """Whether any page of the document still waits for review."""
    return bool(store.query("SELECT 1 FROM pages WHERE doc_id = ? AND review_state = ?",
                            [doc_id, ReviewState.PENDING]))


def approved_pages(store: Store, doc_id: str) -> list[tuple[int, str]]:
    """(page number, text) of the pages the learner approved."""
    return [(page_no, text) for page_no, text in store.query(
        "SELECT page_no, text FROM pages WHERE doc_id = ? AND review_state = ?",
        [doc_id, ReviewState.APPROVED])]




def reopen_page(store: Store, doc_id: str, page_no: int) -> None:
    """Send a reviewed page back to review: its chunks leave, and so does the document."""
    with store.transaction() as cur:
        cur.execute("DELETE FROM embeddings WHERE chunk_id IN "
                    "(SELECT id FROM chunks WHERE doc_id = ? AND page_no = ?)", [doc_id, page_no])
        cur.execute("DELETE FROM chunks WHERE doc_id = ? AND page_no = ?", [doc_id, page_no])
        cur.execute(f"UPDATE pages SET review_state = ? WHERE doc_id = ? AND page_no = ? AND {SCANNED}",
                    [ReviewState.PENDING, doc_id, page_no])
        cur.execute("UPDATE documents SET status = ? WHERE id = ?", [DocStatus.NEEDS_REVIEW, doc_id])
