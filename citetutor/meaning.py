"""Checks of meaning: does a claim say what its cited sentences say, and not its flip?

Word overlap cannot tell "the entropy change is positive" from "... negative", and it refuses a
student's paraphrase. So a judge model compares the claim with code-made foils (foils.py), read
from log-probabilities (no text generated): a claim in its sentences' own words must be likelier
than every foil as the judge's restatement of the sentences; a claim in other words must be
picked over its foil as what the sentences state, asked A or B in both orders. A claim with
nothing to flip is asked plainly: do the sentences state it?
The prompt starts like the draft's (system text, evidence, question), so an in-process judge
reuses the drafter's KV cache and reads only the statements.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from pydantic import BaseModel

from citetutor import prompts
from citetutor.evidence import Sentence
from citetutor.foils import denial, exchanged, flat_words, foils_of, opposite_answer, run_starts, swapped_back
from citetutor.gate import draft_messages
from citetutor.models.base import ChatModel, ask_structured
from citetutor.schemas import PickedStatement, StatedOrNot

_WORDS = re.compile(r"[a-z0-9']+")
# A claim must beat its flip clearly, not by a coin toss. In the flip test on the tuning sets,
# every correct claim beat its flip by 0.45 nats or more, while "Yes, fitness does mean being
# strong" (the notes say it means reproductive success) won by 0.03 and five code-made wrong
# drafts by 0.02-0.24.
MIN_FLIP_MARGIN = 0.3
# Read as restatements of the cited sentences, a claim must be likelier than each of its flips
# by this much (log-probability of the whole statement, in nats).
MIN_LIKELIHOOD_MARGIN = 1.0
MAX_FOILS = 3  # flips of a claim a likelihood judge reads (each costs the claim's tokens once more)
MIN_PAIRED_RUN = 3  # words a copied run needs to carry its sentence's pairing ("90%" alone does not)
LETTERS = (" A", " B")
YES_NO = (" Yes", " No")


@dataclass(frozen=True)
class Judgement:
    """How firmly the cited sentences state a claim, as log-odds from the judge's passes."""

    foil: str = ""  # the foil the claim was compared with, if code could flip it
    asked: int = 0  # judge passes made
    stated: float | None = None  # log-odds of "Yes" over "No", when asked whether it is stated
    # Log-odds of the claim over its foil, averaged over both orders: the average cancels the
    # judge's lean towards one letter (the 1.5B gave "A" about 1 nat more whatever it held).
    # Read as restatements instead, the claim's log-probability less its likeliest foil's.
    flipped: float | None = None
    min_margin: float = MIN_FLIP_MARGIN  # how far `flipped` must be above zero

    @property
    def holds(self) -> bool:
        """Whether the claim was found stated (when asked) and beat its flip by a clear margin."""
        if self.stated is not None and self.stated <= 0:
            return False
        return self.flipped is None or self.flipped > self.min_margin

    @property
    def lost(self) -> bool:
        """Whether the foil beat the claim by the same clear margin (the other side of `holds`)."""
        return self.flipped is not None and self.flipped < -self.min_margin


def claim_foils(claim: str, cited: list[str], question: str,
                evidence: list[str]) -> tuple[list[str], list[str], list[str]]:
    """A claim's code-made wrong twins: the cited sentences' own words put back where the claim
    borrowed a word from the question or another sentence, the claim's flips, closest first,
    and its exchanges (two of its terms or values swapped, `foils.exchanged`)."""
    joined = " ".join(cited)
    return (swapped_back(claim, cited, question, evidence), _closest_foils(claim, joined),
            [] if _copied_run(claim, cited) else exchanged(claim, joined, question))


def _copied_run(claim: str, cited: list[str]) -> bool:
    """Whether the claim is a run of words of one cited sentence, in its order: it keeps the
    sentence's own pairing of terms and values, so it has nothing to exchange ("Chapter 6
    Central Motion" from a sentence that also holds "6.1" is not "Chapter 6.1 ...")."""
    words = flat_words(claim)
    return len(words) >= MIN_PAIRED_RUN and any(run_starts(words, flat_words(sentence)) for sentence in cited)


def judge_claim(judge: ChatModel, sentences: list[Sentence], question: str, claim: str,
                cited: list[int], words_held: bool = True, foils: list[str] | None = None,
                exchanges: list[str] | None = None, against_denial: bool = False,
                offered: list[str] | None = None) -> Judgement:
    """Whether the cited sentences state `claim` (asked when their words do not hold it), and
    state it rather than its flip (asked when code can flip it); `Judgement.holds` decides.
    `foils` (swapped back first) and `exchanges` are `claim_foils`, when the caller has made
    them already. An exchange is weighed besides the other foils, never instead of one, so
    it can only add a reason to refuse; so is each of `offered` (the claim with the question's
    other alternative, `foils.other_alternative`). A "Yes" or "No" answer must also be found stated
    more firmly than its opposite answer, and, `against_denial`, a claim in other words than
    its sentences more firmly than its denial (`_stated_over_opposite`)."""
    verdict = _judged_claim(judge, sentences, question, claim, cited, words_held, foils, exchanges, offered)
    opposite = opposite_answer(claim) or (denial(claim) if against_denial and not words_held else "")
    if not verdict.holds or not opposite:
        return verdict
    return _stated_over_opposite(judge, sentences, question, claim, opposite, cited, verdict)


