"""The quiz gate: a question is kept only if a solver that never sees the key gets it right."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field

from citetutor import catalog, prompts
from citetutor.checks import Rejected, check_known, covers, new_words, same_meaning
from citetutor.errors import InputError
from citetutor.evidence import Sentence, evidence_block, number_evidence, number_in_order
from citetutor.gate import Gate, StageCallback, ignore_stage, trace_rejection, traced_call, verify_messages
from citetutor.retrieval import Hit, Scope
from citetutor.schemas import QUIZ_SCHEMAS, KeySupportVerdict, QuizBlindAnswer, QuizCandidate
from citetutor.states import Reason

MAX_SOURCE_CHUNKS = 8
MAX_SOURCE_SENTENCES = 24


@dataclass
class QuizItem:
    """An accepted question with the sentences (and pages) that state its answer."""

    id: str
    candidate: QuizCandidate
    pages: list[int]
    quotes: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        """The correct answer as the learner sees it."""
        return key_of(self.candidate)


@dataclass
class QuizResult:
    """Accepted items and why the others were dropped."""

    items: list[QuizItem] = field(default_factory=list)
    rejected: dict[str, int] = field(default_factory=dict)
    request_id: str = ""
    spans: list[dict] = field(default_factory=list)

    def reject(self, code: str) -> None:
        """Count one candidate the gate dropped, by reason."""
        self.rejected[code] = self.rejected.get(code, 0) + 1

    @property
    def rejected_count(self) -> int:
        """How many candidates the gate dropped."""
        return sum(self.rejected.values())


def make_quiz(gate: Gate, doc_id: str, scope: Scope, count: int = 5, kinds: str = "mixed",
              on_stage: StageCallback = ignore_stage) -> QuizResult:
    """Draft `count` candidates from the page range and keep those that pass every check."""
    if scope.pages is None or scope.pages[0] > scope.pages[1]:
        raise InputError("Choose a page range whose first page is not after its last page.")
    sources = number_in_order(_source_chunks(gate, doc_id, scope), MAX_SOURCE_SENTENCES)
    result = QuizResult()
    with gate.tracer.request("quiz", scope.subject_id) as trace:
        candidates = _draft_candidates(gate, trace, sources, count, kinds, on_stage)
        for number, candidate in enumerate(candidates, start=1):
            if candidate is None:
                result.reject(Reason.SCHEMA_INVALID)
                continue
            on_stage("check", number)
            _check_one(gate, trace, candidate, sources, scope, number, doc_id, result)
        trace.finish("answered" if result.items else "refused", None, len(candidates))
    result.request_id, result.spans = trace.id, trace.spans
    return result


def _source_chunks(gate: Gate, doc_id: str, scope: Scope) -> list[Hit]:
    """Chunks of the page range, spread evenly when there are more than fit one prompt."""
    assert scope.pages is not None  # make_quiz always passes the learner's range
    rows = catalog.page_range_chunks(gate.store, doc_id, *scope.pages)
    if not rows:
        raise InputError(f"Pages {scope.pages[0]}–{scope.pages[1]} have no text to make questions "
                         "from; pick another range (scanned pages must be reviewed first).")
    step = max(1, len(rows) // MAX_SOURCE_CHUNKS)
    return rows[::step][:MAX_SOURCE_CHUNKS]


def _draft_candidates(gate: Gate, trace, sources: list[Sentence], count: int, kinds: str,
                      on_stage: StageCallback) -> list[QuizCandidate | None]:
    """One candidate per call, each about its own source sentence; None where one was malformed.

    Small models asked for a whole batch degenerate (stems like "S1", no options, cut off at
    the token limit); one question about one named sentence they write well, and every call
    shares the same prompt prefix, so the evidence is read once.
    """
    evidence = evidence_block(sources)
    candidates = []
    for number, focus in enumerate(_focus_sentences(sources, count)):
        kind = kinds if kinds in ("mcq", "short") else ("mcq", "short")[number % 2]
        user = prompts.QUIZ_USER.format(evidence=evidence, label=focus.label,
                                        kind=prompts.QUIZ_KINDS[kind])
        messages = [{"role": "system", "content": prompts.QUIZ_SYSTEM}, {"role": "user", "content": user}]
        on_stage("draft", number + 1)
        try:
            candidates.append(traced_call(gate.drafter, trace, "quiz_draft", messages,
                                          QUIZ_SCHEMAS[kind], number + 1))
        except Rejected:
            candidates.append(None)  # counted as a rejection; the other questions still come
    return candidates


def _focus_sentences(sources: list[Sentence], count: int) -> list[Sentence]:
    """Up to `count` sentences spread over the range, preferring ones written in words."""
    wordy = [s for s in sources if _mostly_words(s.text)] or sources
    if len(wordy) <= count:
        return wordy
    return [wordy[i * len(wordy) // count] for i in range(count)]


def _mostly_words(text: str) -> bool:
    """Prose, not a formula or a table: at least eight tokens, most of them words."""
    tokens = text.split()
    return len(tokens) >= 8 and sum(t.isalpha() for t in tokens) >= 0.6 * len(tokens)


def _check_one(gate: Gate, trace, item: QuizCandidate, sources: list[Sentence], scope: Scope,
               number: int, doc_id: str, result: QuizResult) -> None:
    """Run one candidate through the gate and file it as accepted or rejected."""
    try:
        cited = _check_structure(item, sources, gate.limits.min_claim_overlap)
        evidence = _re_retrieve(gate, trace, item, scope, number)
        _blind_check(gate, trace, item, evidence, number)
        _key_support(gate, trace, item, sources, cited, number)
    except Rejected as rejection:
        trace_rejection(trace, rejection.code, number)
        result.reject(rejection.code)
        return
    result.items.append(_store_item(gate, trace.id, doc_id, item, cited))


def key_of(item: QuizCandidate) -> str:
    """The keyed option of an MCQ, else the short answer."""
    if item.kind == "mcq" and item.answer_index is not None:
        return item.options[item.answer_index]
    return item.answer_text


def _check_structure(item: QuizCandidate, sources: list[Sentence], min_overlap: float) -> list[Sentence]:
    """MCQ sense, known sentence numbers, and a key made of its cited sentences' words."""
    if item.kind == "mcq" and (len(item.options) < 3 or item.answer_index is None
                               or not 0 <= item.answer_index < len(item.options)):
        raise Rejected(Reason.SCHEMA_INVALID)
    check_known(item.sentences, sources)
    if not covers(new_words(key_of(item), item.stem), item.sentences, sources, min_overlap):
        raise Rejected(Reason.UNCOVERED_CLAIM)
    return [s for s in sources if s.number in item.sentences]


