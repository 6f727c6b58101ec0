"""The library's index: chunks, their search terms and their vectors, owned in one place.

Ingest, scan release and re-embed all write through `index_document`, `release_scan` and
`reembed`, and every path embeds through `embed`, which validates the vectors (count, one size,
finite, non-zero) and their size against what the library already holds under the model's
name: vectors of two sizes under one name would break every later question in the subject.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from citetutor.chunking import Chunk
from citetutor.errors import EmbeddingMismatch, ModelOutputError
from citetutor.models.base import Embedder
from citetutor.retrieval import Hit, index_terms
from citetutor.states import DocStatus
from citetutor.store import Store

Progress = Callable[[float, str], object]  # (fraction done, message); any return is ignored
EMBED_BATCH = 8  # progress moves every 8 passages (about a second offline)


def _quiet(_: float, __: str) -> None:
    """Default progress sink."""


def embed(store: Store, embedder: Embedder, texts: list[str], progress: Progress = _quiet,
          replacing: str | None = None) -> np.ndarray:
    """Vectors for `texts`, checked before any is kept: one per text, of one size, finite, and
    of the size the library holds for this model (other than document `replacing`'s own)."""
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    batches = []
    for start in range(0, len(texts), EMBED_BATCH):
        progress(0.4 + 0.55 * start / len(texts), f"Embedding passage {start + 1} of {len(texts)}")
        batch = texts[start:start + EMBED_BATCH]
        batches.append(checked_vectors(embedder, embedder.embed(batch), len(batch)))
    if len({b.shape[1] for b in batches}) > 1:
        raise ModelOutputError(f"{embedder.name} returned vectors of different sizes within one "
                               "document; check the embedding model, then upload again.")
    vectors = np.vstack(batches)
    _check_size(store, embedder.name, int(vectors.shape[1]), replacing)
    return vectors


def checked_vectors(embedder: Embedder, vectors, count: int) -> np.ndarray:
    """`count` finite, non-zero vectors of one size, or a ModelOutputError naming the model."""
    try:
        vectors = np.asarray(vectors, dtype=np.float32)
    except (TypeError, ValueError):
        vectors = np.zeros((0, 0), dtype=np.float32)
    fix = "check that the embedding model is installed and working, then try again."
    if vectors.ndim != 2 or vectors.shape[0] != count or vectors.shape[1] == 0:
        raise ModelOutputError(f"{embedder.name} returned {vectors.shape[0] if vectors.ndim else 0} "
                               f"usable vectors for {count} passages; {fix}")
    if not np.isfinite(vectors).all() or not np.linalg.norm(vectors, axis=1).all():
        raise ModelOutputError(f"{embedder.name} returned empty or non-numeric (NaN) vectors; {fix}")
    return vectors


def vector_size(store: Store, model: str, other_than: str | None = None) -> int | None:
    """The vector size the library holds for `model` (leaving out one document), if any."""
    known = store.query("SELECT DISTINCT embedding_dim FROM documents WHERE embedding_model = ? "
                        "AND embedding_dim IS NOT NULL AND id IS DISTINCT FROM ?", [model, other_than])
    return known[0][0] if known else None


def _check_size(store: Store, model: str, dim: int, replacing: str | None) -> None:
    """Vectors of one model name must have one size, or no question could compare them."""
    known = vector_size(store, model, replacing)
    if known is not None and known != dim:
        raise EmbeddingMismatch(
            f"{model} now returns {dim}-number vectors, but your library holds {known}-number "
            "ones under the same name (the model behind the name changed). Use 'Re-embed' in the "
            "Library, or restore the previous model.")


def insert_chunks(cur, chunks: list[Chunk], vectors: np.ndarray, model: str) -> None:
    """Insert chunks, their BM25 terms and their vectors inside the caller's transaction."""
    if not chunks:
        return
    cur.executemany(
        "INSERT INTO chunks (id, doc_id, page_no, ord, text, char_start, char_end, bboxes, "
        "word_boxes, terms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [[c.id, c.doc_id, c.page_no, c.ord, c.text, c.start, c.end, c.bboxes, c.word_boxes,
          index_terms(c.text)] for c in chunks])
    _insert_vectors(cur, [c.id for c in chunks], vectors, model)


