"""Request and stage timing: local DuckDB rows, optional metadata-only Sentry export.

Every request (an answer, a quiz, an OCR run) gets one row in `requests` and one row
per stage in `spans`. If a Sentry DSN is configured the same timings are exported, but
only after every event and envelope is rebuilt from an allowlist of metadata keys, so
no document text, filename, question, answer or model output can leave the machine.
"""

from __future__ import annotations

import functools
import json
import re
import threading
import time
import uuid
from contextlib import contextmanager, nullcontext
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable, Iterator

from citetutor.config import SentrySettings
from citetutor.store import Store

if TYPE_CHECKING:  # sentry_sdk is imported only when a DSN is set
    from sentry_sdk.envelope import Envelope, Item

REASON_CODES: frozenset[str] = frozenset({
    "schema_invalid", "unknown_sentence", "uncovered_claim", "number_not_in_evidence",
    "quantity_not_in_evidence", "off_question", "blind_unanswerable", "blind_disagrees",
    "irrelevant", "unsupported_claim", "model_unavailable", "no_evidence", "low_relevance",
    "key_mismatch", "answer_mismatch", "key_unsupported", "deadline", "repeated_draft", "error",
})

OK = "ok"
ERROR = "error"
REQUEST_OP = "citetutor.request"
STAGE_OP = "citetutor.stage"

# Kinds and stage names become Sentry transaction/span names: identifiers only, so a
# question or filename (which has spaces or odd characters) cannot be used by mistake.
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]{0,63}")


def check_reason(reason: str | None) -> str | None:
    """Return the reason if it is a known code; unknown codes are programming errors."""
    if reason is not None and reason not in REASON_CODES:
        raise ValueError(f"Unknown reason code {reason!r}; add it to tracing.REASON_CODES.")
    return reason


def check_name(name: str) -> str:
    """Return a request kind or stage name if it is an identifier, else raise ValueError."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"Trace names must be identifiers like 'blind_solve', got {name!r}.")
    return name


class Span:
    """One timed stage of a request; fill its metadata with record()."""

    def __init__(self, seq: int, name: str, model: str | None, attempt: int | None):
        self.seq, self.name, self.model, self.attempt = seq, name, model, attempt
        self.prompt_tokens: int | None = None
        self.completion_tokens: int | None = None
        self.outcome: str | None = None
        self.reason: str | None = None
        self.started_ms = 0.0
        self.duration_ms = 0.0
        self._sentry: Any = None

    def record(self, prompt_tokens: int | None = None, completion_tokens: int | None = None,
               outcome: str | None = None, reason: str | None = None) -> None:
        """Set token counts, outcome and reason code; None leaves a field as it was."""
        check_reason(reason)
        updates = dict(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                       outcome=outcome, reason=reason)
        for key, value in updates.items():
            if value is not None:
                setattr(self, key, value)

    def as_dict(self) -> dict:
        """The span as a row for the timing panel."""
        keys = ("name", "started_ms", "duration_ms", "model", "prompt_tokens",
                "completion_tokens", "outcome", "reason", "attempt")
        return {key: getattr(self, key) for key in keys}


class RequestTrace:
    """Spans of one request, collected in memory and written when the request ends."""

    def __init__(self, kind: str, subject_id: int | None, sentry_txn: Any = None):
        self.id = uuid.uuid4().hex
        self.kind, self.subject_id = kind, subject_id
        self.started_at = datetime.now(timezone.utc).replace(tzinfo=None)  # stored as UTC
        self.outcome: str = OK
        self.reason: str | None = None
        self.attempts: int | None = None
        self.duration_ms: float | None = None
        self._t0 = time.perf_counter()
        self._lock = threading.Lock()  # the blind solve records spans from another thread
        self._next_seq = 0
        self._done: list[Span] = []
        self._sentry_txn = sentry_txn

    @contextmanager
    def span(self, name: str, model: str | None = None,
             attempt: int | None = None) -> Iterator[Span]:
        """Time one stage; an exception marks it outcome 'error' and propagates."""
        span = self._open(check_name(name), model, attempt)
        start = time.perf_counter()
        span.started_ms = (start - self._t0) * 1000
        try:
            yield span
        except BaseException:
            span.outcome, span.reason = ERROR, ERROR
            raise
        finally:
            span.duration_ms = (time.perf_counter() - start) * 1000
            self._close(span)

    def finish(self, outcome: str, reason: str | None = None,
               attempts: int | None = None) -> None:
        """Set the request's result."""
        self.reason = check_reason(reason)
        self.outcome = outcome
        if attempts is not None:
            self.attempts = attempts

    @property
    def spans(self) -> list[dict]:
        """Finished spans in seq (start) order, for the per-answer timing panel."""
        return [span.as_dict() for span in self._finished()]

    def _open(self, name: str, model: str | None, attempt: int | None) -> Span:
        with self._lock:
            seq, self._next_seq = self._next_seq, self._next_seq + 1
        span = Span(seq, name, model, attempt)
        if self._sentry_txn is not None:
            # start_child, not `with`: entering would move the scope's span across threads.
            span._sentry = self._sentry_txn.start_child(op=STAGE_OP, name=name)
        return span

    def _close(self, span: Span) -> None:
        if span.outcome is None:
            span.outcome = OK
        if span._sentry is not None:
            _finish_sentry_span(span)
        with self._lock:
            self._done.append(span)

    def _finished(self) -> list[Span]:
        with self._lock:
            return sorted(self._done, key=lambda span: span.seq)

    def _elapsed(self) -> None:
        self.duration_ms = (time.perf_counter() - self._t0) * 1000


