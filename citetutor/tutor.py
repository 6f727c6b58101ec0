"""The answer gate: nothing reaches the learner before code and a second model agree."""

from __future__ import annotations

import json
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from functools import partial
from typing import Callable, Literal

from citetutor import answer_cache, prompts
from citetutor.checks import (
    Rejected,
    abstains,
    agrees_with_blind,
    copied_without_choice,
    cut_off,
    guard,
    guard_each_claim_on_topic,
    holding_words,
    new_words,
    recited,
    uncovered_detail,
    unlabelled,
    verbatim,
)
from citetutor.config import NOT_ENOUGH_EVIDENCE
from citetutor.errors import InputError
from citetutor.evidence import Sentence, number_evidence, sentence_boxes, stems
from citetutor.foils import other_alternative
from citetutor.gate import (
    Gate,
    StageCallback,
    draft_messages,
    ignore_stage,
    trace_rejection,
    traced_call,
    verify_messages,
)
from citetutor.meaning import Judgement, claim_foils, judge_against_blind, judge_claim
from citetutor.parts import closest_part, question_parts, uncovered_parts
from citetutor.quotes import agreed_quote, copied_quote
from citetutor.retrieval import Retrieval, Scope
from citetutor.schemas import BlindSolve, Claim, Draft
from citetutor.states import Reason

Mode = Literal["explain", "hint"]


@dataclass(frozen=True)
class Citation:
    """Cited sentences of one chunk, resolved by code to document, page and line boxes."""

    chunk_id: str
    doc_id: str
    title: str
    page_no: int
    text: str  # the cited sentences, as they stand in the document
    bboxes: str  # JSON line boxes of those sentences only


@dataclass
class TutorAnswer:
    """What the Tutor page shows: a verified answer with citations, or the refusal."""

    status: Literal["answered", "refused"]
    text: str
    citations: list[Citation] = field(default_factory=list)
    claims: list[tuple[str, list[str]]] = field(default_factory=list)
    attempts: int = 0
    reasons: list[str] = field(default_factory=list)
    relevance: float = 0.0  # best cosine of question and notes: how close the notes came
    nearby: list[Citation] = field(default_factory=list)  # closest pages retrieved (no quote, no boxes)
    request_id: str = ""
    spans: list[dict] = field(default_factory=list)

    @property
    def from_cache(self) -> bool:
        """Whether this answer was checked earlier and served from the answer cache."""
        return any(s["name"] == "cache" and s.get("outcome") == "hit" for s in self.spans)
    form: Literal["checked", "quote"] = "checked"  # model wording that passed, or the notes' own words
    missing_parts: list[str] = field(default_factory=list)  # parts of the question the notes do not cover
    unused_names: list[str] = field(default_factory=list)  # names the question gives that the notes never use


SourcesCallback = Callable[[list["Citation"]], None]


def answer(gate: Gate, question: str, scope: Scope, mode: Mode = "explain",
           learner_notes: str = "", on_stage: StageCallback = ignore_stage,
           on_sources: SourcesCallback = lambda pages: None) -> TutorAnswer:
    """Retrieve, draft, check and verify; show the draft only if every check passes.

    `on_sources` gets the pages about to be checked as soon as retrieval has found them, from
    the same retrieval the gate uses (the page shows them while the models run)."""
    question = question.strip()
    if not question:
        raise InputError("Type a question first, e.g. 'What is centripetal acceleration?'.")
    with gate.tracer.request("tutor", scope.subject_id, question) as trace:
        result = _run(gate, trace, question, scope, mode, learner_notes, on_stage, on_sources)
        last_reason = result.reasons[-1] if result.status == "refused" and result.reasons else None
        trace.finish(result.status, last_reason, result.attempts)
    result.request_id, result.spans = trace.id, trace.spans
    return result


def _run(gate: Gate, trace, question: str, scope: Scope, mode: Mode, notes: str,
         on_stage: StageCallback, on_sources: SourcesCallback) -> TutorAnswer:
    """The gate's steps inside one traced request."""
    on_stage("retrieve", 0)
    found = retrieve(gate, trace, question, scope)
    nearby = pages_of(found)
    if found.supported:
        on_sources(nearby)
    if not found.supported:
        result = _refuse([Reason.NO_EVIDENCE if not found.hits else Reason.LOW_RELEVANCE], 0, found.best_cosine)
    else:
        sentences, relevance = number_sentences(gate, trace, question, found)
        if relevance < gate.limits.min_sentence_relevance:
            result = _refuse([Reason.LOW_RELEVANCE], 0, relevance)
        else:
            result = _gated(gate, trace, question, sentences, mode, notes, on_stage)
            result.relevance = relevance
    result.nearby, result.unused_names = nearby, found.unused_names
    return result


