"""Hybrid retrieval: BM25 (rank-bm25) and cosine over stored vectors, fused by RRF."""

from __future__ import annotations

import re
import unicodedata
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
    bm25: float = 0.0
    cosine: float = 0.0
    rrf: float = 0.0


@dataclass
class Retrieval:
    """The ranked hits and whether anything supports the question at all."""

    hits: list[Hit] = field(default_factory=list)
    lexical_support: bool = False
    semantic_support: bool = False

    @property
    def supported(self) -> bool:
        """The relevance pre-gate: some lexical or semantic support."""
        return bool(self.hits) and (self.lexical_support or self.semantic_support)


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens without stopwords; NFKC so ligatures and forms match."""
    words = re.findall(r"\w+", unicodedata.normalize("NFKC", text).lower())
    return [w for w in words if w not in STOPWORDS]


def load_candidates(store: Store, scope: Scope, model: str) -> tuple[list[Hit], np.ndarray]:
    """Chunks in scope from ready documents, with their vectors for `model`."""
    check_embedding_model(store, scope, model)
    where, params = _scope_sql(scope)
    rows = store.query(
        "SELECT c.id, c.doc_id, d.title, c.page_no, c.text, c.bboxes, e.vector FROM chunks c "
        "JOIN documents d ON d.id = c.doc_id JOIN embeddings e ON e.chunk_id = c.id AND e.model = ? "
        f"WHERE d.status = 'ready' AND {where} ORDER BY c.id",
        [model, *params],
    )
    hits = [Hit(*row[:6]) for row in rows]
    vectors = np.array([row[6] for row in rows], dtype=np.float32) if rows else np.zeros((0, 1))
    return hits, vectors


def _scope_sql(scope: Scope) -> tuple[str, list]:
    """SQL filter and parameters for a scope."""
    clauses, params = ["d.subject_id = ?"], [scope.subject_id]
    if scope.doc_ids:
        clauses.append(f"d.id IN ({', '.join('?' * len(scope.doc_ids))})")
        params.extend(scope.doc_ids)
    if scope.pages:
        clauses.append("c.page_no BETWEEN ? AND ?")
        params.extend(scope.pages)
    return " AND ".join(clauses), params


def check_embedding_model(store: Store, scope: Scope, model: str) -> None:
    """Refuse to compare vectors from different models; name the documents to re-embed."""
    where, params = _scope_sql(scope)
    where = where.replace("c.page_no", "1")  # page filter has no meaning per document
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
           rrf_k: int = 60, min_cosine: float = 0.25) -> Retrieval:
    """Top-k chunks for `query` by Reciprocal Rank Fusion of BM25 and cosine ranks."""
    if not query.strip():
        raise InputError("Type a question first.")
    hits, vectors = load_candidates(store, scope, embedder.name)
    if not hits:
        return Retrieval()
    lexical = _bm25_scores(hits, query)
    semantic = vectors @ embedder.embed([query])[0]
    fused = _rrf([lexical, semantic], rrf_k)
    for hit, b, c, f in zip(hits, lexical, semantic, fused):
        hit.bm25, hit.cosine, hit.rrf = float(b), float(c), float(f)
    top = sorted(hits, key=lambda h: (-h.rrf, h.id))[:k]
    return Retrieval(top, bool(lexical.max() > 0), bool(semantic.max() >= min_cosine))


def _bm25_scores(hits: list[Hit], query: str) -> np.ndarray:
    """BM25 score of every candidate for the query's terms."""
    terms = tokenize(query)
    corpus = [tokenize(h.text) or ["_"] for h in hits]
    if not terms:
        return np.zeros(len(hits))
    scores = np.asarray(BM25Okapi(corpus).get_scores(terms), dtype=np.float64)
    # BM25Okapi's IDF can go negative for terms in most chunks; any shared term still counts.
    matched = np.array([any(t in set(doc) for t in terms) for doc in corpus])
    return np.where(matched, np.maximum(scores, 1e-6), 0.0)


def _rrf(score_lists: list[np.ndarray], k: int) -> np.ndarray:
    """Reciprocal Rank Fusion: sum of 1/(k + rank) over each ranking."""
    fused = np.zeros(len(score_lists[0]))
    for scores in score_lists:
        ranks = np.empty(len(scores), dtype=np.int64)
        ranks[np.argsort(-scores, kind="stable")] = np.arange(1, len(scores) + 1)
        fused += 1.0 / (k + ranks)
    return fused
