"""Request and stage timing: local DuckDB rows, and the Traces page's queries.

Every request (an answer, a quiz, an OCR run) gets one row in `requests` and one row
per stage in `spans`. With a Sentry DSN the same timings also go to Sentry, through the
allowlist in `sentry_export`.
"""

from __future__ import annotations

import re
import threading
import time
import uuid
from contextlib import contextmanager, nullcontext
from datetime import datetime, timezone
from typing import Any, Iterator

from citetutor.config import SentrySettings
from citetutor.sentry_export import REQUEST_OP, STAGE_OP, ensure_sentry, finish_span, tag_transaction
from citetutor.states import ERROR, OK, REASON_CODES
from citetutor.store import Store

# Kinds and stage names become Sentry transaction/span names: identifiers only, so a
# question or filename (which has spaces or odd characters) cannot be used by mistake.
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]{0,63}")


def first_words(text: str, words: int = 8, chars: int = 80) -> str:
    """The start of a question, to tell Traces rows apart."""
    text = text.encode("utf-8", "replace").decode("utf-8")  # a stray surrogate never fails a trace
    head = " ".join(text.split()[:words])
    return head[:chars] + ("…" if len(head) > chars or len(text.split()) > words else "")


def check_reason(reason: str | None) -> str | None:
    """Return the reason if it is a known code; unknown codes are programming errors."""
    if reason is not None and reason not in REASON_CODES:
        raise ValueError(f"Unknown reason code {reason!r}; add it to states.Reason (REASON_CODES).")
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

    def __init__(self, kind: str, subject_id: int | None, sentry_txn: Any = None, label: str = ""):
        self.id = uuid.uuid4().hex
        self.kind, self.subject_id = kind, subject_id
        self.label = label  # the question's first words: local only, never in the Sentry allowlist
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
            finish_span(span)
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
        self.sentry_on = ensure_sentry(sentry_settings)

    @contextmanager
    def request(self, kind: str, subject_id: int | None = None, label: str = "") -> Iterator[RequestTrace]:
        """Trace one request; an escaping exception is recorded as 'error' and re-raised.

        `label` names it on the Traces page (a question's first words): stored in the local
        library only."""
        check_name(kind)
        with self._sentry_transaction(kind) as txn:
            trace = RequestTrace(kind, subject_id, txn, first_words(label))
            try:
                yield trace
            except BaseException as exc:
                trace.outcome, trace.reason = ERROR, ERROR
                self._report(exc)
                raise
            finally:
                trace._elapsed()
                if txn is not None:
                    tag_transaction(txn, trace)
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
                       trace.outcome, trace.reason, trace.attempts, trace.subject_id, trace.label]
        span_rows = [[trace.id, s.seq, s.name, s.started_ms, s.duration_ms, s.model,
                      s.prompt_tokens, s.completion_tokens, s.outcome, s.reason, s.attempt]
                     for s in trace._finished()]
        with self.store.transaction(library=False) as cur:
            cur.execute("INSERT INTO requests (id, kind, started_at, duration_ms, outcome, reason, attempts, "
                        "subject_id, label) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", request_row)
            if span_rows:
                cur.executemany(
                    "INSERT INTO spans VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", span_rows)


# --- Query helpers for the Traces page -------------------------------------------------

def recent_requests(store: Store, limit: int = 50) -> list[dict]:
    """The latest requests, newest first."""
    return store.query_dicts(
        "SELECT id, kind, started_at, duration_ms, outcome, reason, attempts, subject_id, label "
        "FROM requests ORDER BY started_at DESC, id LIMIT ?", [limit])


def recent_seconds(store: Store, kind: str, limit: int = 20) -> list[float]:
    """Durations of this machine's latest finished requests of one kind (for estimates)."""
    return [ms / 1000 for (ms,) in store.query(
        "SELECT duration_ms FROM requests WHERE kind = ? AND duration_ms IS NOT NULL "
        "AND outcome IN ('answered', 'refused') ORDER BY started_at DESC LIMIT ?", [kind, limit])]


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