def number_sentences(gate: Gate, trace, question: str, found: Retrieval) -> tuple[list[Sentence], float]:
    """The evidence sentences and the best one's cosine (the pre-gate's second half), as one span."""
    with trace.span("evidence") as span:
        sentences = evidence_sentences(gate, question, found)
        best = max((s.cosine for s in sentences), default=0.0)
        if best < gate.limits.min_sentence_relevance:  # one part of a multi-part question may be close
            best = max(best, closest_part(gate.embedder, question_parts(question), sentences))
        passed = best >= gate.limits.min_sentence_relevance
        span.record(outcome="ok" if passed else "rejected", reason=None if passed else Reason.LOW_RELEVANCE)
    return sentences, best


def evidence_sentences(gate: Gate, question: str, found: Retrieval) -> list[Sentence]:
    """The numbered evidence sentences the models read (none below the chunk floor)."""
    if not found.supported:
        return []
    return number_evidence(found.hits, question, gate.embedder, gate.limits.evidence_sentences)


def _gated(gate: Gate, trace, question: str, sentences: list[Sentence], mode: Mode, notes: str,
           on_stage: StageCallback) -> TutorAnswer:
    """Everything after the pre-gate: cache, drafts and checks."""
    key = answer_cache.cache_key(question, mode, notes, [s.text for s in sentences],
                                 (gate.drafter.name, gate.verifier.name), gate.limits)
    with trace.span("cache") as span:
        cached = answer_cache.lookup(gate.store, key)
        span.record(outcome="hit" if cached else "miss")
    if cached:
        return answer_from_fields(cached)
    on_stage("blind_solve", 0)  # called here: UI callbacks must run on the caller's thread
    parts = question_parts(question)
    missing = uncovered_parts(gate.embedder, parts, sentences, gate.limits.min_sentence_relevance)
    covered = [p for p in parts if p not in missing] if len(parts) > 1 else []
    deadline = time.monotonic() + gate.question_deadline_s
    pool = ThreadPoolExecutor(max_workers=1)
    try:
        blind = pool.submit(solve_blind, gate, trace, question, sentences)
        if not gate.parallel_blind_solve:
            _wait(blind, deadline)
        result = _attempts(gate, trace, question, sentences, mode, notes, blind, on_stage, deadline,
                           covered)
    except Rejected as late:  # only the deadline escapes the attempts
        result = _refuse([late.code], 0)
    finally:
        pool.shutdown(wait=False)  # past the deadline, a still-running blind solve is abandoned
    if result.status == "answered":
        result.missing_parts = missing
        answer_cache.keep(gate.store, key, result)
    return result


def draft_only(gate: Gate, question: str, scope: Scope, mode: Mode = "explain") -> Draft | None:
    """Retrieval and one unchecked draft: the baseline the eval times the gate against."""
    with gate.tracer.request("draft_only", scope.subject_id) as trace:
        found = retrieve(gate, trace, question, scope)
        draft = None
        if found.supported:
            sentences, _ = number_sentences(gate, trace, question, found)
            try:
                draft = write_draft(gate, trace, question, sentences, mode, "", "", 1, ignore_stage)
            except Rejected:
                pass
        trace.finish("answered" if draft else "refused", None, 1)
    return draft


def retrieve(gate: Gate, trace, question: str, scope: Scope) -> Retrieval:
    """Hybrid retrieval with the semantic pre-gate, as one span."""
    with trace.span("retrieve") as span:
        found = gate.search(question, scope)
        span.record(outcome="ok" if found.supported else "rejected",
                    reason=None if found.supported else Reason.LOW_RELEVANCE)
    return found


def pages_of(found: Retrieval, most: int = 3) -> list[Citation]:
    """The distinct pages retrieval found, best first, as citations without quote or boxes."""
    pages = dict.fromkeys((h.doc_id, h.title, h.page_no) for h in found.hits)
    return [Citation("", doc, title, page, "", "[]") for doc, title, page in pages][:most]