def _stated_over_opposite(judge: ChatModel, sentences: list[Sentence], question: str, claim: str,
                          opposite: str, cited: list[int], verdict: Judgement) -> Judgement:
    """A claim held against its opposite, each asked "does S state this?" (the claim's own
    answer reused when `verdict` has it): it must lead by the flip margin.

    Asked about one statement, the judge says yes to most; asked about a claim and its denial,
    its lean towards "yes" is in both. A claim in other words than its sentences, which no
    restatement reading can weigh, had only that one question: "If my target is only 30 degrees
    up, the light is going through 1.3 times more air" (the notes: 2) was found stated by 0.81
    nats and shown; "It is not true that ..." was found stated by 0.69. On twelve tuning sets,
    of the shown answers in other words, this stopped that one, the inactivation ball plugging
    the channel "when the membrane is hyperpolarized" (by 0.07), two incomplete ones and a right
    one (a coin flip in a diversified portfolio, by -0.50); the rest led by 0.32 nats or more
    (most by 1-2.5), the wrong answers that still pass by 0.56-1.59.

    Read as whole statements, "Yes, the distance between San Diego and Seattle is right on an
    azimuthal equidistant map" beat "No, ... is not right" by 1.1 nats where the cited sentence
    says "it does not show the correct distance between San Diego and Seattle": the shorter,
    affirmative statement is likelier whatever the sentences say, and a "Yes" that restates
    the question is made of the question's own words, which every word check accepts. Asked
    whether the sentence states each, the judge replies with one word either way, so neither
    answer's length counts: there "No, it is not true that ..." led by 0.97 nats. "Yes,
    everyone ends up infected in this model" (the notes: some never are) led its denial by
    0.05, below the margin; the right "No, heat does not flow spontaneously from a cold body
    to a hotter body" and "Yes, array indexing is zero-based" led by 2.2 and 1.9.
    """
    labels, quoted = _cited(sentences, cited)
    claim_stated = verdict.stated
    if claim_stated is None:
        claim_stated = _stated(judge, sentences, question, labels, quoted, claim)
    lead = claim_stated - _stated(judge, sentences, question, labels, quoted, opposite)
    if lead > MIN_FLIP_MARGIN:
        return replace(verdict, asked=verdict.asked + 2)
    return Judgement(opposite, verdict.asked + 2, verdict.stated, lead)


def _cited(sentences: list[Sentence], cited: list[int]) -> tuple[str, str]:
    """The cited sentences' labels ("S2 and S5") and their text, as the judge's prompts quote them."""
    by_number = {s.number: s for s in sentences}
    return " and ".join(f"S{n}" for n in cited), " ".join(by_number[n].text for n in cited)


def _stated(judge: ChatModel, sentences: list[Sentence], question: str, labels: str, quoted: str,
            statement: str) -> float:
    """Log-odds of "Yes" over "No", asked whether the quoted sentences state `statement`."""
    task = prompts.JUDGE_STATED.format(labels=labels, cited=quoted, claim=statement)
    yes, no = _scores(judge, draft_messages(sentences, question, task), prompts.JUDGE_STATED_PREFIX,
                      YES_NO, StatedOrNot, "stated", ("Yes", "No"))
    return yes - no


def _judged_claim(judge: ChatModel, sentences: list[Sentence], question: str, claim: str,
                  cited: list[int], words_held: bool, foils: list[str] | None,
                  exchanges: list[str] | None, offered: list[str] | None = None) -> Judgement:
    """`judge_claim` without the second reading against the opposite."""
    labels, quoted = _cited(sentences, cited)
    by_number = {s.number: s for s in sentences}
    if foils is None:
        swapped, flips, made = claim_foils(claim, [by_number[n].text for n in cited], question,
                                           [s.text for s in sentences])
        foils = swapped + flips
        if exchanges is None:
            exchanges = made
    extra = list(dict.fromkeys(e for e in [*(offered or []), *(exchanges or [])[:1]] if e not in foils[:MAX_FOILS]))
    stated = None
    if not words_held or not foils:
        stated = _stated(judge, sentences, question, labels, quoted, claim)
        if stated <= 0 or not (foils or extra):
            return Judgement(asked=1, stated=stated)
    asked = 1 if stated is not None else 0
    restate = getattr(judge, "statement_logprobs", None)
    # Only a claim in its sentences' own words is read against its flips as a restatement: it
    # can be wrong only by what a flip changes. A claim in other words can add a link its
    # sentences never make ("... because <an unrelated sentence>"), which no flip captures and a
    # restatement reading does not notice; those keep the A/B choice's caution.
    if restate is not None and words_held:
        return _likelier_than_flips(restate, draft_messages(
            sentences, question, prompts.JUDGE_RESTATE.format(labels=labels, cited=quoted)),
            claim, foils[:MAX_FOILS] + extra, asked, stated)
    margins: list[tuple[float, str]] = []
    for foil in [*foils[:1], *extra]:  # the claim must win each choice: the closest call decides
        margins.append((_picked_over(judge, sentences, question, labels, quoted, claim, foil), foil))
        if margins[-1][0] <= MIN_FLIP_MARGIN:
            break
    flipped, foil = min(margins)
    return Judgement(foil, asked + 2 * len(margins), stated, flipped)


