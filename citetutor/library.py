"""Subjects and documents: create, list, rename, delete."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

from citetutor.errors import InputError, NotFound
from citetutor.states import ReviewState
from citetutor.store import Store


def create_subject(store: Store, name: str) -> int:
    """Create a subject (or return the existing one with that name)."""
    name = name.strip()
    if not name:
        raise InputError("Give the subject a name, e.g. 'Physics 8.01'.")
    if len(name) > 80:
        raise InputError("Subject names can be at most 80 characters; shorten it.")
    with store.transaction() as cur:
        row = cur.execute("SELECT id FROM subjects WHERE name = ?", [name]).fetchone()
        if row:
            return row[0]
        created = cur.execute(
            "INSERT INTO subjects (id, name) VALUES (nextval('subjects_seq'), ?) RETURNING id", [name]
        ).fetchone()
        assert created is not None  # RETURNING always yields the new row
        return created[0]


def list_subjects(store: Store) -> list[dict]:
    """All subjects with their document counts, by name."""
    return store.query_dicts(
        "SELECT s.id, s.name, count(d.id) AS documents FROM subjects s "
        "LEFT JOIN documents d ON d.subject_id = s.id GROUP BY s.id, s.name ORDER BY s.name"
    )


def list_documents(store: Store, subject_id: int | None = None) -> list[dict]:
    """Documents (optionally of one subject) with chunk counts, newest first."""
    where, params = ("WHERE d.subject_id = ?", [subject_id]) if subject_id is not None else ("", [])
    return store.query_dicts(
        "SELECT d.*, (SELECT count(*) FROM chunks c WHERE c.doc_id = d.id) AS chunks, "
        f"(SELECT count(*) FROM pages p WHERE p.doc_id = d.id AND p.review_state = '{ReviewState.PENDING}') "
        f"AS pages_to_review FROM documents d {where} ORDER BY d.created_at DESC, d.title",
        params,
    )


def get_document(store: Store, doc_id: str) -> dict:
    """One document row, or NotFound."""
    rows = store.query_dicts("SELECT * FROM documents WHERE id = ?", [doc_id])
    if not rows:
        raise NotFound(f"Document {doc_id} no longer exists; pick another in the Library.")
    return rows[0]


def original_path(files_dir: Path, sha256: str) -> Path:
    """Where the original PDF is kept, by content hash."""
    return files_dir / f"{sha256}.pdf"


def page_image_dir(files_dir: Path, sha256: str) -> Path:
    """Where a document's rendered page images are kept."""
    return files_dir / sha256


# One lock per file content: an upload, a failed upload's clean-up and a delete of the same
# PDF (in any subject) never interleave, so a file is removed only when no committed row owns
# it. Two processes cannot share a library (DuckDB's file lock), so threads are the only race.
_FILE_LOCKS: dict[str, threading.Lock] = {}
_FILE_LOCKS_GUARD = threading.Lock()


def file_lock(sha256: str) -> threading.Lock:
    """The lock for one file content."""
    with _FILE_LOCKS_GUARD:
        return _FILE_LOCKS.setdefault(sha256, threading.Lock())


def drop_files_if_unowned(store: Store, files_dir: Path, sha256: str) -> None:
    """Remove a file content's original and page images unless a committed document uses them."""
    if not store.query("SELECT 1 FROM documents WHERE sha256 = ?", [sha256]):
        original_path(files_dir, sha256).unlink(missing_ok=True)
        shutil.rmtree(page_image_dir(files_dir, sha256), ignore_errors=True)


def sweep_orphan_files(store: Store, files_dir: Path) -> int:
    """At start-up: remove files no document row owns (left by a crash mid-upload); count them."""
    if not files_dir.is_dir():
        return 0
    owned = {row[0] for row in store.query("SELECT DISTINCT sha256 FROM documents")}
    removed = 0
    for entry in files_dir.iterdir():
        if entry.name.removesuffix(".pdf") not in owned:
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink(missing_ok=True)
            removed += 1
    return removed


def delete_document(store: Store, files_dir: Path, doc_id: str) -> None:
    """Delete a document, its pages, chunks and vectors; files go when no document uses them."""
    doc = get_document(store, doc_id)
    with file_lock(doc["sha256"]):
        with store.transaction() as cur:
            cur.execute("DELETE FROM embeddings WHERE chunk_id IN "
                        "(SELECT id FROM chunks WHERE doc_id = ?)", [doc_id])
            for table in ("chunks", "pages", "quiz_items"):
                cur.execute(f"DELETE FROM {table} WHERE doc_id = ?", [doc_id])
            cur.execute("DELETE FROM documents WHERE id = ?", [doc_id])
            cur.execute("DELETE FROM answer_cache")  # cached answers may cite this document
        drop_files_if_unowned(store, files_dir, doc["sha256"])


def delete_subject(store: Store, files_dir: Path, subject_id: int) -> None:
    """Delete a subject and every document in it."""
    for doc in list_documents(store, subject_id):
        delete_document(store, files_dir, doc["id"])
    with store.transaction() as cur:
        cur.execute("DELETE FROM chat_turns WHERE subject_id = ?", [subject_id])
        cur.execute("DELETE FROM subjects WHERE id = ?", [subject_id])
