"""Which of the notes' own sentences may be shown verbatim when no drafted wording passed.

A quote is never model-written, so what can go wrong is the choice of sentence: one that does
not answer, that only one model pointed at, that asks instead of states, or whose text layer
is not what the page shows. Each rule here was added after such a quote in the eval.
"""

from __future__ import annotations

from citetutor.checks import (
    MIN_VERBATIM_WORDS,
    contents_line,
    doubled,
    holding_words,
    no_choice,
    same_meaning,
    states_answer,
)
from citetutor.evidence import Sentence, sentence_spans
from citetutor.foils import FLAT_WORDS
from citetutor.models.base import Embedder
from citetutor.schemas import BlindSolve, Claim, Draft

MAX_QUOTED = 2  # sentences a verified quote shows
COPIED_SHARE = 0.8  # of a copied piece's words that must be its sentence's


def agreed_quote(embedder: Embedder, question: str, sentences: list[Sentence], drafts: list[Draft],
                 solved: BlindSolve | None, min_relevance: float) -> list[Sentence]:
    """The sentences the drafter rested a claim on that the blind solver chose too, about the
    question by meaning.

    When no model wording passed, the notes' own words can still answer: a sentence two models
    picked independently, and close in meaning to the question, is shown verbatim and labelled
    as a quote. Never a sentence only one of them chose, never a model-written one. The blind
    solver "chose" a sentence when it cited it (a real pick, not a run of numbers) or when the
    sentence states its answer and a drafted claim resting on it says the same: the 0.5B cites
    S1-S3 whatever it read, but its answer ("100", "heritable variation in traits") is often
    copied from the sentence that holds it. The drafter chose a sentence when a claim's words
    rest on it, not when it padded a citation. Both models must mean the same thing there: the
    0.5B once copied "Monopolist produces inefficient level of output ... where P = MC" as how a
    monopolist sets output, while the drafter's claim on that sentence said MR = MC.
    """
    if solved is None:
        return []
    picked = set() if no_choice(solved.sentences) else set(solved.sentences)
    by_number = {s.number: s for s in sentences}
    resting = [(c, holding_words(question, c, by_number)) for d in drafts for c in d.claims]
    rested = {n for _, numbers in resting for n in numbers}
    alike = {n for claim, numbers in resting
             if numbers and same_meaning(embedder, solved.answer, claim.text, question) for n in numbers}
    return [s for s in sentences if s.number in rested and s.cosine >= min_relevance
            and quotable(s.text)
            and (s.number in picked or (s.number in alike and states_answer(s.text, solved.answer, question)))
            ][:MAX_QUOTED]


def quotable(text: str) -> bool:
    """Whether a sentence of the notes may stand as an answer: it states something (not a question,
    not a contents line) and its text layer is what the page shows (not doubled)."""
    return not asks(text) and not doubled(text) and not contents_line(text)


def asks(text: str) -> bool:
    """Whether a sentence is a question: it states nothing, so it cannot be quoted as an answer
    (a slide's heading "Transfer Appropriate Processing Is deep encoding always better?" was)."""
    return text.rstrip(" .•–-0123456789/").endswith("?")


def copied_quote(copy: Draft, sentences: list[Sentence], most: int, min_relevance: float) -> Draft | None:
    """The sentences a copy request's claims copy (see `_copied_at`), each whole as a claim, as a
    draft to check.

    Asked to copy, the 1.5B also stitched sentences into one claim and wrote its own ("A market
    must be small"), so a cited sentence counts only when a sentence of the claim copies it, in
    the claim's order; that whole sentence becomes the claim, so the checks read exactly the
    text a quote shows, and nothing the model wrote is shown.
    """
    by_number = {s.number: s for s in sentences}
    found: list[tuple[int, int, Sentence]] = []  # (claim, place in it, sentence)
    for index, claim in enumerate(copy.claims):
        for number in claim.sentences:
            sentence = by_number.get(number)
            place = None if sentence is None else _copied_at(claim, sentence)
            if sentence is not None and place is not None and sentence.cosine >= min_relevance \
                    and quotable(sentence.text):
                found.append((index, place, sentence))
    chosen: list[Sentence] = []
    for _, _, sentence in sorted(found, key=lambda f: f[:2]):
        if sentence not in chosen:
            chosen.append(sentence)
    chosen = chosen[:most]
    if not chosen:
        return None
    # model_construct: a sentence of the notes may be longer than a drafted claim may be.
    return Draft.model_construct(claims=[Claim.model_construct(text=s.text, sentences=[s.number])
                                         for s in chosen])


def _copied_at(claim: Claim, sentence: Sentence) -> int | None:
    """Which sentence of the claim copies `sentence` (its place in the claim), or None.

    Only the notes' sentence is ever shown, so the claim need not be exact: the 1.5B tidies
    as it copies ("John Snow mapped out cases of cholera ..." from "John Snow was a physician
    who mapped out cases of cholera ..."). A piece of at least six words, nearly all of them in
    the sentence, is a copy of it; a claim in the model's own words is not.
    """
    held = {w.lower() for w in FLAT_WORDS.findall(sentence.text)}
    for place, (start, end) in enumerate(sentence_spans(claim.text)):
        words = [w.lower() for w in FLAT_WORDS.findall(claim.text[start:end])]
        if len(words) >= MIN_VERBATIM_WORDS and sum(w in held for w in words) >= COPIED_SHARE * len(words):
            return place
    return None
