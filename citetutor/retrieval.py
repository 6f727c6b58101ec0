"""Hybrid retrieval: BM25 (rank-bm25) and cosine over stored vectors, fused by RRF."""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from rank_bm25 import BM25Okapi

from citetutor.errors import EmbeddingMismatch, InputError, ModelOutputError
from citetutor.models.base import Embedder
from citetutor.names import names_in, spelled_out, written_forms
from citetutor.states import DocStatus
from citetutor.store import Snapshot, Store

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
    unused_names: list[str] = field(default_factory=list)  # names the question gives that the notes never use

    @property
    def supported(self) -> bool:
        """The relevance pre-gate: meaning decides, and the notes must use every name the
        question gives; a shared word alone never lets a question in."""
        return bool(self.hits) and self.best_cosine >= self.min_cosine and not self.unused_names


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens without stopwords; NFKC so ligatures and forms match."""
    words = re.findall(r"\w+", unicodedata.normalize("NFKC", text).lower())
    return [w for w in words if w not in STOPWORDS]


def index_terms(text: str) -> str:
    """A chunk's BM25 terms as stored beside it: tokenised once, at ingest."""
    return " ".join(tokenize(text))


class Bm25Index:
    """BM25Okapi (rank-bm25 defines the IDF and parameters) scored from per-term postings.

    rank-bm25's own get_scores walks every document in Python for every query term (1.15 s
    at 100k chunks); scoring only the postings of the query's terms gives the same numbers.
    """

    def __init__(self, vocabulary: list[str], offsets: np.ndarray, rows: np.ndarray,
                 frequencies: np.ndarray, doc_lengths: np.ndarray):
        self.term_ids = {term: i for i, term in enumerate(vocabulary)}
        self.offsets, self.rows, self.frequencies = offsets, rows, frequencies
        self.size = len(doc_lengths)
        okapi = BM25Okapi.__new__(BM25Okapi)  # its __init__ would count the corpus again
        okapi.k1, okapi.b, okapi.epsilon, okapi.corpus_size, okapi.idf = 1.5, 0.75, 0.25, self.size, {}
        if vocabulary:
            okapi._calc_idf(dict(zip(vocabulary, np.diff(offsets).tolist())))
        self.idf, self.k1 = okapi.idf, okapi.k1
        average = float(doc_lengths.mean()) if self.size and doc_lengths.any() else 1.0
        # BM25's length normaliser per document, computed once instead of per query term.
        self.norm = (okapi.k1 * (1 - okapi.b + okapi.b * doc_lengths / average)).astype(np.float32)

    def scores(self, terms: list[str]) -> np.ndarray:
        """BM25Okapi.get_scores(terms), floored at 1e-6 where a term occurs and 0 elsewhere."""
        total = np.zeros(self.size, dtype=np.float32)
        matched = np.zeros(self.size, dtype=bool)
        for term in terms:
            index = self.term_ids.get(term)
            if index is None:
                continue
            start, end = self.offsets[index], self.offsets[index + 1]
            rows, tf = self.rows[start:end], self.frequencies[start:end]
            total[rows] += self.idf[term] * tf * (self.k1 + 1) / (tf + self.norm[rows])
            matched[rows] = True
        # rank-bm25's IDF can vanish or go negative for a term in most chunks; a shared term
        # still makes the chunk a lexical match.
        return np.where(matched, np.maximum(total, 1e-6), 0.0)


@dataclass
class Candidates:
    """A scope's chunk IDs, vectors as one float32 block and BM25 postings, built once."""

    ids: np.ndarray
    vectors: np.ndarray
    bm25: Bm25Index
    titles: dict[str, str] = field(default_factory=dict)  # document ID -> title


class CandidateCache:
    """Keeps the last few scopes' candidates until the library changes."""

    def __init__(self, size: int = 8):
        self.size = size
        self._entries: OrderedDict[tuple, Candidates] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, store: Store, scope: Scope, model: str) -> Candidates:
        """Cached candidates for (scope, model), rebuilt when the library has changed."""
        key = (id(store), store.generation, scope, model)
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key]
        check_embedding_model(store, scope, model)
        built = build_candidates(store, scope, model)
        with self._lock:
            self._entries[key] = built
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return built


