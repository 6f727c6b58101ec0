"""Subjects and documents as a learner manages them: names checked, files kept and removed."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

from citetutor import catalog
from citetutor.errors import InputError, NotFound
from citetutor.store import Store


def create_subject(store: Store, name: str) -> int:
    """Create a subject (or return the existing one with that name)."""
    name = name.strip()
    if not name:
        raise InputError("Give the subject a name, e.g. 'Physics 8.01'.")
    if len(name) > 80:
        raise InputError("Subject names can be at most 80 characters; shorten it.")
    return catalog.subject_id(store, name)


def get_document(store: Store, doc_id: str) -> catalog.DocumentRow:
    """One document row, or NotFound."""
    row = catalog.document(store, doc_id)
    if row is None:
        raise NotFound(f"Document {doc_id} no longer exists; pick another in the Library.")
    return row


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
    if not catalog.file_in_use(store, sha256):
        original_path(files_dir, sha256).unlink(missing_ok=True)
        shutil.rmtree(page_image_dir(files_dir, sha256), ignore_errors=True)


def sweep_orphan_files(store: Store, files_dir: Path) -> int:
    """At start-up: remove files no document row owns (left by a crash mid-upload); count them."""
    if not files_dir.is_dir():
        return 0
    owned = catalog.files_in_use(store)
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
        catalog.delete_document(store, doc_id)
        drop_files_if_unowned(store, files_dir, doc["sha256"])


def delete_subject(store: Store, files_dir: Path, subject_id: int) -> None:
    """Delete a subject and every document in it."""
    for doc in catalog.documents(store, subject_id):
        delete_document(store, files_dir, doc["id"])
    catalog.delete_subject(store, subject_id)
