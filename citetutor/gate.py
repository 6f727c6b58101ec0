"""What the answer gate and the quiz gate share: adapters, rejections, traced schema-checked
calls, and the code checks that ground a model's words in the sentences it cites."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from citetutor import prompts
from citetutor.config import Limits
from citetutor.errors import ModelOutputError
from citetutor.evidence import Sentence, evidence_block, stems
from citetutor.models.base import ChatModel, Embedder, ask_structured
from citetutor.retrieval import CandidateCache, Retrieval, Scope, search
from citetutor.states import Reason
from citetutor.store import Store
from citetutor.tracing import Tracer

# Both gates report progress as (stage, attempt or candidate number) on the caller's thread.
StageCallback = Callable[[str, int], None]


def ignore_stage(_: str, __: int) -> None:
    """The default stage sink: no progress shown."""


# Words that frame a claim ("you can use the formula ...") without stating a fact. "Yes"
# answers a yes/no question and is free, like "no" (too short to count as a word at all);
# "not" still counts, so a negated claim needs a negated sentence.
CLAIM_FRAME = frozenset(stems(
    "can use using used find found formula equation given called known defined means also "
    "which where there this these that then thus therefore yes"))


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

    def search(self, query: str, scope: Scope) -> Retrieval:
        """Hybrid retrieval with this gate's limits and its warm candidate cache."""
        return search(self.store, self.embedder, query, scope, self.limits.top_k, self.limits.rrf_k,
                      self.limits.min_relevance, self.candidates)


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
            span.record(outcome="rejected", reason=Reason.SCHEMA_INVALID)
            raise Rejected(Reason.SCHEMA_INVALID) from exc
        span.record(reply.prompt_tokens, reply.completion_tokens, outcome="ok")
    return parsed


def check_known(numbers: list[int], sentences: list[Sentence]) -> None:
    """Every cited number must be one the model was given."""
    unknown = sorted(set(numbers) - {s.number for s in sentences})
    if unknown:
        raise Rejected(Reason.UNKNOWN_SENTENCE, f"Unknown: {', '.join(f'S{n}' for n in unknown)}.")


def new_words(text: str, question: str) -> set[str]:
    """What a text adds to the question (content-word stems); all of it if it only restates it."""
    words = set(stems(text)) - CLAIM_FRAME
    return (words - set(stems(question))) or words


def stems_of(numbers: list[int], sentences: list[Sentence]) -> set[str]:
    """Stems of the numbered sentences."""
    return set(stems(" ".join(s.text for s in sentences if s.number in numbers)))


def covers(new: set[str], numbers: list[int], sentences: list[Sentence], min_overlap: float) -> bool:
    """Whether the numbered sentences hold at least `min_overlap` of the words in `new`."""
    return not new or len(new & stems_of(numbers, sentences)) / len(new) >= min_overlap


def unfounded(text: str, new: set[str], cited: set[str]) -> list[str]:
    """The words of `text`, as written, whose stems are new and not in the cited sentences."""
    words = dict.fromkeys(re.findall(r"\w+", text))
    return [w for w in words if stems(w) and stems(w)[0] in new - cited]


def verify_messages(sentences: list[Sentence], task: str) -> list[dict]:
    """Verifier messages: the same system text and evidence first, so the KV prefix is reused."""
    user = prompts.VERIFY_USER.format(evidence=evidence_block(sentences), task=task)
    return [{"role": "system", "content": prompts.VERIFY_SYSTEM}, {"role": "user", "content": user}]


# Two answers agree when they are near-paraphrases (all-MiniLM-L6-v2 cosine). Lower
# values do not separate: two answers that both restate the question score about 0.68
# whether they agree ("tangent to the circle") or not ("+k-direction").
MIN_SAME_MEANING = 0.8


def same_meaning(embedder: Embedder, reference: str, other: str, question: str = "") -> bool:
    """... or when `other` holds at least half of what `reference` adds to the question."""
    added = new_words(reference, question)
    if added and 2 * len(added & set(stems(other))) >= len(added):
        return True
    if not reference.strip() or not other.strip():
        return False
    vectors = embedder.embed([reference, other])
    return float(vectors[0] @ vectors[1]) >= MIN_SAME_MEANING
