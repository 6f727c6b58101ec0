"""Marking a learner's answer (and the blind solver's) against a quiz key, by meaning.

A shared word is not agreement: "Projectile motion" shares "motion" with the key "Central
motion" and is wrong. A term is matched word by word, allowing case, plurals and a slip of
spelling; a value by its number; a free answer that is not the key's term goes to the judge.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from citetutor.evidence import Sentence, stems
from citetutor.meaning import judge_claim
from citetutor.models.base import ChatModel
from citetutor.retrieval import STOPWORDS, Hit

_WORD = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)?%?")
_FILLER = STOPWORDS | {"the", "a", "an", "it", "its", "called", "answer", "blank", "word"}


@dataclass(frozen=True)
class Mark:
    """Whether an answer is right, and in a sentence why."""

    right: bool
    why: str


def _words(text: str) -> list[str]:
    """Lower-case words and numbers, without articles and filler."""
    text = unicodedata.normalize("NFKC", text).lower()
    return [w for w in _WORD.findall(text) if w not in _FILLER]


def _number(word: str) -> float | None:
    """A word's value if it is a number (90%, 1,000, 0.5)."""
    cleaned = word.rstrip("%").replace(",", "")
    try:
        return float(cleaned)
    except ValueError:
        return None


def _close(a: str, b: str) -> bool:
    """Same word up to a plural or one slip per five letters."""
    if a == b:
        return True
    va, vb = _number(a), _number(b)
    if va is not None or vb is not None:
        return va is not None and va == vb
    a, b = a.removesuffix("es").removesuffix("s"), b.removesuffix("es").removesuffix("s")
    if a == b:
        return True
    allowed = max(len(a), len(b)) // 5
    return allowed > 0 and edit_distance(a, b, allowed) <= allowed


def edit_distance(a: str, b: str, ceiling: int | None = None) -> int:
    """Levenshtein distance (insertions, deletions, substitutions); with `ceiling`, it stops
    early once the distance is over it and returns ceiling + 1."""
    ceiling = max(len(a), len(b)) if ceiling is None else ceiling
    if abs(len(a) - len(b)) > ceiling:
        return ceiling + 1
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        previous, row[0] = row[0], i
        for j, cb in enumerate(b, start=1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (ca != cb))
        if min(row) > ceiling:
            return ceiling + 1
    return row[-1]


def same_term(answer: str, key: str, spare_words: int = 2) -> bool:
    """Every word of the key is in the answer (in order, slips allowed), and the answer adds at
    most `spare_words` others: "state functions" fills "state"; "path function" does not."""
    wanted, given = _words(key), _words(answer)
    if not wanted or not given or len(given) > len(wanted) + spare_words:
        return False
    position = 0
    for word in wanted:
        while position < len(given) and not _close(given[position], word):
            position += 1
        if position == len(given):
            return False
        position += 1
    return True


def restates(answer: str, question: str) -> bool:
    """Whether an answer mostly repeats its question: under a third of its words are new."""
    words = set(stems(answer))
    return len(words - set(stems(question))) < max(1, len(words) / 3)


def mark_short(judge: ChatModel, stem: str, key: str, quotes: list[str], answer: str) -> Mark:
    """A short answer: the key's own term is right; other words are right only if the judge
    finds the answer stated by the key's sentences, read with the question."""
    if not answer.strip():
        return Mark(False, "Write an answer first.")
    if same_term(answer, key):
        return Mark(True, "That is the answer.")
    if restates(answer, stem):
        return Mark(False, "That repeats the question; say what the notes say about it.")
    sentences = [Sentence(n, Hit("", "", "", 0, text, "[]"), 0, len(text))
                 for n, text in enumerate([*quotes, f"The answer is: {key}."], start=1)]
    verdict = judge_claim(judge, sentences, stem, answer, [s.number for s in sentences], words_held=False)
    if verdict.holds:
        return Mark(True, "Your words say what the notes say.")
    return Mark(False, "The notes say something else.")