class Tracer:
    """Opens request traces and persists them; exports metadata to Sentry when enabled."""

    def __init__(self, store: Store, sentry_settings: SentrySettings | None = None):
        self.store = store
        self.sentry_on = _ensure_sentry(sentry_settings)

    @contextmanager
    def request(self, kind: str, subject_id: int | None = None) -> Iterator[RequestTrace]:
        """Trace one request; an escaping exception is recorded as 'error' and re-raised."""
        check_name(kind)
        with self._sentry_transaction(kind) as txn:
            trace = RequestTrace(kind, subject_id, txn)
            try:
                yield trace
            except BaseException as exc:
                trace.outcome, trace.reason = ERROR, ERROR
                self._report(exc)
                raise
            finally:
                trace._elapsed()
                if txn is not None:
                    _tag_sentry_transaction(txn, trace)
                self._persist(trace)

    def _sentry_transaction(self, kind: str) -> Any:
        if not self.sentry_on:
            return nullcontext(None)
        import sentry_sdk

        return sentry_sdk.start_transaction(op=REQUEST_OP, name=kind, source="custom")

    def _report(self, exc: BaseException) -> None:
        # Only the exception type survives the allowlist; the message never leaves.
        if self.sentry_on and isinstance(exc, Exception):
            import sentry_sdk

            sentry_sdk.capture_exception(exc)

    def _persist(self, trace: RequestTrace) -> None:
        # One transaction per request keeps DuckDB writes off the per-stage hot path.
        request_row = [trace.id, trace.kind, trace.started_at, trace.duration_ms,
                       trace.outcome, trace.reason, trace.attempts, trace.subject_id]
        span_rows = [[trace.id, s.seq, s.name, s.started_ms, s.duration_ms, s.model,
                      s.prompt_tokens, s.completion_tokens, s.outcome, s.reason, s.attempt]
                     for s in trace._finished()]
        with self.store.transaction(library=False) as cur:
            cur.execute("INSERT INTO requests VALUES (?, ?, ?, ?, ?, ?, ?, ?)", request_row)
            if span_rows:
                cur.executemany(
                    "INSERT INTO spans VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", span_rows)


# --- Query helpers for the Traces page -------------------------------------------------