def answer_from_fields(fields: dict) -> TutorAnswer:
    """A TutorAnswer from its `dataclasses.asdict` fields (cache and chat history)."""
    fields = dict(fields)
    citations = [Citation(**c) for c in fields.pop("citations")]
    claims = [(text, ids) for text, ids in fields.pop("claims")]
    nearby = [Citation(**n) for n in fields.pop("nearby", [])]
    return TutorAnswer(citations=citations, claims=claims, nearby=nearby, **fields)


def refusal_reason(result: TutorAnswer) -> str:
    """Why nothing was shown, in a learner's words, naming the pages that were tried."""
    pages = _pages_phrase(result.nearby)
    # A repeated draft ends the attempts; the rejection it repeated says what was wrong.
    last = next((r for r in reversed(result.reasons) if r != Reason.REPEATED_DRAFT), "")
    if last == Reason.LOW_RELEVANCE and result.unused_names:
        return f"Your notes never mention {_listed(result.unused_names)}, so they cannot answer this question."
    if last in (Reason.LOW_RELEVANCE, Reason.NO_EVIDENCE):
        return "Your notes don't seem to cover this question" + (
            f" (the closest passages, {pages}, are about something else)." if pages else ".")
    if last == Reason.DEADLINE:
        return "Checking took longer than the time limit, so no unchecked answer was shown."
    if last == Reason.BLIND_UNANSWERABLE:
        return f"The verifier read {pages or 'the closest passages'} and found no sentence that answers it."
    return (f"Drafts could not be verified against {pages or 'your notes'}: every draft said "
            "something its cited sentences do not.")


def _listed(words: list[str]) -> str:
    """'Winkel', 'WGS84 and NAD27', 'A, B and C'."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _pages_phrase(nearby: list[Citation]) -> str:
    """'p. 3', 'pp. 3 and 5', 'pp. 2, 3 and 9' (pages of one document), or titled for several."""
    titles = {c.title for c in nearby}
    parts = [f"{c.page_no}" if len(titles) == 1 else f"{c.title} p. {c.page_no}" for c in nearby]
    if not parts:
        return ""
    prefix = ("p. " if len(parts) == 1 else "pp. ") if len(titles) == 1 else ""
    return prefix + _listed(parts)


def _wait(blind: Future, deadline: float) -> BlindSolve:
    """The blind solve's result, or a 'deadline' rejection when the question has run out of time."""
    try:
        return blind.result(timeout=max(0.0, deadline - time.monotonic()))
    except FutureTimeout as exc:
        raise Rejected(Reason.DEADLINE) from exc


def _attempts(gate: Gate, trace, question: str, sentences: list[Sentence], mode: Mode, notes: str,
              blind: Future, on_stage: StageCallback, deadline: float, parts: list[str]) -> TutorAnswer:
    """Up to max_attempts drafts, each retried with the previous rejection reason, in time;
    then the notes' sentences the drafter copies when asked, if they pass every check, or the
    sentences drafter and blind solver agreed on, verbatim, or a refusal."""
    reasons: list[str] = []
    rejected: list[Draft] = []
    feedback = ""
    solved: BlindSolve | None = None
    for attempt in range(1, gate.limits.max_attempts + 1):
        if time.monotonic() > deadline:
            reasons.append(Reason.DEADLINE)
            return _refuse(reasons, attempt - 1)
        draft = None
        try:
            draft = write_draft(gate, trace, question, sentences, mode, notes, feedback, attempt, on_stage,
                                parts)
            if draft in rejected:
                # Every check depends only on the draft, so a repeat fails again; and its
                # feedback would be the same, so greedy decoding would repeat it once more.
                reasons.append(Reason.REPEATED_DRAFT)
                trace_rejection(trace, Reason.REPEATED_DRAFT, attempt)
                break
            uncovered = guard(question, draft, sentences, gate.limits.min_paraphrase_overlap,
                              gate.limits.min_topic_relevance, mode, gate.embedder)
            try:
                solved = _wait(blind, deadline)
            except Rejected:
                reasons.append(Reason.DEADLINE)
                return _refuse(reasons, attempt)
            if not solved.sentences and not cut_off(solved.answer):
                reasons.append(Reason.BLIND_UNANSWERABLE)
                return _refuse(reasons, attempt)  # more drafts cannot change the evidence
            verify_draft(gate, trace, question, sentences, draft, solved, uncovered, attempt, on_stage)
        except Rejected as rejection:
            _record_rejection(trace, rejection, attempt, draft, reasons, rejected)
            feedback = f"{prompts.REJECTION_FEEDBACK[rejection.code]} {rejection.detail}".strip()
            continue
        return _accept(question, draft, sentences, attempt, reasons)
    if mode != "hint" and time.monotonic() <= deadline:  # a hint must not copy out the answer
        copied = _copied_answer(gate, trace, question, sentences, blind, deadline, attempt, on_stage, parts,
                                rejected, reasons)
        if copied is not None:
            return copied
    if solved is None and rejected:  # every draft failed a code check before the blind solve was read
        try:
            solved = _wait(blind, deadline)
        except Rejected:
            reasons.append(Reason.DEADLINE)
    quote = agreed_quote(gate.embedder, question, sentences, rejected, solved,
                         gate.limits.min_quote_relevance)
    return _quoted(quote, attempt, reasons) if quote else _refuse(reasons, attempt)