def _picked_over(judge: ChatModel, sentences: list[Sentence], question: str, labels: str, quoted: str,
                 claim: str, foil: str) -> float:
    """Log-odds that the judge picks the claim over the foil as what the cited sentences state,
    averaged over both orders."""
    flipped = 0.0
    for first, second, claim_at in ((claim, foil, 0), (foil, claim, 1)):
        task = prompts.JUDGE_CHOICE.format(labels=labels, cited=quoted, a=first, b=second)
        scores = _scores(judge, draft_messages(sentences, question, task), prompts.JUDGE_CHOICE_PREFIX,
                         LETTERS, PickedStatement, "statement", ("A", "B"))
        flipped += (scores[claim_at] - scores[1 - claim_at]) / 2
    return flipped


def _likelier_than_flips(restate, messages: list[dict], claim: str, foils: list[str], asked: int,
                         stated: float | None) -> Judgement:
    """The claim against each foil as the judge's restatement of the cited sentences: the
    margin is the claim's log-probability less the likeliest foil's.

    Asked "which statement, A or B?", the 1.5B could not tell "there is a discontinuity at the
    origin" from "there is not a discontinuity ..." (0.13 nats) where the sentence says
    "discontinuity at origin", nor "Biologists do not think evolution is heading toward a goal"
    from "... heading away from a goal" (0.02). Read as whole statements, the same pairs part by
    11.8 nats and more; a claim copied from the sentence is what a restatement says, its flip is not.
    One pass reads all of them, with no order to swap: there is no letter to lean towards.
    """
    scores = restate(messages, [claim, *foils]).logprobs
    best = max(range(len(foils)), key=lambda i: scores[i + 1])
    return Judgement(foils[best], asked + 1, stated, scores[0] - scores[best + 1], MIN_LIKELIHOOD_MARGIN)


def judge_against_blind(judge: ChatModel, sentences: list[Sentence], question: str, draft: str,
                        blind: str) -> Judgement:
    """Which answer the evidence gives to the question, the draft's or the blind solver's, in
    both orders; the blind answer is the draft's foil (`Judgement.holds` decides).

    The 0.5B blind solver often answers another part of the question, or a formula ("2T + W = 0"
    for when the virial mass is wrong): its wording alone refused 8 of 58 right drafts in the
    flip test. The 1.5B judge reads both against the evidence instead of words against words.
    """
    margin = 0.0
    for first, second, draft_at in ((draft, blind, 0), (blind, draft, 1)):
        task = prompts.JUDGE_ANSWER.format(a=first, b=second)
        scores = _scores(judge, draft_messages(sentences, question, task), prompts.JUDGE_ANSWER_PREFIX,
                         LETTERS, PickedStatement, "statement", ("A", "B"))
        margin += (scores[draft_at] - scores[1 - draft_at]) / 2
    return Judgement(blind, 2, None, margin)


def _closest_foils(claim: str, cited: str) -> list[str]:
    """The claim's foils, those holding more of the cited sentences' words first.

    A flip back to the sentence's own word ("outward" -> "inward" where the sentence says
    inward) is the comparison that matters; flipping a word the sentence never uses is not.
    """
    held = set(_WORDS.findall(cited.lower()))
    return sorted(foils_of(claim, most=99, vocabulary=cited), key=lambda f: -len(set(_WORDS.findall(f.lower())) & held))


def _scores(judge: ChatModel, messages: list[dict], prefix: str, options: tuple[str, str],
            schema: type[BaseModel], field: str, values: tuple[str, str]) -> tuple[float, float]:
    """Log-probabilities of the two options; a judge without them answers in JSON (1 for its pick)."""
    scorer = getattr(judge, "choice_logprobs", None)
    if scorer is not None:
        first, second = scorer(messages, prefix, list(options)).logprobs
        return first, second
    picked, _ = ask_structured(judge, messages, schema)
    chosen = getattr(picked, field)
    return (1.0, 0.0) if chosen == values[0] else (0.0, 1.0)