def recent_requests(store: Store, limit: int = 50) -> list[dict]:
    """The latest requests, newest first."""
    return store.query_dicts(
        "SELECT id, kind, started_at, duration_ms, outcome, reason, attempts, subject_id "
        "FROM requests ORDER BY started_at DESC, id LIMIT ?", [limit])


def request_spans(store: Store, request_id: str) -> list[dict]:
    """The spans of one request in seq order."""
    return store.query_dicts(
        "SELECT seq, name, started_ms, duration_ms, model, prompt_tokens, completion_tokens, "
        "outcome, reason, attempt FROM spans WHERE request_id = ? ORDER BY seq", [request_id])


def stage_latency(store: Store, kind: str | None = None) -> list[dict]:
    """Per stage name: count, p50_ms, p95_ms and mean_ms, optionally for one request kind."""
    where, params = ("WHERE r.kind = ?", [kind]) if kind is not None else ("", [])
    return store.query_dicts(
        "SELECT s.name, count(*) AS count, "
        "quantile_cont(s.duration_ms, 0.5) AS p50_ms, "
        "quantile_cont(s.duration_ms, 0.95) AS p95_ms, avg(s.duration_ms) AS mean_ms "
        f"FROM spans s JOIN requests r ON r.id = s.request_id {where} "
        "GROUP BY s.name ORDER BY s.name", params)


def outcome_counts(store: Store) -> list[dict]:
    """Requests counted per kind, outcome and reason code, most frequent first."""
    return store.query_dicts(
        "SELECT kind, outcome, reason, count(*) AS count FROM requests "
        "GROUP BY kind, outcome, reason ORDER BY count DESC, kind, outcome, reason")


# --- Sentry allowlist ------------------------------------------------------------------
# Values are checked as well as keys: a metadata key holding prose is still dropped.

_HEX32 = re.compile(r"[0-9a-f]{32}")
_HEX16 = re.compile(r"[0-9a-f]{16}")
_IDENT = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
_MODEL = re.compile(r"[A-Za-z0-9_.:/@+-]{1,100}")
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?")
_DECIMAL = re.compile(r"-?\d{1,20}(\.\d{1,20})?([eE]-?\d{1,3})?")


def _matches(pattern: re.Pattern) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, str) and bool(pattern.fullmatch(value))


def _one_of(*allowed: Any) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, (str, bool)) and value in allowed


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _count(value: Any) -> bool:
    if isinstance(value, str):
        return value.isdigit() and len(value) < 10
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _timestamp(value: Any) -> bool:
    return _number(value) or _matches(_TIME)(value)


def _reason(value: Any) -> bool:
    return isinstance(value, str) and value in REASON_CODES


_ident = _matches(_IDENT)
_EVENT_FIELDS = {
    "event_id": _matches(_HEX32), "timestamp": _timestamp, "start_timestamp": _timestamp,
    "type": _one_of("event", "transaction"), "platform": _one_of("python"),
    "level": _one_of("debug", "info", "warning", "error", "fatal"),
    "environment": _ident, "release": _ident, "transaction": _ident,
}
_TRACE_FIELDS = {
    "trace_id": _matches(_HEX32), "span_id": _matches(_HEX16),
    "parent_span_id": _matches(_HEX16), "op": _ident, "status": _ident,
}
_SPAN_FIELDS = {**_TRACE_FIELDS, "description": _ident,
                "start_timestamp": _timestamp, "timestamp": _timestamp}
_DATA_FIELDS = {
    "model": _matches(_MODEL), "prompt_tokens": _count, "completion_tokens": _count,
    "outcome": _ident, "reason": _reason, "attempt": _count, "duration_ms": _number,
}
_TAG_FIELDS = {"kind": _ident, "outcome": _ident, "reason": _reason,
               "attempts": _count, "model": _matches(_MODEL)}
_DSC_FIELDS = {
    "trace_id": _matches(_HEX32), "public_key": _ident, "org_id": _count,
    "sample_rate": _matches(_DECIMAL), "sample_rand": _matches(_DECIMAL),
    "sampled": _one_of("true", "false"), "environment": _ident, "release": _ident,
    "transaction": _ident,
}
_HEADER_FIELDS = {"event_id": _matches(_HEX32), "sent_at": _timestamp}