SCOPED_CHUNKS = ("FROM chunks c JOIN documents d ON d.id = c.doc_id "
                 "JOIN embeddings e ON e.chunk_id = c.id AND e.model = ? "
                 f"WHERE d.status = '{DocStatus.READY}' AND {{where}}")


def build_candidates(store: Store, scope: Scope, model: str) -> Candidates:
    """Load a scope's vectors as one block and its BM25 postings, counted inside DuckDB."""
    with store.snapshot() as reads:  # an upload committing meanwhile must not split the two
        return _candidates_from(reads, scope, model)


def _candidates_from(store: Snapshot, scope: Scope, model: str) -> Candidates:
    """The candidates as of one snapshot of the store."""
    where, params = _scope_sql(scope)
    scoped = SCOPED_CHUNKS.format(where=where)
    table = store.query_arrow(f"SELECT c.id, e.vector {scoped} ORDER BY c.id", [model, *params])
    if table.num_rows == 0:
        return Candidates(np.array([], dtype=object), np.zeros((0, 1), np.float32),
                          Bm25Index([], np.zeros(1, np.int64), *(np.zeros(0, np.int32),) * 3))
    vectors = table["vector"].combine_chunks().flatten().to_numpy().astype(np.float32, copy=False)
    postings = store.query_arrow(
        "WITH rows AS (SELECT row_number() OVER (ORDER BY c.id) - 1 AS row, c.terms "
        f"{scoped}), tokens AS (SELECT row, unnest(string_split(terms, ' ')) AS term FROM rows), "
        "counts AS (SELECT term, row::INTEGER AS row, count(*)::FLOAT AS tf FROM tokens "
        "WHERE term <> '' GROUP BY term, row) "
        "SELECT term, list(row) AS rows, list(tf) AS tfs "
        "FROM counts GROUP BY term",
        [model, *params])
    rows, tfs = postings["rows"].combine_chunks(), postings["tfs"].combine_chunks()
    flat_rows, flat_tfs = rows.flatten().to_numpy(), tfs.flatten().to_numpy()
    # A chunk's length in terms is the sum of its term frequencies: no second split needed.
    lengths = np.bincount(flat_rows, weights=flat_tfs, minlength=table.num_rows).astype(np.float32)
    where_docs, doc_params = _scope_sql(scope, with_pages=False)
    titles = dict(store.query(f"SELECT d.id, d.title FROM documents d WHERE {where_docs}", doc_params))
    return Candidates(
        np.asarray(table["id"].to_pylist(), dtype=object),
        vectors.reshape(table.num_rows, -1),
        Bm25Index(postings["term"].to_pylist(), rows.offsets.to_numpy(), flat_rows, flat_tfs, lengths),
        titles)


def _scope_sql(scope: Scope, with_pages: bool = True) -> tuple[str, list]:
    """SQL filter and parameters for a scope (the page filter needs the chunks table)."""
    clauses: list[str] = ["d.subject_id = ?"]
    params: list[object] = [scope.subject_id]
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
        f"SELECT d.title, d.embedding_model FROM documents d WHERE {where} AND d.status = '{DocStatus.READY}' "
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
           cache: CandidateCache | None = None, query_vector: np.ndarray | None = None) -> Retrieval:
    """Top-k chunks for `query` by Reciprocal Rank Fusion of BM25 and cosine rankings."""
    if not query.strip():
        raise InputError("Type a question first.")
    candidates = (cache or CandidateCache()).get(store, scope, embedder.name)
    if not len(candidates.ids):
        return Retrieval()
    if query_vector is None:
        query_vector = embedder.embed([query])
        query_vector = np.asarray(query_vector, dtype=np.float32)[0] if len(query_vector) else None
    if (query_vector is None or query_vector.shape != candidates.vectors.shape[1:]
            or not np.isfinite(query_vector).all()):
        raise ModelOutputError(f"{embedder.name} returned no usable vector for the question; check "
                               "that the embedding model is installed and working, then ask again.")
    found = rank(store, candidates, tokenize(query), query_vector, k, rrf_k, min_cosine)
    found.unused_names = unused_names(query, candidates.bm25.term_ids,
                                      lambda pattern: _spelled_in(store, scope, pattern))
    return found


def unused_names(query: str, vocabulary: dict[str, int],
                 spelled: Callable[[str], bool] = lambda pattern: False) -> list[str]:
    """The names a question gives (names.py) that the notes never use in any written form, nor
    spell out (an acronym's words: `spelled` says whether some chunk matches a pattern)."""
    return [name for name in names_in(query)
            if not any(_used(form, vocabulary) for form in written_forms(name))
            and not any(spelled(pattern) for pattern in spelled_out(name))]


