"""Retrieval at scale: 1k/10k/100k-chunk libraries built from real course text, timed side by side.

Each size is measured in its own fresh process, so "cold" means a store just opened and
RSS is that process's peak. Query embedding is excluded: vectors are computed once up front.
"""

from __future__ import annotations

import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from citetutor.retrieval import SCOPED_CHUNKS, CandidateCache, Hit, Scope, _scope_sql, index_terms, search, tokenize
from citetutor.states import DocStatus
from citetutor.store import Store

CHUNKS_PER_DOCUMENT = 1000
DEFAULT_QUERIES = [
    "What is centripetal acceleration?", "How is the period related to the frequency?",
    "What is a static array?", "How much larger is the new array when it is full?",
    "What happens when you access an index past the end of an array?",
    "Why does an object moving in a circle at constant speed accelerate?",
    "What is the time complexity of appending to a dynamic array?", "angular velocity units",
]


@dataclass(frozen=True)
class Seed:
    """Real chunks (text and boxes) and their real vectors, to be repeated and varied."""

    texts: list[str]
    bboxes: list[str]
    vectors: np.ndarray
    model: str


def seed_from(store: Store, model: str) -> Seed:
    """Every ingested chunk of `store` with its vector for `model`."""
    rows = store.query("SELECT c.text, c.bboxes, e.vector FROM chunks c JOIN embeddings e "
                       "ON e.chunk_id = c.id AND e.model = ? ORDER BY c.id", [model])
    return Seed([r[0] for r in rows], [r[1] for r in rows],
                np.array([r[2] for r in rows], dtype=np.float32), model)


