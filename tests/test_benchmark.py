"""The retrieval benchmark builds real libraries and measures both implementations alike."""

import numpy as np

from citetutor.devtools import benchmark
from citetutor.retrieval import CandidateCache, Scope, search
from citetutor.store import Store
from tests.corpus import MIT, SLIDES, corpus_file
from tests.helpers import make_pipeline


def test_bench_library_is_searchable_and_both_implementations_agree(tmp_path):
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("seed")
    for pdf in (MIT, SLIDES):
        pipe.upload(corpus_file(*pdf).read_bytes(), pdf[-1], subject)
    seed = benchmark.seed_from(pipe.store, pipe.models.embedder.name)
    path = tmp_path / "bench.duckdb"
    subject = benchmark.build_library(path, seed, 1_500, np.random.default_rng(0))
    store = Store(path)
    assert store.query("SELECT count(*) FROM chunks")[0][0] == 1_500
    assert store.query("SELECT count(DISTINCT doc_id) FROM chunks")[0][0] == 2
    for question in ["static array capacity", "dynamic array append", "centripetal acceleration"]:
        vector = pipe.models.embedder.embed([question])[0]
        current = search(store, pipe.models.embedder, question, Scope(subject), cache=CandidateCache(),
                         query_vector=vector)
        previous = benchmark.previous_search(store, pipe.models.embedder, question, Scope(subject),
                                             cache={}, query_vector=vector)
        assert current.hits[0].id == previous[0].id
    store.close()


def test_bench_rows_report_every_figure_for_both_implementations(tmp_path):
    pipe = make_pipeline(tmp_path)
    pipe.upload(corpus_file(*SLIDES).read_bytes(), "arrays.pdf", pipe.create_subject("seed"))
    seed = benchmark.seed_from(pipe.store, pipe.models.embedder.name)
    queries = [(q, pipe.models.embedder.embed([q])[0]) for q in ["static array", "append"]]
    rows = benchmark.run(seed, queries, [500], tmp_path, previous_up_to=500, repeats=1, on_row=lambda r: None)
    assert [r["variant"] for r in rows] == ["current", "previous"]
    for row in rows:
        assert row["p50_ms"] > 0 and row["p95_ms"] >= row["p50_ms"] and row["cold_s"] > 0 and row["rss_mb"] > 50
    assert "| 500 | current |" in benchmark.table(rows)