def _spelled_in(store: Store, scope: Scope, pattern: str) -> bool:
    """Whether a chunk of the scope matches a regular expression (DuckDB's RE2). Asked only for
    an acronym the index lacks, so the scan is rare."""
    where, params = _scope_sql(scope)
    return bool(store.query(
        "SELECT 1 FROM chunks c JOIN documents d ON d.id = c.doc_id "
        f"WHERE d.status = '{DocStatus.READY}' AND {where} AND regexp_matches(c.text, ?) LIMIT 1",
        [*params, pattern]))


def _used(form: str, vocabulary: dict[str, int]) -> bool:
    """Every word of `form` of two letters or more is among the scope's indexed words; a lone
    symbol ("δ") is used when some indexed word holds it ("δg", "δs")."""
    terms = tokenize(form)
    if len(terms) == 1 and len(terms[0]) == 1 and not terms[0].isascii():
        return any(terms[0] in term for term in vocabulary)
    return all(len(term) == 1 or term in vocabulary for term in terms)


# Each ranking contributes its best FUSION_DEPTH chunks, as RRF over result lists does
# (Elasticsearch's window is 100); a deeper rank would add under 1/(rrf_k + 1000), and
# sorting all 100k chunks twice per query cost 16 ms.
FUSION_DEPTH = 1000


def rank(store: Store, candidates: Candidates, terms: list[str], query_vector: np.ndarray,
         k: int, rrf_k: int, min_cosine: float) -> Retrieval:
    """Fuse the two rankings' top chunks and load only the k winners from the store."""
    semantic = candidates.vectors @ query_vector.astype(np.float32)
    lexical = candidates.bm25.scores(terms)
    rows, fused = fuse([_top(lexical, FUSION_DEPTH, positive=True), _top(semantic, FUSION_DEPTH)], rrf_k)
    # Rows are in chunk-ID order, so the lower row wins a tie as the lower chunk ID would.
    winners = rows[np.lexsort((rows, -fused))[:k]]
    hits = _load_hits(store, [candidates.ids[row] for row in winners], candidates.titles)
    for hit, row in zip(hits, winners):
        hit.bm25, hit.cosine = float(lexical[row]), float(semantic[row])
        hit.rrf = float(fused[np.searchsorted(rows, row)])
    return Retrieval(hits, float(semantic.max()), min_cosine)


def fuse(rankings: list[np.ndarray], rrf_k: int) -> tuple[np.ndarray, np.ndarray]:
    """Reciprocal Rank Fusion: the rows ranked anywhere, each scoring sum(1 / (rrf_k + rank))."""
    ranked = np.concatenate(rankings)
    weights = np.concatenate([1.0 / (rrf_k + np.arange(1, len(r) + 1)) for r in rankings])
    rows, slot = np.unique(ranked, return_inverse=True)
    return rows, np.bincount(slot, weights=weights, minlength=len(rows))


def _top(scores: np.ndarray, depth: int, positive: bool = False) -> np.ndarray:
    """Row numbers of the `depth` highest scores, best first (only positive ones if asked)."""
    rows = np.flatnonzero(scores > 0) if positive else np.arange(len(scores))
    if len(rows) > depth:
        rows = rows[np.argpartition(-scores[rows], depth - 1)[:depth]]
    return rows[np.lexsort((rows, -scores[rows]))]


def _load_hits(store: Store, chunk_ids: list[str], titles: dict[str, str]) -> list[Hit]:
    """The winning chunks' text, page and boxes, in the order given."""
    if not chunk_ids:
        return []
    # No join here: with one, DuckDB scans every chunk instead of using the primary key (8 ms
    # against under 1 ms at 100k chunks).
    rows = store.query(
        "SELECT id, doc_id, page_no, text, bboxes, word_boxes FROM chunks "
        f"WHERE id IN ({', '.join('?' * len(chunk_ids))})", chunk_ids)
    by_id = {cid: Hit(cid, doc, titles.get(doc, doc), page, text, boxes, words)
             for cid, doc, page, text, boxes, words in rows}
    return [by_id[cid] for cid in chunk_ids if cid in by_id]  # a chunk deleted meanwhile drops out
