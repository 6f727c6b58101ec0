"""Pydantic output schemas sent to models as `format` and re-validated on return."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Quantity(BaseModel):
    """A worked numeric result."""

    value: str = Field(description="The number exactly as written, e.g. '9.8' or '2.5e3'.")
    unit: str = Field(description="Its unit, e.g. 'm/s^2'; empty if dimensionless.")


class Claim(BaseModel):
    """One sentence of the answer and the chunks that support it."""

    text: str = Field(description="One factual statement made in the answer.")
    chunk_ids: list[str] = Field(description="IDs of the evidence chunks that state it.")


class Draft(BaseModel):
    """The drafter's structured answer."""

    answer: str = Field(description="The explanation or hint shown to the learner.")
    claims: list[Claim] = Field(description="Every factual claim with its supporting chunk IDs.")
    quantity: Quantity | None = Field(
        default=None, description="The final value and unit, when the question asks for one."
    )
    insufficient_evidence: bool = Field(
        default=False, description="True when the evidence does not answer the question."
    )


class BlindSolve(BaseModel):
    """The verifier's own answer from the evidence alone, without seeing the draft."""

    answerable: bool = Field(description="Whether the evidence answers the question.")
    answer: str = Field(description="A short answer from the evidence; empty if unanswerable.")
    chunk_ids: list[str] = Field(description="IDs of the chunks the answer relies on.")


class SupportVerdict(BaseModel):
    """The verifier's check of a draft against the evidence and its own blind reading."""

    relevant: bool = Field(description="The draft answers the question that was asked.")
    agrees_with_blind: bool = Field(description="The draft agrees with the blind answer.")
    unsupported_claims: list[int] = Field(
        description="Indexes (0-based) of draft claims the cited chunks do not support."
    )
    reason: str = Field(description="One short sentence explaining the verdict.")


class QuizCandidate(BaseModel):
    """One practice question drafted from the source pages."""

    kind: Literal["mcq", "short"] = Field(description="Multiple choice or short answer.")
    stem: str = Field(description="The question.")
    options: list[str] = Field(default_factory=list, description="MCQ options; empty for short.")
    answer_index: int | None = Field(default=None, description="0-based index of the MCQ key.")
    answer_text: str = Field(description="The correct answer in words.")
    rationale: str = Field(description="Why the key is right, from the source.")
    source_chunk_ids: list[str] = Field(description="IDs of the chunks the item comes from.")
    quotes: list[str] = Field(description="Verbatim sentences from the source that support the key.")


class QuizBatch(BaseModel):
    """A set of quiz candidates."""

    items: list[QuizCandidate]


class QuizBlindAnswer(BaseModel):
    """The verifier's answer to a quiz question without the key, rationale or quotes."""

    answerable: bool = Field(description="Whether the evidence answers the question.")
    choice_index: int | None = Field(default=None, description="0-based MCQ choice, if MCQ.")
    answer_text: str = Field(description="The answer in words.")


class AgreementVerdict(BaseModel):
    """Whether two short answers mean the same thing."""

    agrees: bool = Field(description="True when both answers state the same fact.")
    reason: str = Field(description="One short sentence.")


class KeySupportVerdict(BaseModel):
    """Whether the evidence supports a quiz key and its rationale."""

    supported: bool = Field(description="The evidence states the key and the rationale.")
    reason: str = Field(description="One short sentence.")
