"""Tracer against a real DuckDB file: spans, threads, errors, and Traces-page queries."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest

from citetutor.store import Store
from citetutor.tracing import (
    REASON_CODES,
    Tracer,
    outcome_counts,
    recent_requests,
    request_spans,
    stage_latency,
)


@pytest.fixture
def store(tmp_path) -> Iterator[Store]:
    """A fresh migrated store on disk."""
    s = Store(tmp_path / "t.duckdb")
    yield s
    s.close()


def test_spans_persist_in_order_with_durations(store):
    tracer = Tracer(store)
    with tracer.request("explain", subject_id=7) as trace:
        with trace.span("retrieval") as span:
            time.sleep(0.002)
        with trace.span("drafting", model="gemma3:4b", attempt=1) as span:
            span.record(prompt_tokens=120, completion_tokens=40, outcome="rejected",
                        reason="unsupported_claim")
        trace.finish("refused", reason="off_question", attempts=2)

    rows = request_spans(store, trace.id)
    assert [r["name"] for r in rows] == ["retrieval", "drafting"]
    assert [r["seq"] for r in rows] == [0, 1]
    assert all(r["duration_ms"] > 0 for r in rows)
    assert rows[0]["duration_ms"] >= 2
    assert rows[1]["started_ms"] >= rows[0]["started_ms"] + rows[0]["duration_ms"]
    assert rows[1]["model"] == "gemma3:4b"
    assert (rows[1]["prompt_tokens"], rows[1]["completion_tokens"]) == (120, 40)
    assert (rows[1]["outcome"], rows[1]["reason"], rows[1]["attempt"]) == (
        "rejected", "unsupported_claim", 1)
    assert rows[0]["outcome"] == "ok"

    [req] = recent_requests(store)
    assert req["id"] == trace.id and len(trace.id) == 32
    assert (req["kind"], req["outcome"], req["reason"], req["attempts"], req["subject_id"]) == (
        "explain", "refused", "off_question", 2, 7)
    assert req["duration_ms"] >= rows[0]["duration_ms"]


def test_in_memory_spans_match_the_panel_shape(store):
    with Tracer(store).request("explain") as trace:
        with trace.span("retrieval"):
            pass
    [span] = trace.spans
    assert set(span) == {"name", "started_ms", "duration_ms", "model", "prompt_tokens",
                         "completion_tokens", "outcome", "reason", "attempt"}
    assert span["name"] == "retrieval" and span["duration_ms"] > 0


def test_concurrent_spans_from_two_threads_are_both_stored(store):
    barrier = threading.Barrier(2)
    with Tracer(store).request("explain") as trace:

        def stage(name: str) -> None:
            with trace.span(name, model="qwen2.5:3b") as span:
                barrier.wait(timeout=5)  # both spans are open at the same moment
                time.sleep(0.002)
                span.record(prompt_tokens=10)

        worker = threading.Thread(target=stage, args=("blind_solve",))
        worker.start()
        stage("drafting")
        worker.join()

    rows = request_spans(store, trace.id)
    assert sorted(r["name"] for r in rows) == ["blind_solve", "drafting"]
    assert sorted(r["seq"] for r in rows) == [0, 1]
    # The two spans overlap in time: each starts before the other ends.
    a, b = rows
    assert a["started_ms"] < b["started_ms"] + b["duration_ms"]
    assert b["started_ms"] < a["started_ms"] + a["duration_ms"]


def test_exception_marks_error_propagates_and_is_stored(store):
    with pytest.raises(RuntimeError, match="boom"):
        with Tracer(store).request("quiz") as trace:
            with trace.span("retrieval"):
                pass
            with trace.span("drafting"):
                raise RuntimeError("boom")

    rows = request_spans(store, trace.id)
    assert [(r["name"], r["outcome"], r["reason"]) for r in rows] == [
        ("retrieval", "ok", None), ("drafting", "error", "error")]
    [req] = recent_requests(store)
    assert (req["outcome"], req["reason"]) == ("error", "error")


def test_unknown_reason_code_raises(store):
    tracer = Tracer(store)
    with pytest.raises(ValueError, match="REASON_CODES"):
        with tracer.request("explain") as trace:
            with trace.span("support_check") as span:
                span.record(reason="the model said the quote was wrong")
    with pytest.raises(ValueError):
        with tracer.request("explain") as trace:
            trace.finish("refused", reason="not_a_code")
    assert "no_evidence" in REASON_CODES and "error" in REASON_CODES


def test_names_must_be_identifiers(store):
    with pytest.raises(ValueError):
        with Tracer(store).request("What is entropy?"):
            pass
    with pytest.raises(ValueError):
        with Tracer(store).request("explain") as trace:
            with trace.span("notes about chapter 3.pdf"):
                pass


def _insert(store, request_id, kind, durations, started_at):
    store.execute("INSERT INTO requests (id, kind, started_at, outcome) VALUES (?, ?, ?, ?)",
                  [request_id, kind, started_at, "ok"])
    for seq, (name, ms) in enumerate(durations):
        store.execute("INSERT INTO spans (request_id, seq, name, started_ms, duration_ms) "
                      "VALUES (?, ?, ?, 0, ?)", [request_id, seq, name, ms])


def test_stage_latency_numbers(store):
    t0 = datetime(2024, 1, 1)
    for i, ms in enumerate([10.0, 20.0, 30.0, 40.0, 100.0]):
        _insert(store, f"e{i}", "explain", [("drafting", ms), ("retrieval", 1.0 + i)], t0)
    _insert(store, "q0", "quiz", [("drafting", 1000.0)], t0)

    by_name = {row["name"]: row for row in stage_latency(store, kind="explain")}
    drafting = by_name["drafting"]
    assert drafting["count"] == 5
    assert drafting["p50_ms"] == pytest.approx(30.0)
    # quantile_cont interpolates: position 0.95 * 4 = 3.8 between 40 and 100.
    assert drafting["p95_ms"] == pytest.approx(40.0 + 0.8 * 60.0)
    assert drafting["mean_ms"] == pytest.approx(40.0)
    assert by_name["retrieval"]["p50_ms"] == pytest.approx(3.0)

    all_kinds = {row["name"]: row for row in stage_latency(store)}
    assert all_kinds["drafting"]["count"] == 6
    assert all_kinds["drafting"]["mean_ms"] == pytest.approx(1200.0 / 6)


def test_recent_requests_newest_first_and_limited(store):
    tracer = Tracer(store)
    ids = []
    for kind in ["explain", "quiz", "ocr"]:
        with tracer.request(kind) as trace:
            pass
        ids.append(trace.id)
        time.sleep(0.002)
    assert [r["id"] for r in recent_requests(store)] == ids[::-1]
    assert [r["id"] for r in recent_requests(store, limit=2)] == ids[:0:-1]


def test_outcome_counts(store):
    t0 = datetime(2024, 1, 1)
    for i, (outcome, reason) in enumerate([("ok", None), ("ok", None), ("refused", "no_evidence")]):
        store.execute("INSERT INTO requests (id, kind, started_at, outcome, reason) "
                      "VALUES (?, 'explain', ?, ?, ?)",
                      [f"r{i}", t0 + timedelta(seconds=i), outcome, reason])
    assert outcome_counts(store) == [
        {"kind": "explain", "outcome": "ok", "reason": None, "count": 2},
        {"kind": "explain", "outcome": "refused", "reason": "no_evidence", "count": 1},
    ]


def test_blank_dsn_keeps_sentry_off(store):
    from citetutor.config import SentrySettings

    assert Tracer(store, SentrySettings(dsn="")).sentry_on is False


def test_every_rejection_a_draft_can_get_has_feedback_for_the_drafter():
    import re
    from pathlib import Path

    from citetutor.prompts import REJECTION_FEEDBACK
    from citetutor.states import Reason
    source = "".join(Path(f"citetutor/{m}.py").read_text() for m in ("tutor", "gate"))
    raised = {Reason[name] for name in re.findall(r"Rejected\(Reason\.(\w+)", source)}
    assert raised - {Reason.DEADLINE} <= set(REJECTION_FEEDBACK), "the deadline alone ends the attempts"
