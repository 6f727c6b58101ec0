"""Every state and reason code CiteTutor stores or traces, named once.

StrEnum members are plain strings, so they go into SQL parameters, JSON and Sentry tags as
they are, and rows read back compare equal to them.
"""

from __future__ import annotations

from enum import StrEnum

# A request's or stage's outcome besides "answered", "refused" and "rejected".
OK = "ok"
ERROR = "error"


class DocStatus(StrEnum):
    """Whether a document is in retrieval."""

    READY = "ready"  # chunked and embedded: the tutor and quiz search it
    NEEDS_REVIEW = "needs_review"  # a scan kept out until every page is reviewed


class ReviewState(StrEnum):
    """Where one page stands in scan review."""

    NONE = "none"  # a text page: nothing to review
    PENDING = "pending"  # a scanned page waiting for the learner
    APPROVED = "approved"  # its transcription is the learner's
    BLANK = "blank"  # nothing on it to learn from


class PageSource(StrEnum):
    """Where a page's text came from."""

    TEXT = "text"  # the PDF's own text layer
    OCR = "ocr"  # a transcription draft of a scanned page
    REVIEWED = "reviewed"  # a transcription the learner checked


class Reason(StrEnum):
    """Why a draft was rejected or a request refused (traced, counted, shown in words)."""

    SCHEMA_INVALID = "schema_invalid"
    UNKNOWN_SENTENCE = "unknown_sentence"
    UNCOVERED_CLAIM = "uncovered_claim"
    NUMBER_NOT_IN_EVIDENCE = "number_not_in_evidence"
    QUANTITY_NOT_IN_EVIDENCE = "quantity_not_in_evidence"
    OFF_QUESTION = "off_question"
    BLIND_UNANSWERABLE = "blind_unanswerable"
    BLIND_DISAGREES = "blind_disagrees"
    IRRELEVANT = "irrelevant"
    UNSUPPORTED_CLAIM = "unsupported_claim"
    REPEATED_DRAFT = "repeated_draft"
    MODEL_UNAVAILABLE = "model_unavailable"
    NO_EVIDENCE = "no_evidence"
    LOW_RELEVANCE = "low_relevance"
    KEY_MISMATCH = "key_mismatch"
    ANSWER_MISMATCH = "answer_mismatch"
    KEY_UNSUPPORTED = "key_unsupported"
    ABOUT_THE_TEXT = "about_the_text"  # a quiz stem about the document, not what it states
    KEY_IN_STEM = "key_in_stem"  # a quiz key that only repeats its question's words
    NOT_A_QUESTION = "not_a_question"  # a short-answer stem that asks nothing ("economics")
    NO_BLANK = "no_blank"  # a sentence with no key term or value to blank
    NO_DISTRACTORS = "no_distractors"  # too few terms of the key's kind in the range
    KEY_IS_FORMULA = "key_is_formula"  # a short-answer key in symbols: a typed answer cannot be marked
    DEADLINE = "deadline"
    ERROR = "error"


REASON_CODES: frozenset[str] = frozenset(Reason)