def _insert_vectors(cur, chunk_ids: list[str], vectors: np.ndarray, model: str) -> None:
    """One vector per chunk, tagged with the model that made it."""
    cur.executemany("INSERT INTO embeddings VALUES (?, ?, ?)",
                    [[cid, model, v.tolist()] for cid, v in zip(chunk_ids, vectors)])


def index_document(store: Store, write_document: Callable[[object], None], chunks: list[Chunk],
                   vectors: np.ndarray, model: str) -> None:
    """Write a new document (its rows, by `write_document(cursor)`) and its chunks and vectors
    in one transaction; `vectors` come from `embed`."""
    with store.transaction() as cur:
        write_document(cur)
        insert_chunks(cur, chunks, vectors, model)


def reembed(store: Store, embedder: Embedder, doc_id: str, progress: Progress = _quiet) -> int:
    """Replace a document's vectors with `embedder`'s, atomically; returns chunks embedded."""
    rows = store.query("SELECT id, text FROM chunks WHERE doc_id = ? ORDER BY id", [doc_id])
    vectors = embed(store, embedder, [text for _, text in rows], progress, replacing=doc_id)
    with store.transaction() as cur:
        cur.execute("DELETE FROM embeddings WHERE chunk_id IN (SELECT id FROM chunks WHERE doc_id = ?)",
                    [doc_id])
        _insert_vectors(cur, [cid for cid, _ in rows], vectors, embedder.name)
        cur.execute("UPDATE documents SET embedding_model = ?, embedding_dim = ? WHERE id = ?",
                    [embedder.name, int(vectors.shape[1]) if rows else None, doc_id])
    return len(rows)


def release_scan(store: Store, embedder: Embedder, doc_id: str, chunks: list[Chunk]) -> None:
    """Index a fully reviewed scan's chunks (replacing any of the same IDs) and open it."""
    # Not `replacing`: the document's text pages keep their vectors beside these.
    vectors = embed(store, embedder, [c.text for c in chunks])
    with store.transaction() as cur:
        ids = [c.id for c in chunks]
        if ids:  # re-review after reopening: replace the page's old chunks
            marks = ", ".join("?" * len(ids))
            cur.execute(f"DELETE FROM embeddings WHERE chunk_id IN ({marks})", ids)
            cur.execute(f"DELETE FROM chunks WHERE id IN ({marks})", ids)
        insert_chunks(cur, chunks, vectors, embedder.name)
        cur.execute("UPDATE documents SET status = ?, embedding_model = ?, embedding_dim = ? WHERE id = ?",
                    [DocStatus.READY, embedder.name, int(vectors.shape[1]) if chunks else None, doc_id])


def page_range_chunks(store: Store, doc_id: str, first: int, last: int) -> list[Hit]:
    """A ready document's chunks on pages first..last, in reading order."""
    rows = store.query(
        "SELECT c.id, c.doc_id, d.title, c.page_no, c.text, c.bboxes, c.word_boxes FROM chunks c "
        f"JOIN documents d ON d.id = c.doc_id WHERE c.doc_id = ? AND d.status = '{DocStatus.READY}' "
        "AND c.page_no BETWEEN ? AND ? ORDER BY c.page_no, c.ord", [doc_id, first, last])
    return [Hit(*row) for row in rows]


def backfill_terms(store: Store) -> None:
    """Tokenise chunks stored before terms were kept beside them (once, when a library opens)."""
    missing = store.query("SELECT id, text FROM chunks WHERE terms IS NULL")
    if missing:
        with store.transaction(library=False) as cur:
            cur.executemany("UPDATE chunks SET terms = ? WHERE id = ?",
                            [[index_terms(text), cid] for cid, text in missing])