def _re_retrieve(gate: Gate, trace, item: QuizCandidate, scope: Scope,
                 number: int) -> list[Sentence]:
    """Find evidence again from the stem and options alone, as a student's search would."""
    query = " ".join([item.stem, *item.options])
    with trace.span("retrieve", attempt=number) as span:
        found = gate.search(query, scope)
        span.record(outcome="ok" if found.supported else "rejected")
    if not found.supported:
        raise Rejected(Reason.BLIND_UNANSWERABLE)
    return number_evidence(found.hits, item.stem, gate.embedder, gate.limits.evidence_sentences)


def _blind_check(gate: Gate, trace, item: QuizCandidate, evidence: list[Sentence], number: int) -> None:
    """The verifier answers without the key or its sentences; its answer must match the key."""
    options = "".join(f"\n{i}. {o}" for i, o in enumerate(item.options))
    task = prompts.QUIZ_BLIND_TASK.format(question=item.stem + options)
    solved = traced_call(gate.verifier, trace, "blind_solve", verify_messages(evidence, task),
                         QuizBlindAnswer, number)
    if not solved.answer_text.strip() and solved.choice_index is None:
        raise Rejected(Reason.BLIND_UNANSWERABLE)
    if item.kind == "mcq":
        if solved.choice_index != item.answer_index:
            raise Rejected(Reason.KEY_MISMATCH)
        return
    if not same_meaning(gate.embedder, item.answer_text, solved.answer_text, item.stem):
        raise Rejected(Reason.ANSWER_MISMATCH)


def _key_support(gate: Gate, trace, item: QuizCandidate, sources: list[Sentence],
                 cited: list[Sentence], number: int) -> None:
    """The verifier reads the key beside the sentences it cites."""
    task = prompts.KEY_SUPPORT_TASK.format(question=item.stem, key=key_of(item),
                                           cited=" ".join(f"[{s.label}] {s.text}" for s in cited))
    verdict = traced_call(gate.verifier, trace, "support_check", verify_messages(sources, task),
                          KeySupportVerdict, number)
    if not verdict.supported:
        raise Rejected(Reason.KEY_UNSUPPORTED)


def _store_item(gate: Gate, request_id: str, doc_id: str, item: QuizCandidate,
                cited: list[Sentence]) -> QuizItem:
    """Keep an accepted item so the learner can come back to it."""
    stored = QuizItem(uuid.uuid4().hex[:12], item, sorted({s.hit.page_no for s in cited}),
                      [s.text for s in cited])
    gate.store.execute("INSERT INTO quiz_items (id, request_id, doc_id, item_json) VALUES (?, ?, ?, ?)",
                       [stored.id, request_id, doc_id,
                        json.dumps({**item.model_dump(), "pages": stored.pages, "quotes": stored.quotes})],
                       library=False)
    return stored
