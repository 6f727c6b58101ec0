"""The quiz gate: a question is kept only if a solver that never sees the key gets it right."""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from typing import Callable

from citetutor import prompts
from citetutor.errors import InputError
from citetutor.retrieval import Hit, Scope, search
from citetutor.schemas import (AgreementVerdict, KeySupportVerdict, QuizBatch, QuizBlindAnswer,
                               QuizCandidate)
from citetutor.gate import Gate, Rejected, trace_rejection, traced_call

MAX_SOURCE_CHUNKS = 8
REASON_TEXT = {
    "schema_invalid": "malformed question",
    "unknown_chunk_id": "cited a passage that was not given",
    "quote_not_literal": "supporting quote not found word for word in the pages",
    "blind_unanswerable": "could not be answered from the pages without the key",
    "key_mismatch": "an independent solver chose a different option",
    "answer_mismatch": "an independent solver gave a different answer",
    "key_unsupported": "the pages do not support the key and rationale",
}


@dataclass
class QuizItem:
    """An accepted question with its pages."""

    id: str
    candidate: QuizCandidate
    pages: list[int]


@dataclass
class QuizResult:
    """Accepted items and why the others were dropped."""

    items: list[QuizItem] = field(default_factory=list)
    rejected: dict[str, int] = field(default_factory=dict)
    request_id: str = ""
    spans: list[dict] = field(default_factory=list)

    @property
    def rejected_count(self) -> int:
        """How many candidates the gate dropped."""
        return sum(self.rejected.values())


def _ignore(_: str, __: int) -> None:
    """Default progress sink."""


def make_quiz(gate: Gate, doc_id: str, scope: Scope, count: int = 5, kinds: str = "mixed",
              on_stage: Callable[[str, int], None] = _ignore) -> QuizResult:
    """Draft `count` candidates from the page range and keep those that pass every check."""
    if scope.pages is None or scope.pages[0] > scope.pages[1]:
        raise InputError("Choose a page range whose first page is not after its last page.")
    sources = _source_chunks(gate, doc_id, scope)
    result = QuizResult()
    with gate.tracer.request("quiz", scope.subject_id) as trace:
        on_stage("draft", 0)
        candidates = _draft_candidates(gate, trace, sources, count, kinds)
        for number, candidate in enumerate(candidates, start=1):
            on_stage("check", number)
            _check_one(gate, trace, candidate, sources, scope, number, doc_id, result)
        trace.finish("answered" if result.items else "refused", None, len(candidates))
    result.request_id, result.spans = trace.id, trace.spans
    return result


