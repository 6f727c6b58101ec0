"""DuckDB store: numbered migrations, one writer lock, a fresh cursor per call."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import duckdb

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
]


class Store:
    """Owns one DuckDB connection; every call takes its own cursor."""

    def __init__(self, path: Path | str, memory_limit: str = "384MB"):
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        # DuckDB would take up to 80% of RAM for its buffers; on a laptop beside two models a
        # cap keeps the app small, and larger work (a 100k-chunk postings count) spills to disk.
        self._conn = duckdb.connect(str(path), config={"memory_limit": memory_limit})
        # DuckDB allows one writer; serialise writes across Streamlit threads.
        self._write_lock = threading.RLock()
        # Bumped on every commit that changes the library, so readers can tell whether the
        # candidates they cached are current; trace and answer-cache writes leave it alone.
        self.generation = 0
        self.migrate()

    def migrate(self) -> int:
        """Apply pending numbered migrations; return the schema version."""
        with self.transaction() as cur:
            cur.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER)")
            row = cur.execute("SELECT max(version) FROM schema_version").fetchone()
            current = row[0] or 0
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
            relation = cur.sql(sql, params=params or None)
            # DuckDB 1.4 renamed arrow() to to_arrow_table(); a relation converts without a copy.
            return relation.to_arrow_table() if hasattr(relation, "to_arrow_table") else relation.arrow()
        finally:
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
