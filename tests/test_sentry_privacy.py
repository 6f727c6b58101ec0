"""No content reaches a Sentry envelope: only allowlisted metadata leaves the machine."""

from __future__ import annotations

import gzip
import json
import logging
import subprocess
import sys
import threading
import uuid

import pytest
import sentry_sdk
from sentry_sdk.envelope import Envelope, Item, PayloadRef

from citetutor.config import SentrySettings
from citetutor.sentry_export import FilteringTransport, init_sentry, scrub_event
from citetutor.store import Store
from citetutor.tracing import Tracer

# Canaries look like real content (prose, a filename with spaces), because that is what
# a careless developer would leak; any "CANARY" byte in an envelope fails the test.
QUESTION = "CANARY-QUESTION-4b1e What is the entropy of a fair coin?"
DOCTEXT = "CANARY-DOCTEXT-9a7c The entropy H(X) = -sum p(x) log p(x) is maximal when..."
FILENAME = "CANARY-FILENAME-77d2 lecture notes (week 3).pdf"
ANSWER = "CANARY-ANSWER-c3f0 One bit, as stated on page 4."
CANARIES = [QUESTION, DOCTEXT, FILENAME, ANSWER]
FAKE_DSN = "http://public@127.0.0.1:9/1"  # port 9 (discard); nothing is ever sent there


def assert_no_canary(blob: bytes) -> None:
    """Fail if any canary, or any part of one, is in the bytes."""
    assert b"canary" not in blob.lower(), blob.decode("utf-8", "replace")
    for canary in CANARIES:
        for word in canary.split():
            if len(word) > 6:
                assert word.encode() not in blob, word


class CapturingTransport(FilteringTransport):
    """FilteringTransport whose network send appends the serialized body to a list."""

    sent: list[bytes] = []

    def _send_request(self, body, headers, endpoint_type, envelope=None):
        # This is the exact body that would go over the wire, after both filters.
        if headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        CapturingTransport.sent.append(body)


@pytest.fixture
def sentry_capture():
    """Sentry initialised through init_sentry with a capturing, network-free transport."""
    CapturingTransport.sent = []
    assert init_sentry(SentrySettings(dsn=FAKE_DSN), transport_cls=CapturingTransport)
    with sentry_sdk.isolation_scope():  # tags/user set by a test do not leak to others
        yield CapturingTransport.sent
    sentry_sdk.get_client().close(timeout=2)
    sentry_sdk.get_global_scope().set_client(None)


def envelopes(sent: list[bytes]) -> list[Envelope]:
    """Parse captured bodies back into envelopes."""
    return [Envelope.deserialize(body) for body in sent]


def be_careless() -> None:
    """Put content everywhere the Sentry API invites it."""
    sentry_sdk.set_tag("question", QUESTION)
    sentry_sdk.set_tag("filename", FILENAME)
    sentry_sdk.set_extra("answer", ANSWER)
    sentry_sdk.set_user({"id": QUESTION, "email": "x@example.com", "username": FILENAME})
    sentry_sdk.add_breadcrumb(message=DOCTEXT, category="ui", data={"q": QUESTION})
    sentry_sdk.set_context("document", {"filename": FILENAME, "text": DOCTEXT})
    logging.getLogger("citetutor").warning("answering %s from %s", QUESTION, FILENAME)


def leak_through_locals() -> None:
    """Raise with content both in the message and in local variables."""
    question, document_text = QUESTION, DOCTEXT  # noqa: F841 - the point is the locals
    raise KeyError(f"no chunk for {question} in {FILENAME}")


def run_traced_requests(store: Store) -> Tracer:
    """One answered request (with a concurrent blind solve) and one that fails."""
    tracer = Tracer(store, SentrySettings(dsn=FAKE_DSN))
    assert tracer.sentry_on
    with tracer.request("explain", subject_id=1) as trace:
        current = sentry_sdk.get_current_span()
        assert current is not None
        current.set_data("question", QUESTION)
        current.set_tag("filename", FILENAME)
        with trace.span("retrieval") as span:
            span.record(outcome="ok")
        blind = threading.Thread(target=blind_solve, args=(trace,))
        blind.start()
        with trace.span("drafting", model="gemma3:4b", attempt=1) as span:
            span.record(prompt_tokens=123, completion_tokens=45, outcome="ok")
        blind.join()
        try:
            leak_through_locals()
        except KeyError as exc:
            logging.getLogger("citetutor").exception("lookup failed: %s", exc)
            sentry_sdk.capture_exception(exc)
        sentry_sdk.capture_message(ANSWER)
        trace.finish("answered", attempts=1)
    with pytest.raises(ValueError):
        with tracer.request("quiz") as trace:
            with trace.span("support_check", model="qwen2.5:3b"):
                question = QUESTION
                raise ValueError(f"could not verify {question!r} against {DOCTEXT!r}")
    return tracer


def blind_solve(trace) -> None:
    """The verifier's stage, recorded from another thread."""
    with trace.span("blind_solve", model="qwen2.5:3b") as span:
        span.record(prompt_tokens=77, completion_tokens=5, reason="blind_disagrees")


