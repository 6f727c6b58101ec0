"""The quiz gate: a question is kept only if a solver that never sees the key gets it right.

Three kinds of card. A cloze blanks a key term or value of one source sentence and a multiple
choice offers that blank with distractors code draws from the same range (cloze.py): their key
is the notes' own words. A short answer gives a definition the notes state and asks for its
term, the notes' own word (definitions.py); where no sentence defines a term, the model drafts
one and its key is judged against the sentences it cites. Candidates are tried across
the range until the count asked for is kept or the time budget runs out, and each kept item is
handed over as soon as it passes.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from dataclasses import dataclass, field, replace
from typing import Callable, Iterator

from citetutor import cloze, definitions, index, prompts
from citetutor.checks import Rejected, check_known, contents_line, covers, new_words, same_meaning
from citetutor.errors import InputError
from citetutor.evidence import Sentence, evidence_block, number_evidence, number_in_order, sentence_boxes
from citetutor.gate import Gate, StageCallback, ignore_stage, trace_rejection, traced_call, verify_messages
from citetutor.marking import restates, same_term
from citetutor.meaning import judge_claim
from citetutor.models.base import ChatModel
from citetutor.retrieval import Hit, Scope
from citetutor.schemas import QuizBlindAnswer, QuizCandidate, QuizShort
from citetutor.states import Reason

MAX_SOURCE_CHUNKS = 12
MAX_SOURCE_SENTENCES = 40
# A short answer is drafted from its sentence and this many on each side, not the whole range:
# the 1.5B reads ~30 prompt tokens a second here, and the judge after it cannot share its cache.
SHORT_CONTEXT = 4
KINDS = ("cloze", "mcq", "short")
# Stems about the document rather than what it states ("What is the main topic of the passage?").
_ABOUT_THE_TEXT = re.compile(r"\[S\d+\]|\b(passage|text|document|author|slide|lecture|these notes|the notes|"
                             r"main (topic|idea|point)|this section|the sentence|sentences? (state|say)s?)\b",
                             re.IGNORECASE)
# A short answer is retried once with the reason, as the tutor does; these reasons can improve.
_RETRIED = {Reason.SCHEMA_INVALID, Reason.UNCOVERED_CLAIM, Reason.UNKNOWN_SENTENCE, Reason.ABOUT_THE_TEXT,
            Reason.KEY_IN_STEM, Reason.KEY_IS_FORMULA, Reason.NOT_A_QUESTION}

ItemCallback = Callable[["QuizItem"], None]


@dataclass
class QuizItem:
    """An accepted question with the sentences (and pages) that state its answer."""

    id: str
    candidate: QuizCandidate
    pages: list[int]
    quotes: list[str] = field(default_factory=list)
    boxes: list[str] = field(default_factory=list)  # JSON line boxes per page, for highlights

    @property
    def key(self) -> str:
        """The correct answer as the learner sees it."""
        return key_of(self.candidate)


@dataclass
class QuizResult:
    """Accepted items, why the others were dropped, and why the search stopped."""

    items: list[QuizItem] = field(default_factory=list)
    rejected: dict[str, int] = field(default_factory=dict)
    request_id: str = ""
    spans: list[dict] = field(default_factory=list)
    asked: int = 0
    tried: int = 0
    stopped: str = ""  # "budget": time ran out; "exhausted": no sentence left to try; "": count met
    budget_s: float = 0.0
    dropped: list[tuple[str, str, str]] = field(default_factory=list)  # (kind, code, detail), for the eval

    def reject(self, code: str, kind: str = "", detail: str = "") -> None:
        """Count one candidate the gate dropped, by reason."""
        self.rejected[code] = self.rejected.get(code, 0) + 1
        self.dropped.append((kind, code, detail))

    @property
    def rejected_count(self) -> int:
        """How many candidates the gate dropped."""
        return sum(self.rejected.values())

    @property
    def shortfall(self) -> str:
        """Why fewer than asked were kept, in a learner's words; "" when the count was met."""
        if len(self.items) >= self.asked:
            return ""
        found = f"Found {len(self.items)} of {self.asked} after trying {self.tried} candidates"
        if self.stopped == "budget":
            return f"{found}: the {self.budget_s:.0f} s budget ran out. Ask again for more."
        return (f"{found}: every sentence of these pages was tried. Pages of formulas, figures or "
                "lists give few questions; try a wider range.")


