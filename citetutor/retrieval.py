"""Hybrid retrieval: BM25 (rank-bm25) and cosine over stored vectors, fused by RRF."""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
from rank_bm25 import BM25Okapi

from citetutor.errors import EmbeddingMismatch, InputError
from citetutor.models.base import Embedder
from citetutor.store import Store

STOPWORDS = frozenset(
    "a an and are as at be by do does for from how i in is it its of on or that the this to "
    "was what when where which who why with you your".split()
)


@dataclass(frozen=True)
class Scope:
    """Where to look: one subject, optionally narrowed to documents and a page range."""

    subject_id: int
    doc_ids: tuple[str, ...] = ()
    pages: tuple[int, int] | None = None


@dataclass
class Hit:
    """A retrieved chunk with the scores that ranked it."""

    id: str
    doc_id: str
    title: str
    page_no: int
    text: str
    bboxes: str
    word_boxes: str | None = None
    bm25: float = 0.0
    cosine: float = 0.0
    rrf: float = 0.0


@dataclass
class Retrieval:
    """The ranked hits and whether anything supports the question at all."""

    hits: list[Hit] = field(default_factory=list)
    best_cosine: float = 0.0
    min_cosine: float = 0.0

    @property
    def supported(self) -> bool:
        """The relevance pre-gate: meaning decides; a shared word alone never lets a question in."""
        return bool(self.hits) and self.best_cosine >= self.min_cosine


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens without stopwords; NFKC so ligatures and forms match."""
    words = re.findall(r"\w+", unicodedata.normalize("NFKC", text).lower())
    return [w for w in words if w not in STOPWORDS]


@dataclass
class Candidates:
    """Everything ranking needs about a scope's chunks, built once per store generation."""

    rows: list[tuple]
    vectors: np.ndarray
    tokens: list[list[str]]
    bm25: BM25Okapi | None

    def fresh_hits(self) -> list[Hit]:
        """New Hit objects, since ranking writes scores into them."""
        return [Hit(*row) for row in self.rows]


class CandidateCache:
    """Keeps the last few scopes' candidates until the store commits a change."""

    def __init__(self, size: int = 8):
        self.size = size
        self._entries: OrderedDict[tuple, Candidates] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, store: Store, scope: Scope, model: str) -> Candidates:
        """Cached candidates for (scope, model), rebuilt when the store has changed."""
        key = (id(store), store.generation, scope, model)
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key]
        built = build_candidates(store, scope, model)
        with self._lock:
            self._entries[key] = built
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return built


def build_candidates(store: Store, scope: Scope, model: str) -> Candidates:
    """Load a scope's chunks from ready documents, their vectors for `model`, and a BM25 index."""
    where, params = _scope_sql(scope)
    rows = store.query(
        "SELECT c.id, c.doc_id, d.title, c.page_no, c.text, c.bboxes, c.word_boxes, e.vector "
        "FROM chunks c "
        "JOIN documents d ON d.id = c.doc_id JOIN embeddings e ON e.chunk_id = c.id AND e.model = ? "
        f"WHERE d.status = 'ready' AND {where} ORDER BY c.id",
        [model, *params],
    )
    vectors = np.array([row[7] for row in rows], dtype=np.float32) if rows else np.zeros((0, 1))
    tokens = [tokenize(row[4]) or ["_"] for row in rows]
    return Candidates([row[:7] for row in rows], vectors, tokens, BM25Okapi(tokens) if tokens else None)


def _scope_sql(scope: Scope, with_pages: bool = True) -> tuple[str, list]:
    """SQL filter and parameters for a scope (the page filter needs the chunks table)."""
    clauses, params = ["d.subject_id = ?"], [scope.subject_id]
    if scope.doc_ids:
        clauses.append(f"d.id IN ({', '.join('?' * len(scope.doc_ids))})")
        params.extend(scope.doc_ids)
    if scope.pages and with_pages:
        clauses.append("c.page_no BETWEEN ? AND ?")
        params.extend(scope.pages)
    return " AND ".join(clauses), params


def check_embedding_model(store: Store, scope: Scope, model: str) -> None:
    """Refuse to compare vectors from different models; name the documents to re-embed."""
    where, params = _scope_sql(scope, with_pages=False)
    stale = store.query(
        f"SELECT d.title, d.embedding_model FROM documents d WHERE {where} AND d.status = 'ready' "
        "AND d.embedding_model IS NOT NULL AND d.embedding_model <> ?",
        [*params, model],
    )
    if stale:
        titles = ", ".join(f"'{t}' ({m})" for t, m in stale)
        raise EmbeddingMismatch(
            f"{titles} were embedded with a different model than {model}; "
            "use 'Re-embed' in the Library so their vectors can be compared."
        )


def search(store: Store, embedder: Embedder, query: str, scope: Scope, k: int = 4,
           rrf_k: int = 60, min_cosine: float = 0.25,
           cache: CandidateCache | None = None) -> Retrieval:
    """Top-k chunks for `query` by Reciprocal Rank Fusion of BM25 and cosine ranks."""
    if not query.strip():
        raise InputError("Type a question first.")
    check_embedding_model(store, scope, embedder.name)
    candidates = (cache or CandidateCache()).get(store, scope, embedder.name)
    if not candidates.rows:
        return Retrieval()
    hits = candidates.fresh_hits()
    lexical = _bm25_scores(candidates, query)
    semantic = candidates.vectors @ embedder.embed([query])[0]
    fused = _rrf([lexical, semantic], rrf_k)
    for hit, b, c, f in zip(hits, lexical, semantic, fused):
        hit.bm25, hit.cosine, hit.rrf = float(b), float(c), float(f)
    top = sorted(hits, key=lambda h: (-h.rrf, h.id))[:k]
    return Retrieval(top, float(semantic.max()), min_cosine)


def _bm25_scores(candidates: Candidates, query: str) -> np.ndarray:
    """BM25 score of every candidate for the query's terms."""
    terms = tokenize(query)
    if not terms:
        return np.zeros(len(candidates.rows))
    scores = np.asarray(candidates.bm25.get_scores(terms), dtype=np.float64)
    # BM25Okapi's IDF can go negative for terms in most chunks; any shared term still counts.
    wanted = set(terms)
    matched = np.array([not wanted.isdisjoint(doc) for doc in candidates.tokens])
    return np.where(matched, np.maximum(scores, 1e-6), 0.0)


def _rrf(score_lists: list[np.ndarray], k: int) -> np.ndarray:
    """Reciprocal Rank Fusion: sum of 1/(k + rank) over each ranking."""
    fused = np.zeros(len(score_lists[0]))
    for scores in score_lists:
        ranks = np.empty(len(scores), dtype=np.int64)
        ranks[np.argsort(-scores, kind="stable")] = np.arange(1, len(scores) + 1)
        fused += 1.0 / (k + ranks)
    return fused