def _copied_answer(gate: Gate, trace, question: str, sentences: list[Sentence], blind: Future, deadline: float,
                   attempt: int, on_stage: StageCallback, parts: list[str], rejected: list[Draft],
                   reasons: list[str]) -> TutorAnswer | None:
    """When no wording passed: the sentences the drafter copies when asked for the notes' own
    words, shown as a quote if they pass every check a draft must and the blind solver found an
    answer (not a slide title) to agree with; else None, with a failed copy kept in `rejected`."""
    copy = None
    try:
        copy = ask_to_copy(gate, trace, question, sentences, attempt, on_stage, parts)
        if copy is None or copy in rejected:
            return None
        uncovered = guard(question, copy, sentences, gate.limits.min_paraphrase_overlap,
                          gate.limits.min_topic_relevance, "explain", gate.embedder)
        solved = _wait(blind, deadline)
        if not solved.sentences or abstains(solved.answer):
            return None
        # A quote needs an answer found independently: a default copy by the solver is none.
        if copied_without_choice(solved, sentences) and not agrees_with_blind(gate.embedder, question, copy, solved):
            return None
        verify_draft(gate, trace, question, sentences, copy, solved, uncovered, attempt, on_stage)
    except Rejected as rejection:
        _record_rejection(trace, rejection, attempt, copy, reasons, rejected)
        return None
    by_number = {s.number: s for s in sentences}
    return _quoted([by_number[c.sentences[0]] for c in copy.claims], attempt, reasons)


def _record_rejection(trace, rejection: Rejected, attempt: int, draft: Draft | None, reasons: list[str],
                      rejected: list[Draft]) -> None:
    """Note why a draft failed (traced) and keep the draft, if there was one, for the agreed quote."""
    reasons.append(rejection.code)
    trace_rejection(trace, rejection.code, attempt)
    if draft is not None:
        rejected.append(draft)


def verify_draft(gate: Gate, trace, question: str, sentences: list[Sentence], draft: Draft,
                 solved: BlindSolve, uncovered: list[int], attempt: int,
                 on_stage: StageCallback = ignore_stage, seen: list[Judgement] | None = None) -> None:
    """After the code checks: agreement with the blind solve, then each claim's meaning.

    A blind solve that only copied a slide title found no answer to agree or disagree with:
    then every claim, not just those the words cannot vouch for, goes to the meaning judge. So
    did one that ran into its length limit before citing any sentence (`cut_off`; a solver that
    cites none and finishes found none, and the draft was refused before it came here): asked
    how many kinds of monism there are, the 0.5B listed "S1, S2, S3, …" until its limit. One
    that only copied a sentence without choosing it (`copied_without_choice`) is no answer of its
    own either: weighed against it, a draft is refused only when the judge clearly prefers the
    copy (an answer from a neighbouring sentence did lose so, by 0.73 nats), and otherwise every
    claim goes to the judge (right drafts scored -0.13 to +0.30 nats against such copies).

    Against such a copy, "every claim" leaves out one copied word for word from its sentence
    (`verbatim`), which each claim's on-topic check has already placed on the question: asked
    whether the notes state their own words rather than their denial, the judge barely leans
    (a right copy on dropping patients with missing values led by 0.18 nats and was refused),
    so that reading decides nothing. Such a claim still meets its flips, if it has any."""
    if abstains(solved.answer) or not solved.sentences:
        uncovered = list(range(1, len(draft.claims) + 1))
    elif not agrees_with_blind(gate.embedder, question, draft, solved):
        on_stage("support_check", attempt)
        verdict = _judged(gate, trace, attempt, Reason.BLIND_DISAGREES, seen, partial(
            judge_against_blind, gate.meaning_judge, sentences, question, draft.answer, solved.answer))
        if copied_without_choice(solved, sentences) and not verdict.lost:
            guard_each_claim_on_topic(question, question_parts(question), draft, sentences,
                                      gate.limits.min_topic_relevance)
            uncovered = [number for number, claim in enumerate(draft.claims, start=1)
                         if number in uncovered or not verbatim(claim, sentences)]
        elif not verdict.holds:
            raise Rejected(Reason.BLIND_DISAGREES)
    check_meaning(gate, trace, question, sentences, draft, uncovered, attempt, on_stage, seen)


