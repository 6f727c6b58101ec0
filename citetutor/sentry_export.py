"""Metadata-only Sentry export: an allowlist that rebuilds every event and envelope.

Values are checked as well as keys, so a metadata key holding prose is still dropped, and a
second filter in the transport re-applies the allowlist to whatever the SDK assembled. No
document text, filename, question, answer or model output can leave the machine.
sentry_sdk is imported only when a DSN is set.
"""

from __future__ import annotations

import functools
import json
import re
from typing import TYPE_CHECKING, Any, Callable

from citetutor.config import SentrySettings
from citetutor.states import ERROR, REASON_CODES

if TYPE_CHECKING:
    from sentry_sdk.envelope import Envelope, Item

    from citetutor.tracing import RequestTrace, Span

REQUEST_OP = "citetutor.request"
STAGE_OP = "citetutor.stage"

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
    # `from citetutor.sentry_export import FilteringTransport` imports sentry_sdk only then.
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


def ensure_sentry(settings: SentrySettings | None) -> bool:
    """True when exporting; (re)initialises Sentry unless our filtered client is active."""
    if settings is None or not settings.dsn.strip():
        return False
    import sentry_sdk

    # Never export through a client someone set up without the filtering transport.
    if not isinstance(sentry_sdk.get_client().transport, _filtering_transport_cls()):
        init_sentry(settings)
    return True


def finish_span(span: Span) -> None:
    """Copy a stage's metadata onto its Sentry child span and finish it."""
    data = {**span.as_dict(), "duration_ms": span.duration_ms}
    for key in _DATA_FIELDS:
        if data.get(key) is not None:
            span._sentry.set_data(key, data[key])
    span._sentry.set_status("ok" if span.outcome != ERROR else "internal_error")
    span._sentry.finish()


def tag_transaction(txn: Any, trace: RequestTrace) -> None:
    """Put the request's result on its Sentry transaction as allowlisted tags."""
    tags = {"kind": trace.kind, "outcome": trace.outcome, "reason": trace.reason,
            "attempts": trace.attempts}
    for key, value in tags.items():
        if value is not None:
            txn.set_tag(key, str(value))
    if trace.outcome == ERROR:
        txn.set_status("internal_error")