def test_no_canary_reaches_any_envelope(sentry_capture, tmp_path):
    store = Store(tmp_path / "t.duckdb")
    be_careless()
    run_traced_requests(store)
    sentry_sdk.flush(timeout=5)

    assert len(sentry_capture) >= 3  # two transactions and the errors: the test can fail
    for body in sentry_capture:
        assert_no_canary(body)

    items = [item for env in envelopes(sentry_capture) for item in env.items]
    transactions = [i.payload.json for i in items if i.type == "transaction"]
    errors = [i.payload.json for i in items if i.type == "event"]
    assert {t["transaction"] for t in transactions} == {"explain", "quiz"}
    explain = next(t for t in transactions if t["transaction"] == "explain")
    assert explain["contexts"]["trace"]["op"] == "citetutor.request"
    assert explain["tags"] == {"kind": "explain", "outcome": "answered", "attempts": "1"}
    spans = {s["description"]: s for s in explain["spans"]}
    assert set(spans) == {"retrieval", "drafting", "blind_solve"}
    assert spans["drafting"]["op"] == "citetutor.stage"
    assert spans["drafting"]["data"]["model"] == "gemma3:4b"
    assert spans["drafting"]["data"]["prompt_tokens"] == 123
    assert spans["blind_solve"]["data"]["reason"] == "blind_disagrees"
    assert spans["drafting"]["data"]["duration_ms"] > 0
    exception_types = {v["type"] for e in errors for v in e.get("exception", {}).get("values", [])}
    assert exception_types == {"KeyError", "ValueError"}
    assert all(set(v) == {"type"} for e in errors for v in e.get("exception", {}).get("values", []))
    store.close()


def canary_event() -> dict:
    """An event as a careless SDK setup would produce it, with content in every field."""
    return {
        "event_id": "a" * 32, "timestamp": "2024-05-01T10:00:00.123456Z",
        "start_timestamp": 1714557600.0, "type": "transaction", "platform": "python",
        "level": "error", "environment": "local", "release": QUESTION,
        "transaction": QUESTION, "transaction_info": {"source": FILENAME},
        "server_name": FILENAME, "logger": QUESTION, "culprit": DOCTEXT,
        "message": ANSWER, "logentry": {"message": "%s", "params": [ANSWER]},
        "fingerprint": [QUESTION], "modules": {FILENAME: "1.0"},
        "sdk": {"name": QUESTION}, "user": {"id": QUESTION, "ip_address": "1.2.3.4"},
        "request": {"url": FILENAME, "data": DOCTEXT}, "extra": {"answer": ANSWER},
        "breadcrumbs": {"values": [{"message": DOCTEXT, "data": {"q": QUESTION}}]},
        "tags": {"kind": "explain", "question": QUESTION, "model": QUESTION,
                 "reason": ANSWER, "outcome": "ok", "attempts": FILENAME},
        "contexts": {
            "trace": {"trace_id": "b" * 32, "span_id": "c" * 16, "op": "citetutor.request",
                      "status": "ok", "description": QUESTION, "data": {"q": QUESTION},
                      "parent_span_id": DOCTEXT,
                      "dynamic_sampling_context": {"trace_id": "b" * 32,
                                                   "transaction": QUESTION,
                                                   "sample_rate": "1.0", "user": ANSWER}},
            "document": {"filename": FILENAME}, "os": {"name": DOCTEXT},
        },
        "exception": {"values": [
            {"type": "ValueError", "value": QUESTION, "module": FILENAME,
             "mechanism": {"type": "generic", "description": ANSWER},
             "stacktrace": {"frames": [{"filename": FILENAME, "function": "draft",
                                        "context_line": DOCTEXT,
                                        "vars": {"question": QUESTION}}]}},
            {"type": QUESTION, "value": ANSWER},
        ]},
        "threads": {"values": [{"stacktrace": {"frames": [{"vars": {"a": ANSWER}}]}}]},
        "spans": [
            {"span_id": "d" * 16, "trace_id": "b" * 32, "parent_span_id": "c" * 16,
             "op": "citetutor.stage", "description": "drafting", "status": "ok",
             "start_timestamp": "2024-05-01T10:00:00Z", "timestamp": "2024-05-01T10:00:01Z",
             "origin": FILENAME, "tags": {"question": QUESTION},
             "data": {"model": "gemma3:4b", "prompt_tokens": 12, "completion_tokens": 3,
                      "outcome": "ok", "reason": "uncovered_claim", "attempt": 1,
                      "duration_ms": 5.5, "question": QUESTION, "thread.name": FILENAME}},
            {"span_id": "e" * 16, "op": QUESTION, "description": ANSWER,
             "data": {"model": DOCTEXT, "prompt_tokens": QUESTION, "reason": ANSWER,
                      "outcome": FILENAME, "attempt": True, "duration_ms": ANSWER}},
        ],
        "measurements": {QUESTION: {"value": 1}},
    }