def check_meaning(gate: Gate, trace, question: str, sentences: list[Sentence], draft: Draft,
                  uncovered: list[int], attempt: int, on_stage: StageCallback,
                  seen: list[Judgement] | None = None) -> None:
    """Each claim the words cannot vouch for, that has a flip, or that has a word of the question
    or of another sentence where its sentence has another, goes to the meaning judge (`seen`
    collects its judgements, for the flip test)."""
    by_number = {s.number: s for s in sentences}
    evidence = [s.text for s in sentences]
    foils = {number: claim_foils(claim.text, [by_number[n].text for n in claim.sentences], question, evidence)
             for number, claim in enumerate(draft.claims, start=1)}
    offered = {number: other_alternative(claim.text, question) for number, claim in enumerate(draft.claims, start=1)}
    judged = [(number, claim) for number, claim in enumerate(draft.claims, start=1)
              if number in uncovered
              or ((foils[number][1] or foils[number][2]) and not verbatim(claim, sentences))
              or foils[number][0] or offered[number]]
    if not judged:
        return
    on_stage("support_check", attempt)
    for number, claim in judged:
        # A claim in other words than its sentences that the judge did not find stated is
        # "uncovered"; one whose words are there but whose meaning lost to its flip, "unsupported".
        reason = Reason.UNCOVERED_CLAIM if number in uncovered else Reason.UNSUPPORTED_CLAIM
        verdict = _judged(gate, trace, attempt, reason, seen, partial(
            judge_claim, gate.meaning_judge, sentences, question, claim.text, claim.sentences,
            words_held=number not in uncovered, foils=[*foils[number][0], *foils[number][1]],
            exchanges=foils[number][2], against_denial=True, offered=offered[number]))
        if not verdict.holds:
            raise Rejected(reason, uncovered_detail(number, claim, question, sentences))


def _judged(gate: Gate, trace, attempt: int, reason: str, seen: list[Judgement] | None,
            judging: Callable[[], Judgement]) -> Judgement:
    """One meaning-judge verdict as a traced support_check span (`seen` collects it, for the flip test)."""
    with trace.span("support_check", model=gate.meaning_judge.name, attempt=attempt) as span:
        verdict = judging()
        span.record(outcome="ok" if verdict.holds else "rejected", reason=None if verdict.holds else reason)
    if seen is not None:
        seen.append(verdict)
    return verdict


def _quoted(quote: list[Sentence], attempts: int, reasons: list[str]) -> TutorAnswer:
    """The agreed sentences as the answer: the notes' words, with their pages and highlights."""
    return TutorAnswer("answered", " ".join(s.text for s in quote), citations(quote),
                       [(s.text, [s.label]) for s in quote], attempts, reasons, form="quote")


def ask_to_copy(gate: Gate, trace, question: str, sentences: list[Sentence], attempt: int,
                on_stage: StageCallback, parts: list[str]) -> Draft | None:
    """The notes' sentences the drafter copies when asked to, each whole as a claim (one per
    part), or None when it copied none close to the question."""
    copy = write_draft(gate, trace, question, sentences, "explain", "", "", attempt, on_stage, parts,
                       task=prompts.DRAFT_COPY)
    return copied_quote(copy, sentences, max(1, len(parts)), gate.limits.min_quote_relevance)


