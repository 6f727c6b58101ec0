"""What a learner types, checked at the facade before any model or table sees it."""

from __future__ import annotations

from citetutor.errors import InputError

MAX_QUESTION_CHARS = 2000


def valid_text(text: str, what: str) -> str:
    """`text` if it is valid Unicode (a lone surrogate, or bytes a terminal could not decode,
    is not), else an InputError saying how to fix it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"The {what} holds characters that are not valid text (a broken copy and "
                         "paste, or a terminal in another encoding); type it again.") from None
    return text


def question_text(question: str, limit: int = MAX_QUESTION_CHARS) -> str:
    """A question of at most `limit` characters, in valid Unicode."""
    question = valid_text(question, "question")
    if len(question) > limit:
        raise InputError(f"Your question is {len(question):,} characters long; ask in at most {limit:,} "
                         "(paste only the passage you want explained, or ask about it by page).")
    return question