def make_quiz(gate: Gate, doc_id: str, scope: Scope, count: int = 5, kinds: str = "mixed",
              on_stage: StageCallback = ignore_stage, on_item: ItemCallback = lambda item: None,
              budget_s: float | None = None, clock: Callable[[], float] = time.monotonic) -> QuizResult:
    """Try candidates across the page range until `count` pass every check or time runs out."""
    if scope.pages is None or scope.pages[0] > scope.pages[1]:
        raise InputError("Choose a page range whose first page is not after its last page.")
    sources = number_in_order(_source_chunks(gate, doc_id, scope), MAX_SOURCE_SENTENCES)
    terms = cloze.range_terms([s.text for s in sources])
    budget = gate.limits.quiz_budget_s if budget_s is None else budget_s
    result = QuizResult(asked=count, budget_s=budget)
    deadline = clock() + budget
    used: set[str] = set()  # keys already kept
    done: set[int] = set()  # sentences already carded
    with gate.tracer.request("quiz", scope.subject_id, f"pages {scope.pages[0]}–{scope.pages[1]}") as trace:
        wanted = KINDS if kinds not in KINDS else (kinds,)
        first = "mcq" if "mcq" in wanted else wanted[0]
        defined = _defining(sources)
        plan = _each_kind(_first_fast(_plan(sources, wanted, set(defined)), result, first), result, count, wanted)
        for number, (kind, focus) in enumerate(plan, start=1):
            if len(result.items) >= count:
                break
            if number > 1 and clock() > deadline:  # at least one candidate, whatever the budget
                result.stopped = "budget"
                break
            if focus.number in done:  # one card per sentence
                continue
            result.tried = number
            attempt = _Attempt(gate, trace, sources, scope, number, on_stage, defined)
            try:
                item, cited = attempt.run(kind, focus, terms, used)
            except Rejected as rejection:
                trace_rejection(trace, rejection.code, number)
                result.reject(rejection.code, kind, rejection.detail)
                continue
            used.add(item.answer_text.lower())
            done.add(focus.number)
            kept = _store_item(gate, trace.id, doc_id, item, cited)
            result.items.append(kept)
            on_item(kept)
        else:
            result.stopped = "exhausted" if len(result.items) < count else ""
        trace.finish("answered" if result.items else "refused", None, result.tried)
    result.request_id, result.spans = trace.id, trace.spans
    return result


