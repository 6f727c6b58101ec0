"""The answer gate: nothing reaches the learner before code and a second model family agree."""

from __future__ import annotations

import re
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Literal

from citetutor import answer_cache, prompts
from citetutor.config import NOT_ENOUGH_EVIDENCE, Limits
from citetutor.errors import InputError, ModelOutputError
from citetutor.models.base import ChatModel, Embedder, ask_structured
from citetutor.retrieval import CandidateCache, Hit, Retrieval, Scope, search, tokenize
from citetutor.schemas import BlindSolve, Draft, SupportVerdict
from citetutor.store import Store

Mode = Literal["explain", "hint"]
StageCallback = Callable[[str, int], None]
VALUE_REQUEST = re.compile(
    r"\b(value|units?|how (much|many|fast|far|long|big|large|high|heavy)|calculate|compute|"
    r"magnitude|numerical(ly)?)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Citation:
    """A cited chunk resolved by code to its document and page."""

    chunk_id: str
    doc_id: str
    title: str
    page_no: int
    text: str
    bboxes: str


@dataclass
class TutorAnswer:
    """What the Tutor page shows: a verified answer with citations, or the refusal."""

    status: Literal["answered", "refused"]
    text: str
    citations: list[Citation] = field(default_factory=list)
    claims: list[tuple[str, list[str]]] = field(default_factory=list)
    quantity: str | None = None
    attempts: int = 0
    reasons: list[str] = field(default_factory=list)
    request_id: str = ""
    spans: list[dict] = field(default_factory=list)


@dataclass
class Gate:
    """Adapters and limits the answer gate works with."""

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


def _ignore(_: str, __: int) -> None:
    """Default stage sink."""


def answer(gate: Gate, question: str, scope: Scope, mode: Mode = "explain",
           learner_notes: str = "", on_stage: StageCallback = _ignore) -> TutorAnswer:
    """Retrieve, draft, check and verify; show the draft only if every check passes."""
    question = question.strip()
    if not question:
        raise InputError("Type a question first, e.g. 'What is centripetal acceleration?'.")
    with gate.tracer.request("tutor", scope.subject_id) as trace:
        result = _run(gate, trace, question, scope, mode, learner_notes, on_stage)
        last_reason = result.reasons[-1] if result.status == "refused" and result.reasons else None
        trace.finish(result.status, last_reason, result.attempts)
    result.request_id, result.spans = trace.id, trace.spans
    return result


def _run(gate: Gate, trace, question: str, scope: Scope, mode: Mode, notes: str,
         on_stage: StageCallback) -> TutorAnswer:
    """The gate's steps inside one traced request."""
    on_stage("retrieve", 0)
    with trace.span("retrieve") as span:
        found = search(gate.store, gate.embedder, question, scope, gate.limits.top_k,
                       gate.limits.rrf_k, gate.limits.min_relevance, gate.candidates)
        span.record(outcome="ok" if found.supported else "rejected",
                    reason=None if found.supported else "low_relevance")
    if not found.supported:
        return _refuse(["no_evidence" if not found.hits else "low_relevance"], 0)
    key = answer_cache.cache_key(question, mode, notes, [(h.id, h.text) for h in found.hits],
                                 (gate.drafter.name, gate.verifier.name))
    with trace.span("cache") as span:
        cached = answer_cache.lookup(gate.store, key)
        span.record(outcome="hit" if cached else "miss")
    if cached:
        return _from_cache(cached)
    on_stage("blind_solve", 0)  # called here: UI callbacks must run on the caller's thread
    with ThreadPoolExecutor(max_workers=1) as pool:
        blind = pool.submit(_blind_solve, gate, trace, question, found.hits)
        if not gate.parallel_blind_solve:
            blind.result()
        result = _attempts(gate, trace, question, found, mode, notes, blind, on_stage)
    if result.status == "answered":
        answer_cache.keep(gate.store, key, result)
    return result


def _from_cache(fields: dict) -> TutorAnswer:
    """Rebuild a verified answer that passed the gate earlier."""
    citations = [Citation(**c) for c in fields.pop("citations")]
    claims = [(text, ids) for text, ids in fields.pop("claims")]
    return TutorAnswer(citations=citations, claims=claims, **fields)


def _attempts(gate: Gate, trace, question: str, found: Retrieval, mode: Mode, notes: str,
              blind: Future, on_stage: StageCallback) -> TutorAnswer:
    """Up to max_attempts drafts, each retried with the previous rejection reason."""
    reasons: list[str] = []
    feedback = ""
    for attempt in range(1, gate.limits.max_attempts + 1):
        try:
            draft = _draft(gate, trace, question, found.hits, mode, notes, feedback, attempt, on_stage)
            _guard(question, draft, found.hits, gate.limits.min_claim_overlap, mode)
            solved = blind.result()
            if not solved.answerable:
                reasons.append("blind_unanswerable")
                return _refuse(reasons, attempt)  # more drafts cannot change the evidence
            _support(gate, trace, question, found.hits, solved, draft, attempt, on_stage)
        except Rejected as rejection:
            reasons.append(rejection.code)
            trace_rejection(trace, rejection.code, attempt)
            feedback = f"{prompts.REJECTION_FEEDBACK[rejection.code]} {rejection.detail}".strip()
            continue
        return _accept(draft, found.hits, attempt, reasons)
    return _refuse(reasons, gate.limits.max_attempts)


def trace_rejection(trace, code: str, attempt: int) -> None:
    """Record a rejection as its own zero-length span so the Traces page can count them."""
    with trace.span("rejection", attempt=attempt) as span:
        span.record(outcome="rejected", reason=code)


def _evidence(hits: list[Hit]) -> str:
    """The evidence block for prompts."""
    return prompts.evidence_block([(h.id, h.page_no, h.text) for h in hits])


def _draft(gate: Gate, trace, question: str, hits: list[Hit], mode: Mode, notes: str,
           feedback: str, attempt: int, on_stage: StageCallback) -> Draft:
    """Ask the drafter for a structured answer; a schema failure is a rejection."""
    on_stage("draft", attempt)
    user = f"Evidence:\n{_evidence(hits)}\n\n{prompts.DRAFT_MODE[mode]}\nQuestion: {question}"
    if notes.strip():
        user += f"\nLearner notes (wording only): {notes.strip()}"
    if feedback:
        user += f"\nYour previous draft was rejected: {feedback}"
    messages = [{"role": "system", "content": prompts.DRAFT_SYSTEM}, {"role": "user", "content": user}]
    return traced_call(gate.drafter, trace, "draft", messages, Draft, attempt)


def traced_call(model: ChatModel, trace, stage: str, messages: list[dict], schema, attempt: int):
    """One traced, schema-checked model call."""
    with trace.span(stage, model=model.name, attempt=attempt) as span:
        try:
            parsed, reply = ask_structured(model, messages, schema)
        except ModelOutputError as exc:
            span.record(outcome="rejected", reason="schema_invalid")
            raise Rejected("schema_invalid") from exc
        span.record(reply.prompt_tokens, reply.completion_tokens, outcome="ok")
    return parsed


def _guard(question: str, draft: Draft, hits: list[Hit], min_overlap: float, mode: Mode) -> None:
    """Code checks: citations exist, were supplied, and hold any requested quantity."""
    if draft.insufficient_evidence:
        raise Rejected("drafter_refused")
    cited = [cid for claim in draft.claims for cid in claim.chunk_ids]
    if not draft.claims or not cited or any(not c.chunk_ids for c in draft.claims):
        raise Rejected("no_citations")
    supplied = {h.id: h for h in hits}
    unknown = sorted(set(cited) - supplied.keys())
    if unknown:
        raise Rejected("unknown_chunk_id", f"Unknown IDs: {', '.join(unknown)}.")
    for number, claim in enumerate(draft.claims):
        _guard_overlap(number, claim.text, [supplied[c].text for c in claim.chunk_ids], min_overlap)
    if mode == "explain" and VALUE_REQUEST.search(question):  # a hint must not give the value away
        _guard_quantity(draft, [supplied[c].text for c in cited])


def _guard_overlap(number: int, claim: str, cited_texts: list[str], min_overlap: float) -> None:
    """A claim must share most of its content words with its cited chunks.

    A cheap check that no model can talk its way past: it catches claims copied from
    nowhere even when the verifier is weak (as the embedded demo model is).
    """
    words = {w for w in tokenize(claim) if len(w) > 2 or w.isdigit()}
    evidence = set(tokenize(" ".join(cited_texts)))
    if not words or len(words & evidence) / len(words) < min_overlap:
        raise Rejected("unsupported_claim", f"Claim {number} is not stated in the chunks it cites.")


def _guard_quantity(draft: Draft, cited_texts: list[str]) -> None:
    """A value-and-unit answer must state a value and unit found in the cited text."""
    if draft.quantity is None or not draft.quantity.value.strip():
        raise Rejected("quantity_missing")
    evidence = _squash(" ".join(cited_texts))
    value, unit = _squash(draft.quantity.value), _squash(draft.quantity.unit)
    if value not in evidence or (unit and unit not in evidence):
        raise Rejected("quantity_not_in_evidence")


def _squash(text: str) -> str:
    """Lower-case and drop whitespace so '9.8 m/s^2' matches '9.8m/s^2'."""
    return re.sub(r"\s+", "", text).lower()


def _blind_solve(gate: Gate, trace, question: str, hits: list[Hit]) -> BlindSolve:
    """The verifier answers from the evidence alone: no draft, no learner notes."""
    messages = [
        {"role": "system", "content": prompts.BLIND_SYSTEM},
        {"role": "user", "content": f"Evidence:\n{_evidence(hits)}\n\nQuestion: {question}"},
    ]
    try:
        return traced_call(gate.verifier, trace, "blind_solve", messages, BlindSolve, 0)
    except Rejected:
        return BlindSolve(answerable=False, answer="", chunk_ids=[])


def _support(gate: Gate, trace, question: str, hits: list[Hit], solved: BlindSolve,
             draft: Draft, attempt: int, on_stage: StageCallback) -> None:
    """The verifier checks relevance, agreement with its blind answer, and claim support."""
    on_stage("support_check", attempt)
    claims = "\n".join(f"{i}. {c.text} [cites: {', '.join(c.chunk_ids)}]"
                       for i, c in enumerate(draft.claims))
    user = (f"Evidence:\n{_evidence(hits)}\n\nQuestion: {question}\n"
            f"Independent answer: {solved.answer}\nDraft answer: {draft.answer}\nClaims:\n{claims}")
    messages = [{"role": "system", "content": prompts.SUPPORT_SYSTEM}, {"role": "user", "content": user}]
    verdict = traced_call(gate.verifier, trace, "support_check", messages, SupportVerdict, attempt)
    if not verdict.relevant:
        raise Rejected("irrelevant", verdict.reason)
    if not verdict.agrees_with_blind:
        raise Rejected("blind_disagrees", verdict.reason)
    if verdict.unsupported_claims:
        raise Rejected("unsupported_claim", verdict.reason)


def _accept(draft: Draft, hits: list[Hit], attempt: int, reasons: list[str]) -> TutorAnswer:
    """Build the displayed answer; citations are resolved to pages by code, not the model."""
    by_id = {h.id: h for h in hits}
    cited = dict.fromkeys(cid for c in draft.claims for cid in c.chunk_ids)
    citations = [Citation(h.id, h.doc_id, h.title, h.page_no, h.text, h.bboxes)
                 for h in (by_id[c] for c in cited)]
    quantity = f"{draft.quantity.value} {draft.quantity.unit}".strip() if draft.quantity else None
    return TutorAnswer("answered", draft.answer, citations,
                       [(c.text, c.chunk_ids) for c in draft.claims], quantity, attempt, reasons)


def _refuse(reasons: list[str], attempts: int) -> TutorAnswer:
    """The honest answer when nothing passed."""
    return TutorAnswer("refused", NOT_ENOUGH_EVIDENCE, attempts=attempts, reasons=reasons)