def _pick(source: Any, fields: dict[str, Callable[[Any], bool]]) -> dict:
    """Keep the allowlisted keys whose values pass their check."""
    if not isinstance(source, dict):
        return {}
    return {key: source[key] for key, ok in fields.items() if key in source and ok(source[key])}


def _put(target: dict, key: str, value: Any) -> None:
    if value:
        target[key] = value


def scrub_event(event: Any) -> dict:
    """Rebuild a Sentry event or transaction from allowlisted metadata only."""
    clean = _pick(event, _EVENT_FIELDS)
    if not isinstance(event, dict):
        return clean
    contexts = event.get("contexts")
    contexts = contexts if isinstance(contexts, dict) else {}
    trace = _scrub_trace(contexts.get("trace"))
    _put(clean, "contexts", {"trace": trace} if trace else None)
    _put(clean, "transaction_info", _pick(event.get("transaction_info"), {"source": _ident}))
    _put(clean, "tags", _pick(event.get("tags"), _TAG_FIELDS))
    spans = event.get("spans")
    if isinstance(spans, list):
        clean["spans"] = [_scrub_span(span) for span in spans if isinstance(span, dict)]
    _put(clean, "exception", _scrub_exception(event.get("exception")))
    return clean


def _scrub_trace(trace: Any) -> dict:
    clean = _pick(trace, _TRACE_FIELDS)
    if isinstance(trace, dict):
        # The client moves this into the envelope header after before_send_transaction.
        _put(clean, "dynamic_sampling_context",
             _pick(trace.get("dynamic_sampling_context"), _DSC_FIELDS))
    return clean


def _scrub_span(span: dict) -> dict:
    clean = _pick(span, _SPAN_FIELDS)
    _put(clean, "data", _pick(span.get("data"), _DATA_FIELDS))
    return clean


def _scrub_exception(exception: Any) -> dict:
    # Only the type name: messages, frames and their local variables carry content.
    values = exception.get("values") if isinstance(exception, dict) else None
    if not isinstance(values, list):
        return {}
    types = [kept for kept in (_pick(value, {"type": _ident}) for value in values) if kept]
    return {"values": types} if types else {}


def scrub_envelope(envelope: Envelope) -> Envelope | None:
    """Keep only event/transaction items, each re-scrubbed; None when nothing is left."""
    from sentry_sdk.envelope import Envelope

    items = [_scrub_item(item) for item in envelope.items
             if item.type in ("event", "transaction")]
    kept = [item for item in items if item is not None]
    if not kept:
        return None
    headers = _pick(envelope.headers, _HEADER_FIELDS)
    _put(headers, "trace", _pick(envelope.headers.get("trace"), _DSC_FIELDS))
    return Envelope(headers=headers, items=kept)


def _scrub_item(item: Item) -> Item | None:
    from sentry_sdk.envelope import Item, PayloadRef

    payload = item.payload.json
    if payload is None:
        try:
            payload = json.loads(item.get_bytes())
        except ValueError:
            return None
    clean = scrub_event(payload)
    return Item(payload=PayloadRef(json=clean), type=item.type) if clean else None


def _before_send(event: dict, hint: dict) -> dict | None:
    """before_send hook: errors leave as allowlisted metadata only."""
    return scrub_event(event) or None


def _before_send_transaction(event: dict, hint: dict) -> dict | None:
    """before_send_transaction hook: transactions leave as allowlisted metadata only."""
    return scrub_event(event) or None


@functools.cache
def _filtering_transport_cls() -> type:
    """Build FilteringTransport on first use, so sentry_sdk loads only with a DSN."""
    from sentry_sdk.transport import HttpTransport

    class FilteringTransport(HttpTransport):
        """HTTP transport that re-applies the allowlist to every envelope it sends."""

        def capture_envelope(self, envelope: Envelope) -> None:
            clean = scrub_envelope(envelope)
            if clean is not None:
                super().capture_envelope(clean)

    FilteringTransport.__module__ = __name__
    FilteringTransport.__qualname__ = "FilteringTransport"
    return FilteringTransport