def _source_chunks(gate: Gate, doc_id: str, scope: Scope) -> list[Hit]:
    """Chunks of the page range, spread evenly when there are more than fit one prompt."""
    rows = gate.store.query(
        "SELECT c.id, c.doc_id, d.title, c.page_no, c.text, c.bboxes, c.word_boxes FROM chunks c "
        "JOIN documents d ON d.id = c.doc_id WHERE c.doc_id = ? AND d.status = 'ready' "
        "AND c.page_no BETWEEN ? AND ? ORDER BY c.page_no, c.ord", [doc_id, *scope.pages])
    if not rows:
        raise InputError(f"Pages {scope.pages[0]}–{scope.pages[1]} have no text to make questions "
                         "from; pick another range (scanned pages must be reviewed first).")
    step = max(1, len(rows) // MAX_SOURCE_CHUNKS)
    return [Hit(*row) for row in rows[::step][:MAX_SOURCE_CHUNKS]]


def _draft_candidates(gate: Gate, trace, sources: list[Hit], count: int, kinds: str):
    """Ask the drafter for candidates; a malformed batch yields none."""
    kind_rule = {"mcq": "All items MCQ.", "short": "All items short answer."}.get(kinds, "Mix MCQ and short answer.")
    evidence = prompts.evidence_block([(h.id, h.page_no, h.text) for h in sources])
    messages = [{"role": "system", "content": prompts.QUIZ_SYSTEM},
                {"role": "user", "content": f"Source chunks:\n{evidence}\n\nWrite {count} items. {kind_rule}"}]
    try:
        batch = traced_call(gate.drafter, trace, "quiz_draft", messages, QuizBatch, 0)
    except Rejected:
        return []
    return batch.items[:count]


def _check_one(gate: Gate, trace, item: QuizCandidate, sources: list[Hit], scope: Scope,
               number: int, doc_id: str, result: QuizResult) -> None:
    """Run one candidate through the gate and file it as accepted or rejected."""
    try:
        cited = _check_structure(item, sources)
        evidence = _re_retrieve(gate, trace, item, scope, number)
        _blind_check(gate, trace, item, evidence, number)
        _key_support(gate, trace, item, evidence + cited, number)
    except Rejected as rejection:
        trace_rejection(trace, rejection.code, number)
        result.rejected[rejection.code] = result.rejected.get(rejection.code, 0) + 1
        return
    result.items.append(_store_item(gate, trace.id, doc_id, item, cited))


def _check_structure(item: QuizCandidate, sources: list[Hit]) -> list[Hit]:
    """Schema sense, known chunk IDs, and quotes that are literal substrings of the sources."""
    if item.kind == "mcq" and (len(item.options) < 3 or item.answer_index is None
                               or not 0 <= item.answer_index < len(item.options)):
        raise Rejected("schema_invalid")
    by_id = {h.id: h for h in sources}
    if not item.source_chunk_ids or any(c not in by_id for c in item.source_chunk_ids):
        raise Rejected("unknown_chunk_id")
    cited = [by_id[c] for c in dict.fromkeys(item.source_chunk_ids)]
    source_text = normalise_space(" ".join(h.text for h in cited))
    if not item.quotes or any(normalise_space(q) not in source_text for q in item.quotes):
        raise Rejected("quote_not_literal")
    return cited


def normalise_space(text: str) -> str:
    """Collapse whitespace runs so line breaks in the PDF do not break a literal match."""
    return re.sub(r"\s+", " ", text).strip()


def _re_retrieve(gate: Gate, trace, item: QuizCandidate, scope: Scope, number: int) -> list[Hit]:
    """Find evidence again from the stem and options alone, as a student's search would."""
    query = " ".join([item.stem, *item.options])
    with trace.span("retrieve", attempt=number) as span:
        found = search(gate.store, gate.embedder, query, scope, gate.limits.top_k,
                       gate.limits.rrf_k, gate.limits.min_relevance, gate.candidates)
        span.record(outcome="ok" if found.supported else "rejected")
    if not found.supported:
        raise Rejected("blind_unanswerable")
    return found.hits


def _blind_check(gate: Gate, trace, item: QuizCandidate, evidence: list[Hit], number: int) -> None:
    """The verifier answers without key, rationale or quotes; its answer must match the key."""
    options = "".join(f"\n{i}. {o}" for i, o in enumerate(item.options))
    user = (f"Evidence:\n{prompts.evidence_block([(h.id, h.page_no, h.text) for h in evidence])}"
            f"\n\nQuestion: {item.stem}{options}")
    messages = [{"role": "system", "content": prompts.QUIZ_BLIND_SYSTEM}, {"role": "user", "content": user}]
    solved = traced_call(gate.verifier, trace, "blind_solve", messages, QuizBlindAnswer, number)
    if not solved.answerable:
        raise Rejected("blind_unanswerable")
    if item.kind == "mcq":
        if solved.choice_index != item.answer_index:
            raise Rejected("key_mismatch")
        return
    _short_agreement(gate, trace, item, solved.answer_text, number)


def _short_agreement(gate: Gate, trace, item: QuizCandidate, blind_answer: str, number: int) -> None:
    """Short answers agree when the verifier judges them to state the same fact."""
    user = f"Question: {item.stem}\nAnswer A: {item.answer_text}\nAnswer B: {blind_answer}"
    messages = [{"role": "system", "content": prompts.AGREEMENT_SYSTEM}, {"role": "user", "content": user}]
    if not traced_call(gate.verifier, trace, "agreement", messages, AgreementVerdict, number).agrees:
        raise Rejected("answer_mismatch")


def _key_support(gate: Gate, trace, item: QuizCandidate, evidence: list[Hit], number: int) -> None:
    """The evidence must state the key and the rationale."""
    unique = list({h.id: h for h in evidence}.values())
    user = (f"Evidence:\n{prompts.evidence_block([(h.id, h.page_no, h.text) for h in unique])}\n\n"
            f"Question: {item.stem}\nKey: {item.answer_text}\nRationale: {item.rationale}")
    messages = [{"role": "system", "content": prompts.KEY_SUPPORT_SYSTEM}, {"role": "user", "content": user}]
    if not traced_call(gate.verifier, trace, "support_check", messages, KeySupportVerdict, number).supported:
        raise Rejected("key_unsupported")


def _store_item(gate: Gate, request_id: str, doc_id: str, item: QuizCandidate,
                cited: list[Hit]) -> QuizItem:
    """Keep an accepted item so the learner can come back to it."""
    stored = QuizItem(uuid.uuid4().hex[:12], item, sorted({h.page_no for h in cited}))
    gate.store.execute("INSERT INTO quiz_items (id, request_id, doc_id, item_json) VALUES (?, ?, ?, ?)",
                       [stored.id, request_id, doc_id, json.dumps({**item.model_dump(), "pages": stored.pages})],
                       library=False)
    return stored