def _source_chunks(gate: Gate, doc_id: str, scope: Scope) -> list[Hit]:
    """Chunks of the page range, spread evenly when there are more than fit one prompt."""
    assert scope.pages is not None  # make_quiz always passes the learner's range
    rows = index.page_range_chunks(gate.store, doc_id, *scope.pages)
    if not rows:
        raise InputError(f"Pages {scope.pages[0]}–{scope.pages[1]} have no text to make questions "
                         "from; pick another range (scanned pages must be reviewed first).")
    step = max(1, len(rows) // MAX_SOURCE_CHUNKS)
    return rows[::step][:MAX_SOURCE_CHUNKS]


def _defining(sources: list[Sentence]) -> dict[int, definitions.Definition]:
    """The range's sentences that define a term the range names more than once, by number."""
    texts = [s.text for s in sources]
    found = {s.number: definitions.definition_in(s.text) for s in sources}
    return {n: d for n, d in found.items() if d and definitions.recurs(d.term, texts)}


def _plan(sources: list[Sentence], cycle: tuple[str, ...], defined: set[int]) -> list[tuple[str, Sentence]]:
    """Every prose sentence once, spread over the range (first, middle, last, ...), each with
    the next kind of `cycle` in turn: more candidates than asked, so a dropped one is replaced.
    Sentences that define a term come first as short answers, whatever their length
    ("Licensing requirement = legal barrier to entry."): code makes those cards."""
    order = _spread([s for s in sources if _mostly_words(s.text) or s.number in defined])
    # Then each sentence again as the next kind: slides hold few sentences of prose.
    plan = [(cycle[(i + turn) % len(cycle)], sentence) for turn in range(len(cycle))
            for i, sentence in enumerate(order)]
    if "short" not in cycle:
        return plan
    first = [("short", s) for s in order if s.number in defined]
    return first + [(kind, s) for kind, s in plan if not (kind == "short" and s.number in defined)]


def _first_fast(plan: list[tuple[str, Sentence]], result: QuizResult,
                first: str) -> Iterator[tuple[str, Sentence]]:
    """The plan, with every kind but `first` held back until a first card is kept, so a student
    has something to answer sooner: multiple choice, where the solver picks one of four
    options, passed most often (13 of 23 solved, against 15 of 33 cloze and 5 of 40 short
    answers, on the quiz eval at 2fcb334), and a short answer (a draft, a solve and a judgement)
    is the slowest kind."""
    held = []
    for kind, focus in plan:
        if kind != first and not result.items:
            held.append((kind, focus))
            continue
        yield from held if result.items else ()
        held = [] if result.items else held
        yield kind, focus
    yield from held


def _each_kind(plan: Iterator[tuple[str, Sentence]], result: QuizResult, count: int,
               wanted: tuple[str, ...], patience: int = 3) -> Iterator[tuple[str, Sentence]]:
    """The plan, with candidates of a kind already kept put off once the places left are only
    enough for the kinds not yet kept: a mixed quiz of five had no short answer, or no multiple
    choice, when the easier kinds filled it first. After `patience` more tries of the missing
    kinds, the count comes first again and what was put off follows."""
    put_off: list[tuple[str, Sentence]] = []
    for kind, focus in plan:
        kept = {item.candidate.kind for item in result.items}
        missing = {k for k in wanted if k not in kept}
        if patience > 0 and missing and count - len(result.items) <= len(missing):
            if kind in kept:
                put_off.append((kind, focus))
                continue
            patience -= 1
        elif put_off:
            yield from put_off
            put_off = []
        yield kind, focus
    yield from put_off


def _window(sources: list[Sentence], focus: Sentence, each_side: int) -> list[Sentence]:
    """The focus sentence with its neighbours in reading order."""
    at = sources.index(focus)
    return sources[max(0, at - each_side):at + each_side + 1]


def _spread(items: list[Sentence]) -> list[Sentence]:
    """Items in an order that visits the whole range early: halves, then quarters, ..."""
    order: list[int] = []
    step = len(items)
    while step >= 1 and len(order) < len(items):
        for i in range(0, len(items), step):
            if i not in order:
                order.append(i)
        step //= 2
    return [items[i] for i in order]


def _a_question(stem: str) -> bool:
    """A whole question: four words or more, ending in "?". Drafters also wrote a topic
    ("economics", "fact about period") or the sentence itself as the stem."""
    return stem.rstrip().endswith("?") and len(stem.split()) >= 4


def _formula(key: str) -> bool:
    """A key that is an equation, or mostly maths symbols; a value ("24", "90%", "$24") is not."""
    symbols = sum(not (c.isalnum() or c.isspace() or c in ".,%$-'()") for c in key)
    letters = sum(c.isalpha() for c in key)
    return "=" in key or (symbols >= 2 and letters < len(key.replace(" ", "")) / 2)


def _mostly_words(text: str) -> bool:
    """Prose, not a formula, a table or a contents line: at least eight tokens, most of them words."""
    tokens = text.split()
    return not contents_line(text) and len(tokens) >= 8 and sum(t.isalpha() for t in tokens) >= 0.6 * len(tokens)


@dataclass
class _Attempt:
    """One candidate's way through the gate (numbered for traces and progress)."""

    gate: Gate
    trace: object
    sources: list[Sentence]
    scope: Scope
    number: int
    on_stage: StageCallback
    defined: dict[int, definitions.Definition]

    def run(self, kind: str, focus: Sentence, terms: cloze.RangeTerms,
            used: set[str]) -> tuple[QuizCandidate, list[Sentence]]:
        """Build the candidate, then check it; raises Rejected with the reason it failed."""
        self.on_stage("draft", self.number)
        if kind == "short" and focus.number in self.defined:
            return self._defined(self.defined[focus.number], focus, used)
        if kind == "short":
            return self._short(focus, _window(self.sources, focus, SHORT_CONTEXT))
        card = cloze.blank_in(focus.text, terms, used)
        if card is None:
            raise Rejected(Reason.NO_BLANK)
        item = _mcq_item(card, focus, terms) if kind == "mcq" else _cloze_item(card, focus)
        self.on_stage("check", self.number)
        self._blind_fill(item, focus)
        return item, [focus]

    def _short(self, focus: Sentence, context: list[Sentence]) -> tuple[QuizCandidate, list[Sentence]]:
        """A drafted short answer, retried once with the reason when the reason can help."""
        feedback = ""
        for retry in (False, True):
            try:
                item = self._draft_short(focus, context, feedback)
                self.on_stage("check", self.number)
                cited = self._check_short(item, context)
                return item, cited
            except Rejected as rejection:
                if retry or rejection.code not in _RETRIED:
                    raise
                trace_rejection(self.trace, rejection.code, self.number)
                feedback = prompts.QUIZ_FEEDBACK.get(rejection.code, "")
        raise AssertionError("unreachable")

    def _defined(self, defined: definitions.Definition, focus: Sentence,
                 used: set[str]) -> tuple[QuizCandidate, list[Sentence]]:
        """"Which term means <definition>?", keyed by the notes' term: the meaning judge must name
        it from what a search for the question finds, never shown the key."""
        if defined.term.lower() in used:
            raise Rejected(Reason.NO_BLANK, defined.stem)
        item = QuizCandidate(stem=defined.stem, kind="short", answer_text=defined.term, sentences=[focus.number])
        self.on_stage("check", self.number)
        # Code wrote this key, so no model checks its own work and the judge may solve.
        solved = self._solve(item.stem, self._re_retrieve(item.stem), self.gate.meaning_judge)
        if not same_term(solved.answer_text, item.answer_text):
            raise Rejected(Reason.ANSWER_MISMATCH, f"{item.stem} key {item.answer_text!r}, "
                           f"solver {solved.answer_text!r}")
        return item, [focus]

    def _draft_short(self, focus: Sentence, context: list[Sentence], feedback: str) -> QuizCandidate:
        """The drafter writes one short-answer question whose answer `focus` states."""
        user = prompts.QUIZ_USER.format(evidence=evidence_block(context), label=focus.label)
        if feedback:
            user += prompts.DRAFT_RETRY.format(feedback=feedback)
        messages = [{"role": "system", "content": prompts.QUIZ_SYSTEM}, {"role": "user", "content": user}]
        drafted = traced_call(self.gate.drafter, self.trace, "quiz_draft", messages, QuizShort, self.number)
        return QuizCandidate(kind="short", **drafted.model_dump())

    def _check_short(self, item: QuizCandidate, context: list[Sentence]) -> list[Sentence]:
        """Known sentences, a stem that is a whole question about what the notes state, a key in
        its sentences' words, a blind solver reaching the same answer, and a judge finding the
        key stated."""
        check_known(item.sentences, context)
        if not _a_question(item.stem):
            raise Rejected(Reason.NOT_A_QUESTION, item.stem)
        if _ABOUT_THE_TEXT.search(item.stem):
            raise Rejected(Reason.ABOUT_THE_TEXT, item.stem)
        if restates(item.answer_text, item.stem):  # "What is an example of X?" -> "X"
            raise Rejected(Reason.KEY_IN_STEM, f"{item.stem} key {item.answer_text!r}")
        if _formula(item.answer_text):
            # "What is the formula for the displacement vector?" keyed "Δr = 2r sin(Δθ / 2)": the
            # sentence gave the magnitude of the change, the stem misnamed it, and every check
            # passed on the symbols; nor can a student's typed formula be marked against it.
            raise Rejected(Reason.KEY_IS_FORMULA, f"{item.stem} key {item.answer_text!r}")
        if not covers(new_words(item.answer_text, item.stem), item.sentences, context,
                      self.gate.limits.min_claim_overlap):
            raise Rejected(Reason.UNCOVERED_CLAIM, item.answer_text)
        evidence = self._re_retrieve(item.stem)
        solved = self._solve(item.stem, evidence)
        if not same_meaning(self.gate.embedder, item.answer_text, solved.answer_text, item.stem):
            raise Rejected(Reason.ANSWER_MISMATCH, f"{item.stem} key {item.answer_text!r}, "
                           f"solver {solved.answer_text!r}")
        with self.trace.span("support_check", model=self.gate.meaning_judge.name,  # type: ignore[attr-defined]
                             attempt=self.number) as span:
            verdict = judge_claim(self.gate.meaning_judge, context, item.stem, item.answer_text,
                                  item.sentences)
            span.record(outcome="ok" if verdict.holds else "rejected")
        if not verdict.holds:
            raise Rejected(Reason.KEY_UNSUPPORTED, f"{item.stem} key {item.answer_text!r}")
        return [s for s in context if s.number in item.sentences]

    def _blind_fill(self, item: QuizCandidate, focus: Sentence) -> None:
        """The solver fills the blank (or picks an option) from the notes without the source
        sentence, so it never sees the key; its answer must be the key."""
        query = item.stem.replace(cloze.BLANK, " ")
        evidence = [s for s in self._re_retrieve(query) if not _same_sentence(s.text, focus.text)]
        evidence = [replace(s, number=n) for n, s in enumerate(evidence, start=1)]
        if not evidence:
            raise Rejected(Reason.BLIND_UNANSWERABLE)
        options = "".join(f"\n{i}. {o}" for i, o in enumerate(item.options))
        # The meaning judge solves code-made cards: no model wrote their key, so none checks its
        # own work, and the 0.5B verifier answered blanks with "S2", "A" or the slide's title.
        solved = self._solve(item.stem + options, evidence, self.gate.meaning_judge)
        said = f"{item.stem} key {item.answer_text!r}, solver {solved.answer_text!r} ({solved.choice_index})"
        if item.kind == "mcq":
            # The option it names in words counts first: small models number options loosely.
            named = [i for i, o in enumerate(item.options) if same_term(solved.answer_text, o)]
            picked = named[0] if len(named) == 1 else solved.choice_index
            if picked != item.answer_index:
                raise Rejected(Reason.KEY_MISMATCH, said)
        elif not same_term(solved.answer_text, item.answer_text):
            raise Rejected(Reason.ANSWER_MISMATCH, said)

    def _re_retrieve(self, query: str) -> list[Sentence]:
        """Find evidence again from the question alone, as a student's search would."""
        with self.trace.span("retrieve", attempt=self.number) as span:  # type: ignore[attr-defined]
            found = self.gate.search(query, self.scope)
            span.record(outcome="ok" if found.supported else "rejected")
        if not found.supported:
            raise Rejected(Reason.BLIND_UNANSWERABLE)
        return number_evidence(found.hits, query, self.gate.embedder, self.gate.limits.evidence_sentences)

    def _solve(self, question: str, evidence: list[Sentence], solver: ChatModel | None = None) -> QuizBlindAnswer:
        """A model answers from the evidence, never shown the key (the verifier unless named)."""
        task = prompts.QUIZ_BLIND_TASK.format(question=question)
        solved = traced_call(solver or self.gate.verifier, self.trace, "blind_solve",
                             verify_messages(evidence, task), QuizBlindAnswer, self.number)
        if not solved.answer_text.strip() and solved.choice_index is None:
            raise Rejected(Reason.BLIND_UNANSWERABLE)
        return solved


def _cloze_item(card: cloze.Cloze, focus: Sentence) -> QuizCandidate:
    """A fill-in-the-blank card citing its own sentence."""
    return QuizCandidate(stem=f"Fill in the blank: {card.stem}", kind="cloze", answer_text=card.key,
                         sentences=[focus.number])


def _mcq_item(card: cloze.Cloze, focus: Sentence, terms: cloze.RangeTerms) -> QuizCandidate:
    """The blank with three distractors of the key's kind from the same range."""
    wrong = cloze.distractors(card, terms, seed=focus.text)
    if not wrong:
        raise Rejected(Reason.NO_DISTRACTORS)
    key = card.key if card.value or card.key.isupper() else card.key.lower()
    options = sorted([key, *wrong], key=lambda o: (len(o) * 7919 + sum(map(ord, o))) % 101)
    return QuizCandidate(stem=f"Which completes the sentence? {card.stem}", kind="mcq", options=options,
                         answer_index=options.index(key), answer_text=key, sentences=[focus.number])


def _same_sentence(a: str, b: str) -> bool:
    """Whether two evidence sentences are one sentence cut a little differently."""
    wa, wb = set(a.lower().split()), set(b.lower().split())
    return len(wa & wb) >= 0.8 * min(len(wa), len(wb))


def key_of(item: QuizCandidate) -> str:
    """The keyed option of an MCQ, else the answer text."""
    if item.kind == "mcq" and item.answer_index is not None:
        return item.options[item.answer_index]
    return item.answer_text


def item_from_json(item_id: str, item_json: str) -> QuizItem:
    """A stored item back as the page shows it."""
    data = json.loads(item_json)
    extra = {name: data.pop(name, []) for name in ("pages", "quotes", "boxes")}
    return QuizItem(item_id, QuizCandidate(**data), extra["pages"], extra["quotes"], extra["boxes"])


def _store_item(gate: Gate, request_id: str, doc_id: str, item: QuizCandidate,
                cited: list[Sentence]) -> QuizItem:
    """Keep an accepted item so the learner can come back to it."""
    pages = sorted({s.hit.page_no for s in cited})
    boxes = [json.dumps([b for s in cited if s.hit.page_no == page for b in sentence_boxes(s)])
             for page in pages]
    stored = QuizItem(uuid.uuid4().hex[:12], item, pages, [s.text for s in cited], boxes)
    gate.store.execute("INSERT INTO quiz_items (id, request_id, doc_id, item_json) VALUES (?, ?, ?, ?)",
                       [stored.id, request_id, doc_id,
                        json.dumps({**item.model_dump(), "pages": pages, "quotes": stored.quotes,
                                    "boxes": boxes})],
                       library=False)
    return stored