def __getattr__(name: str) -> Any:
    # `from citetutor.tracing import FilteringTransport` imports sentry_sdk only then.
    if name == "FilteringTransport":
        return _filtering_transport_cls()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_PRIVATE_OPTIONS: dict[str, Any] = dict(
    include_local_variables=False, include_source_context=False,
    max_breadcrumbs=0, default_integrations=False, auto_enabling_integrations=False,
    auto_session_tracking=False, send_client_reports=False, attach_stacktrace=False,
    enable_logs=False, enable_metrics=False, profiles_sample_rate=None,
)


# Newer sentry-sdk 2.x deprecates send_default_pii for data_collection; turn it all off.
_NO_DATA_COLLECTION: dict[str, Any] = {
    "user_info": False, "cookies": {"mode": "off"}, "http_headers": {"request": {"mode": "off"}},
    "http_bodies": [], "url_query_params": {"mode": "off"},
    "graphql": {"document": False, "variables": False},
    "gen_ai": {"inputs": False, "outputs": False}, "database_query_data": False,
    "queues": False, "stack_frame_variables": False, "frame_context_lines": 0,
}


def _pii_options() -> dict[str, Any]:
    """data_collection all off where the SDK has it, else send_default_pii=False."""
    import inspect

    from sentry_sdk.consts import ClientConstructor

    if "data_collection" in inspect.signature(ClientConstructor.__init__).parameters:
        return {"data_collection": _NO_DATA_COLLECTION}  # both set would warn and ignore
    return {"send_default_pii": False}


def init_sentry(settings: SentrySettings, transport_cls: type | None = None) -> bool:
    """Start metadata-only Sentry export; a blank DSN does nothing and returns False."""
    if not settings.dsn.strip():
        return False
    import sentry_sdk

    transport_cls = transport_cls or _filtering_transport_cls()
    if not issubclass(transport_cls, _filtering_transport_cls()):
        raise TypeError("transport_cls must subclass FilteringTransport (the second filter).")
    sentry_sdk.init(
        dsn=settings.dsn.strip(), environment=settings.environment,
        # Our filters take and return plain dicts, which is what Sentry's Event type is.
        traces_sample_rate=settings.traces_sample_rate, transport=transport_cls,  # type: ignore[arg-type]
        before_send=_before_send, before_send_transaction=_before_send_transaction,  # type: ignore[arg-type]
        **_PRIVATE_OPTIONS, **_pii_options())
    return True


def _ensure_sentry(settings: SentrySettings | None) -> bool:
    """True when exporting; (re)initialises Sentry unless our filtered client is active."""
    if settings is None or not settings.dsn.strip():
        return False
    import sentry_sdk

    # Never export through a client someone set up without the filtering transport.
    if not isinstance(sentry_sdk.get_client().transport, _filtering_transport_cls()):
        init_sentry(settings)
    return True


def _finish_sentry_span(span: Span) -> None:
    """Copy a stage's metadata onto its Sentry child span and finish it."""
    data = {**span.as_dict(), "duration_ms": span.duration_ms}
    for key in _DATA_FIELDS:
        if data.get(key) is not None:
            span._sentry.set_data(key, data[key])
    span._sentry.set_status("ok" if span.outcome != ERROR else "internal_error")
    span._sentry.finish()


def _tag_sentry_transaction(txn: Any, trace: RequestTrace) -> None:
    """Put the request's result on its Sentry transaction as allowlisted tags."""
    tags = {"kind": trace.kind, "outcome": trace.outcome, "reason": trace.reason,
            "attempts": trace.attempts}
    for key, value in tags.items():
        if value is not None:
            txn.set_tag(key, str(value))
    if trace.outcome == ERROR:
        txn.set_status("internal_error")
