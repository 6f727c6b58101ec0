"""DuckDB store: numbered migrations, one writer lock, a fresh cursor per call."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import duckdb

from citetutor.errors import LibraryDamaged, LibraryUnavailable

MIGRATIONS: list[str] = [
    # 1: the whole first schema.
    """
    CREATE TABLE subjects (
        id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL,
        created_at TIMESTAMP DEFAULT current_timestamp);
    CREATE SEQUENCE subjects_seq;
    CREATE TABLE documents (
        id TEXT PRIMARY KEY, sha256 TEXT NOT NULL, subject_id INTEGER NOT NULL,
        title TEXT NOT NULL, filename TEXT NOT NULL, kind TEXT NOT NULL,
        status TEXT NOT NULL, page_count INTEGER NOT NULL,
        embedding_model TEXT, embedding_dim INTEGER,
        created_at TIMESTAMP DEFAULT current_timestamp,
        UNIQUE (subject_id, sha256));
    CREATE TABLE pages (
        doc_id TEXT NOT NULL, page_no INTEGER NOT NULL, text TEXT NOT NULL,
        source TEXT NOT NULL, review_state TEXT NOT NULL, image_path TEXT,
        ocr_partial BOOLEAN DEFAULT false, width DOUBLE, height DOUBLE,
        PRIMARY KEY (doc_id, page_no));
    CREATE TABLE chunks (
        id TEXT PRIMARY KEY, doc_id TEXT NOT NULL, page_no INTEGER NOT NULL,
        ord INTEGER NOT NULL, text TEXT NOT NULL, char_start INTEGER NOT NULL,
        char_end INTEGER NOT NULL, bboxes TEXT NOT NULL);
    CREATE TABLE embeddings (
        chunk_id TEXT NOT NULL, model TEXT NOT NULL, vector FLOAT[] NOT NULL,
        PRIMARY KEY (chunk_id, model));
    CREATE TABLE requests (
        id TEXT PRIMARY KEY, kind TEXT NOT NULL, started_at TIMESTAMP NOT NULL,
        duration_ms DOUBLE, outcome TEXT, reason TEXT, attempts INTEGER,
        subject_id INTEGER);
    CREATE TABLE spans (
        request_id TEXT NOT NULL, seq INTEGER NOT NULL, name TEXT NOT NULL,
        started_ms DOUBLE NOT NULL, duration_ms DOUBLE NOT NULL, model TEXT,
        prompt_tokens INTEGER, completion_tokens INTEGER, outcome TEXT, reason TEXT,
        attempt INTEGER, PRIMARY KEY (request_id, seq));
    CREATE TABLE quiz_items (
        id TEXT PRIMARY KEY, request_id TEXT NOT NULL, doc_id TEXT NOT NULL,
        item_json TEXT NOT NULL, created_at TIMESTAMP DEFAULT current_timestamp);
    CREATE TABLE answer_cache (
        key TEXT PRIMARY KEY, answer_json TEXT NOT NULL,
        created_at TIMESTAMP DEFAULT current_timestamp);
    """,
    # 2: word boxes per chunk, so a cited sentence (not the whole chunk) is highlighted.
    "ALTER TABLE chunks ADD COLUMN word_boxes TEXT;",
    # 3: each chunk's BM25 terms, tokenised once at ingest, so DuckDB counts the postings.
    "ALTER TABLE chunks ADD COLUMN terms TEXT;",
    # 4: the tutor conversation per subject, so it survives reloads.
    """
    CREATE TABLE chat_turns (
        id INTEGER PRIMARY KEY, subject_id INTEGER NOT NULL, question TEXT NOT NULL,
        searched TEXT NOT NULL, mode TEXT NOT NULL, answer_json TEXT NOT NULL,
        asked_at TIMESTAMP DEFAULT current_timestamp);
    CREATE SEQUENCE chat_turns_seq;
    """,
    # 5: the review deck: each kept quiz item's FSRS card, so due questions come back.
    """
    CREATE TABLE review_cards (
        item_id TEXT PRIMARY KEY, subject_id INTEGER NOT NULL, doc_id TEXT NOT NULL,
        card_json TEXT NOT NULL, due TIMESTAMPTZ NOT NULL, reviews INTEGER NOT NULL DEFAULT 0,
        last_right BOOLEAN);
    """,
    # 6: each request's first words, so a Traces row says which question it was (local only).
    "ALTER TABLE requests ADD COLUMN label TEXT;",
    # 7: each OCR line's confidence, so Scan Review marks the lines to check against the image.
    "ALTER TABLE pages ADD COLUMN ocr_lines TEXT;",
]


def damaged(path: Path) -> LibraryDamaged:
    """The error for a library file that cannot be read (the facade adds its newest snapshot)."""
    return LibraryDamaged(f"{path} is damaged and cannot be read. Rename it (for example to "
                          f"{path.name}.bad) to start a fresh library, or set CITETUTOR_DATA_DIR to "
                          "another folder.", path)


def _connect(path: Path, in_memory: bool, memory_limit: str) -> duckdb.DuckDBPyConnection:
    """Open the DuckDB file, turning each way it can fail into what to do about it."""
    where = "set CITETUTOR_DATA_DIR to another folder"
    try:
        if not in_memory:
            path.parent.mkdir(parents=True, exist_ok=True)
        connection = duckdb.connect(":memory:" if in_memory else str(path),
                                    config={"memory_limit": memory_limit})
        connection.execute("SELECT count(*) FROM duckdb_tables()").fetchone()
    except (FileExistsError, NotADirectoryError) as exc:
        raise LibraryUnavailable(f"The data folder {path.parent} is a file, not a folder: move "
                                 f"that file away or {where}.") from exc
    except PermissionError as exc:
        raise LibraryUnavailable(f"No permission to write in {path.parent}: fix its permissions "
                                 f"or {where}.") from exc
    except duckdb.Error as exc:
        text = str(exc)
        if "Could not set lock" in text or "Conflicting lock" in text:  # not "block"
            raise LibraryUnavailable(
                "CiteTutor is already open in another window or process, which holds the library "
                f"{path}. Close that one first (or {where}).") from exc
        if "not a valid" in text or "Could not read" in text or "corrupt" in text.lower():
            raise damaged(path) from exc
        raise LibraryUnavailable(f"Cannot open the library {path} ({text.splitlines()[0]}); "
                                 f"check the folder, or {where}.") from exc
    return connection


def _arrow(cur: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None):
    """One read as a pyarrow Table."""
    relation = cur.sql(sql, params=params or None)
    # DuckDB 1.4 renamed arrow() to to_arrow_table(); a relation converts without a copy.
    return relation.to_arrow_table() if hasattr(relation, "to_arrow_table") else relation.arrow()


class Snapshot:
    """Reads inside one transaction (see Store.snapshot)."""

    def __init__(self, cur: duckdb.DuckDBPyConnection):
        self._cur = cur

    def query(self, sql: str, params: list[Any] | None = None) -> list[tuple]:
        """All rows of one read."""
        return self._cur.execute(sql, params or []).fetchall()

    def query_arrow(self, sql: str, params: list[Any] | None = None):
        """One read as a pyarrow Table."""
        return _arrow(self._cur, sql, params)


class Store:
    """Owns one DuckDB connection; every call takes its own cursor."""

    def __init__(self, path: Path | str, memory_limit: str = "384MB"):
        self.path = Path(path)
        # DuckDB would take up to 80% of RAM for its buffers; on a laptop beside two models a
        # cap keeps the app small, and larger work (a 100k-chunk postings count) spills to disk.
        self._conn = _connect(self.path, str(path) == ":memory:", memory_limit)
        # DuckDB allows one writer; serialise writes across Streamlit threads.
        self._write_lock = threading.RLock()
        # Bumped on every commit that changes the library, so readers can tell whether the
        # candidates they cached are current; trace and answer-cache writes leave it alone.
        self.generation = 0
        try:
            self.migrate()
            self.verify()
        except duckdb.Error as exc:  # a truncated file can open and then fail on a read
            self._conn.close()
            raise damaged(self.path) from exc

    def verify(self) -> None:
        """Read every row of every table once: a damaged file fails here, at open, rather than
        on whichever page first reads the damaged block (a truncated file opens fine)."""
        cur = self._conn.cursor()
        try:
            for (table,) in cur.execute("SELECT table_name FROM duckdb_tables() "
                                        "WHERE database_name = current_database()").fetchall():
                cur.execute(f'SELECT count(*), min(hash(t)) FROM "{table}" t').fetchall()
        finally:
            cur.close()

    def copy_to(self, target: Path) -> None:
        """Write a consistent copy of the whole library to a new DuckDB file at `target`."""
        with self._write_lock:
            cur = self._conn.cursor()
            try:
                source = cur.execute("SELECT current_database()").fetchone()[0]  # type: ignore[index]
                cur.execute(f"ATTACH '{target}' AS library_copy")
                try:
                    cur.execute(f'COPY FROM DATABASE "{source}" TO library_copy')
                finally:
                    cur.execute("DETACH library_copy")
            finally:
                cur.close()

    def migrate(self) -> int:
        """Apply pending numbered migrations; return the schema version."""
        with self.transaction() as cur:
            cur.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER)")
            row = cur.execute("SELECT max(version) FROM schema_version").fetchone()
            current = (row[0] if row else 0) or 0
            for number, sql in enumerate(MIGRATIONS[current:], start=current + 1):
                cur.execute(sql)
                cur.execute("INSERT INTO schema_version VALUES (?)", [number])
        return len(MIGRATIONS)

    @contextmanager
    def transaction(self, library: bool = True) -> Iterator[duckdb.DuckDBPyConnection]:
        """One atomic write: everything inside commits together or not at all.

        `library=False` marks a write that leaves subjects, documents, pages, chunks and
        vectors alone (traces, cached answers, quiz items): it keeps retrieval caches warm.
        """
        with self._write_lock:
            cur = self._conn.cursor()
            cur.execute("BEGIN TRANSACTION")
            try:
                yield cur
            except BaseException:
                cur.execute("ROLLBACK")
                raise
            else:
                cur.execute("COMMIT")
                if library:
                    self.generation += 1
            finally:
                cur.close()

    def query(self, sql: str, params: list[Any] | None = None) -> list[tuple]:
        """Run a read and return all rows."""
        cur = self._conn.cursor()
        try:
            return cur.execute(sql, params or []).fetchall()
        finally:
            cur.close()

    def query_arrow(self, sql: str, params: list[Any] | None = None):
        """Run a read and return a pyarrow Table: columns come back as blocks, not Python rows."""
        cur = self._conn.cursor()
        try:
            return _arrow(cur, sql, params)
        finally:
            cur.close()

    @contextmanager
    def snapshot(self) -> Iterator["Snapshot"]:
        """Several reads that see one committed state, whatever commits meanwhile."""
        cur = self._conn.cursor()
        cur.execute("BEGIN TRANSACTION")
        try:
            yield Snapshot(cur)
        finally:
            cur.execute("ROLLBACK")  # read-only: nothing to keep
            cur.close()

    def query_dicts(self, sql: str, params: list[Any] | None = None) -> list[dict]:
        """Run a read and return rows as dicts keyed by column name."""
        cur = self._conn.cursor()
        try:
            cur.execute(sql, params or [])
            names = [d[0] for d in cur.description]
            return [dict(zip(names, row)) for row in cur.fetchall()]
        finally:
            cur.close()

    def execute(self, sql: str, params: list[Any] | None = None, library: bool = True) -> None:
        """Run one write in its own transaction (see `transaction` for `library`)."""
        with self.transaction(library) as cur:
            cur.execute(sql, params or [])

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()