def write_draft(gate: Gate, trace, question: str, sentences: list[Sentence], mode: Mode, notes: str,
                feedback: str, attempt: int, on_stage: StageCallback, parts: tuple[str, ...] | list[str] = (),
                task: str = "") -> Draft:
    """Ask the drafter for claims citing sentence numbers; a schema failure is a rejection.

    A retry appends what was wrong to the same request. (Showing the rejected draft back as
    the drafter's own turn made the 1.5B drafter repeat it word for word more often.) A claim
    cited to a neighbour of the one sentence that holds all its words is cited to that sentence.
    """
    on_stage("draft", attempt)
    then = ""
    if parts:  # a multi-part question: one claim per part the notes cover
        then += prompts.DRAFT_PARTS.format(parts="\n".join(f"{i}) {p}" for i, p in enumerate(parts, 1)))
    if notes.strip():
        then += prompts.DRAFT_NOTES.format(notes=notes.strip())
    if feedback:
        then += prompts.DRAFT_RETRY.format(feedback=feedback)
    messages = draft_messages(sentences, question, task or prompts.DRAFT_MODE[mode], then)
    drafted = unlabelled(traced_call(gate.drafter, trace, "draft", messages, Draft, attempt))
    return recited(question, drafted, sentences, gate.limits.min_topic_relevance)


def solve_blind(gate: Gate, trace, question: str, sentences: list[Sentence]) -> BlindSolve:
    """The verifier answers from the evidence alone: no draft, no learner notes."""
    task = prompts.BLIND_TASK.format(question=question)
    try:
        solved = traced_call(gate.verifier, trace, "blind_solve", verify_messages(sentences, task),
                             BlindSolve, 0)
    except Rejected:
        return BlindSolve(answer="", sentences=[])
    known = {s.number for s in sentences}
    return solved.model_copy(update={"sentences": [n for n in solved.sentences if n in known]})


def _accept(question: str, draft: Draft, sentences: list[Sentence], attempt: int,
            reasons: list[str]) -> TutorAnswer:
    """Build the displayed answer; citations are resolved to spans and pages by code."""
    by_number = {s.number: s for s in sentences}
    holding = [_holding(question, claim, by_number) for claim in draft.claims]
    resting = {n for claim, numbers in zip(draft.claims, holding)
               for n in [*numbers, *_completing(question, claim, numbers, sentences)]}
    cited = [by_number[n] for n in sorted(resting)]
    return TutorAnswer("answered", draft.answer, citations(cited),
                       [(c.text, [by_number[n].label for n in numbers]) for c, numbers in zip(draft.claims, holding)],
                       attempt, reasons)


def _completing(question: str, claim: Claim, numbers: list[int], sentences: list[Sentence]) -> list[int]:
    """Uncited sentences of the same passages that hold words of the claim its cited ones lack.

    A definition's "directed towards the centre" once came from the sentence after the cited
    one, and the highlight covered half of what the answer said: every sentence an answer
    rests on is marked.
    """
    cited = [s for s in sentences if s.number in numbers]
    missing = new_words(claim.text, question) - {w for s in cited for w in stems(s.text)}
    chunks = {s.hit.id for s in cited}
    return [s.number for s in sentences if s.number not in numbers and s.hit.id in chunks
            and missing & set(stems(s.text))]


def _holding(question: str, claim: Claim, by_number: dict[int, Sentence]) -> list[int]:
    """The claim's cited sentences that hold some of what it adds to the question.

    Drafters pad citations: "T = 2πr / v" once cited the formula on p. 9 and a section heading
    on p. 3 that says none of it. A learner who opens a citation should find the claim there,
    so a sentence holding none of the claim's words is not shown (it added nothing to the
    coverage check either). If none holds any, all stay: the checks passed on them together.
    """
    return holding_words(question, claim, by_number) or claim.sentences


def citations(cited: list[Sentence]) -> list[Citation]:
    """One citation per chunk, quoting its cited sentences and boxing only their lines."""
    by_chunk: dict[str, list[Sentence]] = {}
    for sentence in cited:
        by_chunk.setdefault(sentence.hit.id, []).append(sentence)
    return [Citation(group[0].hit.id, group[0].hit.doc_id, group[0].hit.title, group[0].hit.page_no,
                     " … ".join(s.text for s in group),
                     json.dumps([box for s in group for box in sentence_boxes(s)]))
            for group in by_chunk.values()]


def _refuse(reasons: list[str], attempts: int, relevance: float = 0.0) -> TutorAnswer:
    """The honest answer when nothing passed."""
    return TutorAnswer("refused", NOT_ENOUGH_EVIDENCE, attempts=attempts, reasons=reasons,
                       relevance=relevance)
