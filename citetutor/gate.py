"""What the answer gate and the quiz gate share: adapters, rejections, traced schema-checked
calls, and the code checks that ground a model's words in the sentences it cites."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from citetutor import prompts
from citetutor.checks import Rejected
from citetutor.config import Limits
from citetutor.errors import ModelOutputError
from citetutor.evidence import Sentence, evidence_block
from citetutor.models.base import ChatModel, Embedder, ask_structured
from citetutor.retrieval import CandidateCache, Retrieval, Scope, search
from citetutor.states import Reason
from citetutor.store import Store
from citetutor.tracing import Tracer

# Both gates report progress as (stage, attempt or candidate number) on the caller's thread.
StageCallback = Callable[[str, int], None]


def ignore_stage(_: str, __: int) -> None:
    """The default stage sink: no progress shown."""


@dataclass
class Gate:
    """Adapters and limits both gates work with."""

    store: Store
    embedder: Embedder
    drafter: ChatModel
    verifier: ChatModel
    tracer: Tracer
    limits: Limits
    parallel_blind_solve: bool = True
    question_deadline_s: float = 600.0
    candidates: CandidateCache = field(default_factory=CandidateCache)
    judge: ChatModel | None = None  # who checks meaning; None: the verifier

    @property
    def meaning_judge(self) -> ChatModel:
        """The model that judges whether cited sentences state a claim."""
        return self.judge or self.verifier

    def search(self, query: str, scope: Scope) -> Retrieval:
        """Hybrid retrieval with this gate's limits and its warm candidate cache."""
        return search(self.store, self.embedder, query, scope, self.limits.top_k, self.limits.rrf_k,
                      self.limits.min_relevance, self.candidates)


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
            span.record(outcome="rejected", reason=Reason.SCHEMA_INVALID)
            raise Rejected(Reason.SCHEMA_INVALID) from exc
        span.record(reply.prompt_tokens, reply.completion_tokens, outcome="ok")
    return parsed


def draft_messages(sentences: list[Sentence], question: str, task: str, then: str = "") -> list[dict]:
    """Drafter messages: the system text, then this question's evidence, question and task, and
    `then` (a retry's reason, the learner's notes) after the task.

    The meaning judge sends the same prefix with its own task, so an in-process judge reuses the
    drafter's KV cache; built here only, the two cannot drift apart. (Worked example turns
    before the question made the 1.5B copy fragments boldly; see the README's ninth stop.)"""
    user = prompts.DRAFT_USER.format(evidence=evidence_block(sentences), question=question, task=task)
    return [{"role": "system", "content": prompts.DRAFT_SYSTEM}, {"role": "user", "content": user + then}]


def verify_messages(sentences: list[Sentence], task: str) -> list[dict]:
    """Verifier messages: the same system text and evidence first, so the KV prefix is reused."""
    user = prompts.VERIFY_USER.format(evidence=evidence_block(sentences), task=task)
    return [{"role": "system", "content": prompts.VERIFY_SYSTEM}, {"role": "user", "content": user}]