def build_library(path: Path, seed: Seed, size: int, rng: np.random.Generator) -> int:
    """A library of `size` chunks: seed texts mixed pairwise, seed vectors with noise."""
    store = Store(path)
    with store.transaction() as cur:
        row = cur.execute("INSERT INTO subjects (id, name) VALUES (nextval('subjects_seq'), "
                          "'bench') RETURNING id").fetchone()
        assert row is not None  # RETURNING always yields the new row
        subject = row[0]
        n_seed, dim = seed.vectors.shape
        for first in range(0, size, CHUNKS_PER_DOCUMENT):
            rows = range(first, min(size, first + CHUNKS_PER_DOCUMENT))
            doc_id = f"bench-{first // CHUNKS_PER_DOCUMENT:05d}"
            cur.execute("INSERT INTO documents (id, sha256, subject_id, title, filename, kind, status, "
                        "page_count, embedding_model, embedding_dim) VALUES (?, ?, ?, ?, ?, 'pdf', ?, ?, ?, ?)",
                        [doc_id, doc_id, subject, doc_id, doc_id + ".pdf", DocStatus.READY,
                         len(rows) // 3 + 1, seed.model, dim])
            # Half of one seed chunk and half of another, so term statistics vary like real notes.
            texts = [seed.texts[i % n_seed][: len(seed.texts[i % n_seed]) // 2 + 1] + " "
                     + seed.texts[(i * 7 + 3) % n_seed][len(seed.texts[(i * 7 + 3) % n_seed]) // 2:]
                     for i in rows]
            noisy = seed.vectors[[i % n_seed for i in rows]] + rng.normal(0, 0.02, (len(rows), dim))
            noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
            ids = [f"{doc_id}:{i:06d}" for i in rows]
            chunks = pa.table({
                "id": ids, "doc_id": [doc_id] * len(rows), "page_no": [i % 300 // 3 + 1 for i in rows],
                "ord": [i % 3 for i in rows], "text": texts, "char_start": [0] * len(rows),
                "char_end": [len(t) for t in texts], "bboxes": [seed.bboxes[i % n_seed] for i in rows],
                "word_boxes": [None] * len(rows), "terms": [index_terms(t) for t in texts]})
            vectors = pa.table({"chunk_id": ids, "model": [seed.model] * len(rows),
                                "vector": list(noisy.astype(np.float32))})
            for table_name, data in (("chunks", chunks), ("embeddings", vectors)):
                cur.register("new_rows", data)
                cur.execute(f"INSERT INTO {table_name} SELECT * FROM new_rows")
                cur.unregister("new_rows")
    store.close()
    return subject


def measure(path: Path, subject: int, model: str, queries: list[tuple[str, np.ndarray]],
            repeats: int, previous: bool) -> dict:
    """Cold first query, warm p50/p95 and peak RSS, in this (fresh) process."""
    run = previous_search if previous else search
    started = time.perf_counter()
    store = Store(path)
    cache: Any = {} if previous else CandidateCache()
    scope = Scope(subject)
    text, vector = queries[0]
    run(store, _Named(model), text, scope, cache=cache, query_vector=vector)
    cold = time.perf_counter() - started
    warm = []
    for _ in range(repeats):
        for text, vector in queries:
            t0 = time.perf_counter()
            run(store, _Named(model), text, scope, cache=cache, query_vector=vector)
            warm.append((time.perf_counter() - t0) * 1000)
    warm.sort()
    return {"cold_s": cold, "p50_ms": statistics.median(warm),
            "p95_ms": warm[min(len(warm) - 1, int(0.95 * len(warm)))],
            "rss_mb": peak_rss_mb()}


def peak_rss_mb() -> float:
    """This process's peak resident memory (VmHWM: unlike ru_maxrss, not inherited over exec)."""
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024


class _Named:
    """The embedder as retrieval sees it when the query vector is given: just its name."""

    def __init__(self, name: str):
        self.name = name

    def embed(self, texts):
        raise AssertionError("the benchmark passes query vectors in")


def measure_in_fresh_process(*args) -> dict:
    """`measure` in a new interpreter, so cold is cold and RSS is this measurement's own."""
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        return pool.submit(measure, *args).result()


# --- the implementation this replaced, kept only to be measured beside it ----------------


def previous_search(store: Store, embedder, query: str, scope: Scope, k: int = 4, rrf_k: int = 60, *,
                    cache: dict, query_vector: np.ndarray):
    """Before: every row as Python objects, rank-bm25 over every chunk, full sorts per query."""
    from rank_bm25 import BM25Okapi
    key = (store.generation, scope)
    if key not in cache:
        where, params = _scope_sql(scope)
        rows = store.query("SELECT c.id, c.doc_id, d.title, c.page_no, c.text, c.bboxes, c.word_boxes, "
                           f"e.vector {SCOPED_CHUNKS.format(where=where)} ORDER BY c.id",
                           [embedder.name, *params])
        tokens = [tokenize(r[4]) or ["_"] for r in rows]
        cache.clear()
        cache[key] = ([r[:7] for r in rows], np.array([r[7] for r in rows], np.float32), tokens,
                      BM25Okapi(tokens))
    rows, vectors, tokens, bm25 = cache[key]
    hits = [Hit(*row) for row in rows]
    terms = tokenize(query)
    lexical = np.asarray(bm25.get_scores(terms))
    matched = np.array([not set(terms).isdisjoint(doc) for doc in tokens])
    lexical = np.where(matched, np.maximum(lexical, 1e-6), 0.0)
    semantic = vectors @ query_vector
    fused = np.zeros(len(rows))
    for scores in (lexical, semantic):
        ranks = np.empty(len(scores), dtype=np.int64)
        ranks[np.argsort(-scores, kind="stable")] = np.arange(1, len(scores) + 1)
        fused += 1.0 / (rrf_k + ranks)
    for hit, f in zip(hits, fused):
        hit.rrf = float(f)
    return sorted(hits, key=lambda h: (-h.rrf, h.id))[:k]


def run(seed: Seed, queries: list[tuple[str, np.ndarray]], sizes: list[int], workdir: Path,
        previous_up_to: int, repeats: int = 5, on_row=print) -> list[dict]:
    """Build each size, measure the current and (up to `previous_up_to`) the previous path."""
    results = []
    rng = np.random.default_rng(0)
    for size in sizes:
        path = workdir / f"bench-{size}.duckdb"
        subject = build_library(path, seed, size, rng)
        variants = ["current"] + (["previous"] if size <= previous_up_to else [])
        for variant in variants:
            row = {"chunks": size, "variant": variant,
                   **measure_in_fresh_process(path, subject, seed.model, queries, repeats,
                                              variant == "previous")}
            on_row(row)
            results.append(row)
    return results


def table(rows: list[dict]) -> str:
    """The benchmark as a Markdown table."""
    lines = ["| chunks | implementation | warm p50 | warm p95 | cold first query | peak RSS |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {r['chunks']:,} | {r['variant']} | {r['p50_ms']:.1f} ms | {r['p95_ms']:.1f} ms "
              f"| {r['cold_s']:.2f} s | {r['rss_mb']:.0f} MB |" for r in rows]
    return "\n".join(lines)