def test_allowlist_keeps_only_metadata():
    raw = canary_event()
    assert b"CANARY" in json.dumps(raw).encode()  # the input really is full of content
    clean = scrub_event(raw)
    assert_no_canary(json.dumps(clean).encode())
    assert clean == {
        "event_id": "a" * 32, "timestamp": "2024-05-01T10:00:00.123456Z",
        "start_timestamp": 1714557600.0, "type": "transaction", "platform": "python",
        "level": "error", "environment": "local",
        "tags": {"kind": "explain", "outcome": "ok"},
        "contexts": {"trace": {"trace_id": "b" * 32, "span_id": "c" * 16,
                               "op": "citetutor.request", "status": "ok",
                               "dynamic_sampling_context": {"trace_id": "b" * 32,
                                                            "sample_rate": "1.0"}}},
        "exception": {"values": [{"type": "ValueError"}]},
        "spans": [
            {"span_id": "d" * 16, "trace_id": "b" * 32, "parent_span_id": "c" * 16,
             "op": "citetutor.stage", "description": "drafting", "status": "ok",
             "start_timestamp": "2024-05-01T10:00:00Z", "timestamp": "2024-05-01T10:00:01Z",
             "data": {"model": "gemma3:4b", "prompt_tokens": 12, "completion_tokens": 3,
                      "outcome": "ok", "reason": "uncovered_claim", "attempt": 1,
                      "duration_ms": 5.5}},
            {"span_id": "e" * 16},
        ],
    }


def test_allowlist_survives_malformed_input():
    assert scrub_event(None) == {}
    assert scrub_event({"contexts": QUESTION, "spans": QUESTION, "exception": [QUESTION],
                        "tags": [("question", QUESTION)]}) == {}


def test_transport_alone_strips_content(sentry_capture):
    """Bypass the before_send hooks: hand the transport raw, content-laden envelopes."""
    transport = sentry_sdk.get_client().transport
    assert isinstance(transport, FilteringTransport)
    headers = {"event_id": "a" * 32, "sent_at": "2024-05-01T10:00:00Z", "user": QUESTION,
               "trace": {"trace_id": "b" * 32, "transaction": QUESTION, "sampled": "true"}}
    raw_event = dict(canary_event(), type="event", spans=[])
    first = Envelope(headers=headers, items=[
        # An event item carried as bytes (payload.json is None) must be parsed and scrubbed.
        Item(payload=json.dumps(raw_event).encode(), type="event"),
        Item(payload=DOCTEXT.encode(), type="attachment", filename=FILENAME),
        Item(payload=PayloadRef(json={"items": [{"body": ANSWER}]}), type="log"),
        Item(payload=b"not json " + QUESTION.encode(), type="event"),
    ])
    second = Envelope(headers=headers, items=[
        Item(payload=PayloadRef(json=canary_event()), type="transaction"),
        Item(payload=PayloadRef(json={"items": [{"name": QUESTION}]}), type="span"),
        Item(payload=PayloadRef(json={"did": QUESTION}), type="session"),
        Item(payload=PayloadRef(json={"discarded_events": [{"reason": ANSWER}]}),
             type="client_report"),
    ])
    only_junk = Envelope(headers=headers, items=[
        Item(payload=DOCTEXT.encode(), type="attachment", filename=FILENAME)])
    for envelope in (first, second, only_junk):
        assert b"CANARY" in envelope.serialize()
        transport.capture_envelope(envelope)
    sentry_sdk.flush(timeout=5)

    assert len(sentry_capture) == 2  # the attachment-only envelope is dropped entirely
    for body in sentry_capture:
        assert_no_canary(body)
    parsed = envelopes(sentry_capture)
    assert [[item.type for item in env.items] for env in parsed] == [["event"], ["transaction"]]
    assert parsed[0].headers["trace"] == {"trace_id": "b" * 32, "sampled": "true"}
    assert parsed[0].items[0].payload.json["exception"] == {"values": [{"type": "ValueError"}]}
    assert parsed[1].items[0].payload.json["spans"][0]["data"]["model"] == "gemma3:4b"


def test_blank_dsn_imports_nothing_and_is_off():
    # In a fresh interpreter: this test module itself imports sentry_sdk.
    probe = ("import sys\nfrom citetutor.config import SentrySettings\n"
             "from citetutor.sentry_export import init_sentry\nfrom citetutor.tracing import Tracer\n"
             "from citetutor.store import Store\n"
             "assert init_sentry(SentrySettings(dsn='  ')) is False\n"
             "with Tracer(Store(':memory:'), SentrySettings(dsn='')).request('ask', 1) as trace:\n"
             "    trace.finish('answered', None, 1)\n"
             "print('sentry_sdk' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


def test_transport_must_be_filtering(sentry_capture):
    from sentry_sdk.transport import HttpTransport

    with pytest.raises(TypeError):
        init_sentry(SentrySettings(dsn=FAKE_DSN), transport_cls=HttpTransport)


def test_uuid_hex_request_ids_pass_the_allowlist():
    event_id = uuid.uuid4().hex
    assert scrub_event({"event_id": event_id})["event_id"] == event_id
