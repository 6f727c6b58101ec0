"""What the answer gate and the quiz gate share: adapters, rejections, traced schema-checked calls."""

from __future__ import annotations

from dataclasses import dataclass, field

from citetutor.config import Limits
from citetutor.errors import ModelOutputError
from citetutor.models.base import ChatModel, Embedder, ask_structured
from citetutor.retrieval import CandidateCache
from citetutor.store import Store


@dataclass
class Gate:
    """Adapters and limits both gates work with."""

    store: Store
    embedder: Embedder
    drafter: ChatModel
    verifier: ChatModel
    tracer: object
    limits: Limits
    parallel_blind_solve: bool = True
    candidates: CandidateCache = field(default_factory=CandidateCache)


class Rejected(Exception):
    """A draft failed a check; `code` is a tracing reason code, `detail` goes to the drafter."""

    def __init__(self, code: str, detail: str = ""):
        super().__init__(code)
        self.code, self.detail = code, detail


def trace_rejection(trace, code: str, attempt: int) -> None:
    """Record a rejection as its own zero-length span so the Traces page can count them."""
    with trace.span("rejection", attempt=attempt) as span:
        span.record(outcome="rejected", reason=code)


def traced_call(model: ChatModel, trace, stage: str, messages: list[dict], schema, attempt: int):
    """One traced, schema-checked model call; a reply off the schema is a rejection."""
    with trace.span(stage, model=model.name, attempt=attempt) as span:
        try:
            parsed, reply = ask_structured(model, messages, schema)
        except ModelOutputError as exc:
            span.record(outcome="rejected", reason="schema_invalid")
            raise Rejected("schema_invalid") from exc
        span.record(reply.prompt_tokens, reply.completion_tokens, outcome="ok")
    return parsed
