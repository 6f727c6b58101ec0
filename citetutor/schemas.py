"""Pydantic output schemas sent to models as `format` and re-validated on return."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

# Small models fill fields in order, so every schema puts the answer or the reasoning before
# any verdict flag, and no escape-hatch boolean leads an object (a verdict on text given in
# the prompt is a flag alone: there is no answer of its own to write first). Length limits live here so
# every runtime sends them (as JSON-schema limits) and every reply is re-validated against them.
MAX_CLAIMS = 3
MAX_CITES = 3
BLIND_ANSWER_CHARS = 160  # the blind answer's length limit: one the solver reaches is cut off
MAX_CLAIM_CHARS = 240


class Claim(BaseModel):
    """One sentence of the answer and the evidence sentences that state it."""

    text: str = Field(min_length=1, max_length=MAX_CLAIM_CHARS,
                      description="One sentence of the answer, in the words of the sentences it cites.")
    sentences: list[int] = Field(min_length=1, max_length=MAX_CITES,
                                 description="Numbers of the evidence sentences that state it ([S3] is 3).")


class Draft(BaseModel):
    """The drafter's answer: its sentences, in order, each citing evidence sentences."""

    claims: list[Claim] = Field(min_length=1, max_length=MAX_CLAIMS,
                                description="The answer, one sentence per claim, in reading order.")

    @property
    def answer(self) -> str:
        """The text the learner sees: the claims in order."""
        return " ".join(_shown(c.text) for c in self.claims)


def _shown(claim: str) -> str:
    """A claim as the learner reads it: one the length limit cut off ends in "…", so that
    "(one must decide what to do if there is a tie, but this" does not run into the next claim
    as if it were the whole sentence."""
    text = claim.strip()
    cut = len(claim) >= MAX_CLAIM_CHARS and not text.endswith((".", "!", "?", ")", "”", '"'))
    return text + " …" if cut else text


class BlindSolve(BaseModel):
    """The verifier's own answer from the evidence alone, without seeing the draft."""

    answer: str = Field(max_length=BLIND_ANSWER_CHARS, description="A short answer taken from the evidence.")
    sentences: list[int] = Field(max_length=MAX_CITES,
                                 description="Numbers of the sentences that state the answer.")


class PickedStatement(BaseModel):
    """The meaning judge, when it has no log-probabilities, names the statement the sentences state."""

    statement: Literal["A", "B"] = Field(description="A or B: the statement the sentences state.")


class StatedOrNot(BaseModel):
    """A judge without log-probabilities says whether the sentences state the statement."""

    stated: Literal["Yes", "No"] = Field(description="Yes if the sentences state the statement.")


class QuizCandidate(BaseModel):
    """One practice question drafted from numbered source sentences."""

    stem: str = Field(min_length=1, max_length=400, description="The question.")
    kind: Literal["cloze", "mcq", "short"] = Field(description="Fill in the blank, multiple choice "
                                                    "or short answer.")
    options: list[Annotated[str, Field(max_length=120)]] = Field(
        default_factory=list, max_length=4, description="Four MCQ options; empty for short answer.")
    answer_index: int | None = Field(default=None, description="0-based index of the MCQ key.")
    answer_text: str = Field(min_length=1, max_length=160, description="The correct answer in words.")
    sentences: list[int] = Field(min_length=1, max_length=MAX_CITES,
                                 description="Numbers of the source sentences that state the answer.")


class QuizShort(BaseModel):
    """What the drafter writes for a short-answer question: no field it has no use for."""

    stem: str = Field(min_length=1, max_length=240, description="The question.")
    answer_text: str = Field(min_length=1, max_length=160, description="The answer in a few words.")
    sentences: list[int] = Field(min_length=1, max_length=MAX_CITES,
                                 description="Numbers of the source sentences that state the answer.")


class QuizBlindAnswer(BaseModel):
    """The verifier's answer to a quiz question without the key or its sentences."""

    answer_text: str = Field(max_length=160, description="The answer in words, from the evidence.")
    choice_index: int | None = Field(default=None, description="0-based MCQ choice, if MCQ.")
    sentences: list[int] = Field(max_length=MAX_CITES,
                                 description="Numbers of the sentences that state the answer.")

