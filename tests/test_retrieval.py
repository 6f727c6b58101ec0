"""Hybrid retrieval over real DuckDB: fusion, scope, cache freshness, model identity."""

from pathlib import Path

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from citetutor.errors import EmbeddingMismatch
from citetutor.retrieval import CandidateCache, Scope, fuse, search, tokenize
from tests.corpus import MIT, SLIDES, corpus_file
from tests.fakes import HashEmbedder
from tests.helpers import make_pipeline

FIXTURE = Path(__file__).resolve().parents[1] / "assets" / "mechanics-fixture.pdf"


@pytest.fixture
def pipe(tmp_path):
    pipe = make_pipeline(tmp_path)
    pipe.subject_id = pipe.create_subject("Course")
    pipe.fixture = pipe.upload(FIXTURE.read_bytes(), "fixture.pdf", pipe.subject_id)
    pipe.slides = pipe.upload(corpus_file(*SLIDES).read_bytes(), "arrays.pdf", pipe.subject_id)
    return pipe


def test_rrf_rewards_agreement_between_rankings():
    rows, fused = fuse([np.array([0, 1, 2]), np.array([1, 2, 0])], rrf_k=60)
    assert rows[fused.argmax()] == 1, "second in one ranking and first in the other beats first-and-last"
    rows, fused = fuse([np.array([5]), np.array([], dtype=np.int64)], rrf_k=60)
    assert rows.tolist() == [5] and np.isclose(fused[0], 1 / 61)


QUERIES = ["net force mass acceleration cart", "static array capacity", "circular motion period",
           "what is a dynamic array", "index zero", "the of and"]


def test_bm25_postings_score_what_rank_bm25_scores(pipe):
    candidates = CandidateCache().get(pipe.store, Scope(pipe.subject_id), pipe.models.embedder.name)
    texts = dict(pipe.store.query("SELECT id, text FROM chunks"))
    okapi = BM25Okapi([tokenize(texts[cid]) for cid in candidates.ids])
    for query in QUERIES:
        expected = okapi.get_scores(tokenize(query))
        got = candidates.bm25.scores(tokenize(query))
        matched = np.array([bool(set(tokenize(query)) & set(tokenize(texts[c]))) for c in candidates.ids])
        assert np.allclose(got, np.where(matched, np.maximum(expected, 1e-6), 0), rtol=1e-5, atol=1e-6)


def test_fusing_the_top_of_each_ranking_picks_what_full_rankings_pick(pipe):
    """The old path ranked every chunk in both lists; fusing each list's top 100 agrees."""
    scope = Scope(pipe.subject_id)
    candidates = CandidateCache().get(pipe.store, scope, pipe.models.embedder.name)
    for query in QUERIES[:5]:
        lexical = candidates.bm25.scores(tokenize(query))
        semantic = candidates.vectors @ pipe.models.embedder.embed([query])[0]
        full = np.zeros(len(lexical))
        for scores in (lexical, semantic):
            ranks = np.empty(len(scores), dtype=np.int64)
            ranks[np.argsort(-scores, kind="stable")] = np.arange(1, len(scores) + 1)
            full += 1.0 / (60 + ranks)
        expected = [candidates.ids[i] for i in np.argsort(-full, kind="stable")[:4]]
        found = search(pipe.store, pipe.models.embedder, query, scope, k=4)
        assert [h.id for h in found.hits][:2] == expected[:2], query


def test_question_finds_its_page_and_respects_scope(pipe):
    found = search(pipe.store, pipe.models.embedder, "net force mass acceleration cart", Scope(pipe.subject_id))
    assert found.supported and found.hits[0].page_no == 2 and found.hits[0].doc_id == pipe.fixture.doc_id
    assert len(found.hits) <= 4
    only_slides = search(pipe.store, pipe.models.embedder, "net force mass acceleration cart",
                         Scope(pipe.subject_id, (pipe.slides.doc_id,)))
    assert {h.doc_id for h in only_slides.hits} == {pipe.slides.doc_id}
    pages = search(pipe.store, pipe.models.embedder, "circular motion", Scope(pipe.subject_id, (), (3, 3)))
    assert {h.page_no for h in pages.hits} == {3}


def test_cache_is_reused_until_the_library_changes(pipe):
    cache = CandidateCache()
    scope = Scope(pipe.subject_id)
    first = cache.get(pipe.store, scope, pipe.models.embedder.name)
    assert cache.get(pipe.store, scope, pipe.models.embedder.name) is first
    added = pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", pipe.subject_id)
    found = search(pipe.store, pipe.models.embedder, "centripetal acceleration Kepler orbit", scope, cache=cache)
    assert any(h.doc_id == added.doc_id for h in found.hits), "a new upload is searchable at once"
    pipe.delete_document(added.doc_id)
    found = search(pipe.store, pipe.models.embedder, "centripetal acceleration Kepler orbit", scope, cache=cache)
    assert all(h.doc_id != added.doc_id for h in found.hits), "a deleted document is gone at once"


def test_vectors_of_another_model_are_refused(pipe):
    with pytest.raises(EmbeddingMismatch, match="Re-embed"):
        search(pipe.store, HashEmbedder(name="other:model"), "force", Scope(pipe.subject_id))


def test_traced_requests_and_cached_answers_keep_retrieval_candidates_warm(tmp_path):
    from citetutor.retrieval import Scope
    from tests.corpus import MIT, corpus_file
    from tests.helpers import blind_citing, make_pipeline, quoting_draft

    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("Mechanics")
    doc = pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", subject)
    scope, model = Scope(subject), pipe.models.embedder.name
    warm = pipe.gate.candidates.get(pipe.store, scope, model)
    pipe.models.drafter.enqueue(quoting_draft())
    pipe.models.verifier.enqueue(blind_citing())
    result = pipe.ask("What is the direction of the acceleration for uniform circular motion?", subject)
    assert result.status == "answered" and pipe.recent_requests()  # traced and cached: two writes
    assert pipe.gate.candidates.get(pipe.store, scope, model) is warm, "no rebuild for a trace write"
    pipe.delete_document(doc.doc_id)
    assert pipe.gate.candidates.get(pipe.store, scope, model) is not warm, "a library change rebuilds"


def test_a_library_from_before_stored_terms_is_tokenised_when_it_opens(pipe):
    from citetutor.pipeline import Pipeline
    expected = dict(pipe.store.query("SELECT id, terms FROM chunks"))
    pipe.store.execute("UPDATE chunks SET terms = NULL")  # as migration 3 leaves older chunks
    pipe.store.close()
    reopened = Pipeline(pipe.settings, models=pipe.models)
    assert dict(reopened.store.query("SELECT id, terms FROM chunks")) == expected
    found = search(reopened.store, reopened.models.embedder, "static array capacity", Scope(pipe.subject_id))
    assert found.hits and found.hits[0].bm25 > 0
