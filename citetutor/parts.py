"""Multi-part questions: split "what is X, and how do we use it?" into the parts a student asked."""

from __future__ import annotations

import re

from citetutor.checks import QUESTION_FRAME
from citetutor.evidence import Sentence, stems
from citetutor.models.base import Embedder

# A new part starts after "?" or at "and"/"or" before a question word ("..., and how ...").
_SPLIT = re.compile(
    r"(?<=\?)\s+(?=\S)"
    r"|,?\s+(?:and|or|also)\s+(?=(?:what|how|why|when|where|which|who|whose|is|are|does|do|can|"
    r"could|would|should|will|was|were|did)\b)", re.IGNORECASE)
MIN_PART_WORDS = 2  # "Why or why not?" has no topic of its own: it stays with the part before


def question_parts(question: str) -> list[str]:
    """The parts of a question, each a question of its own; one part when it is not multi-part."""
    text = question.strip()
    cuts = [0, *(m.start() for m in _SPLIT.finditer(text)), len(text)]
    spans: list[tuple[int, int]] = []
    for start, end in zip(cuts, cuts[1:]):
        # A part without a topic of its own ("When", "Why or why not?") joins its neighbour.
        if spans and (_topic_words(text[start:end]) < MIN_PART_WORDS
                      or _topic_words(text[spans[-1][0]:spans[-1][1]]) < MIN_PART_WORDS):
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    return [_tidy(text[a:b]) for a, b in spans] or [text]


def _topic_words(text: str) -> int:
    return len(set(stems(text)) - QUESTION_FRAME)


def _tidy(part: str) -> str:
    """A part without the joining word or comma it was cut at."""
    return re.sub(r"^[\s,]*(?:and|or|also)\s+", "", part.strip(), flags=re.IGNORECASE).strip(" ,")


def uncovered_parts(embedder: Embedder, parts: list[str], sentences: list[Sentence],
                    min_relevance: float) -> list[str]:
    """The parts no evidence sentence is close to in meaning: the notes do not cover them."""
    if len(parts) < 2 or not sentences:
        return []
    return [part for part, row in zip(parts, _closeness(embedder, parts, sentences))
            if float(row.max()) < min_relevance]


def closest_part(embedder: Embedder, parts: list[str], sentences: list[Sentence]) -> float:
    """The best cosine of any part of a multi-part question with any sentence (0 for one part).

    A question joining two topics embeds far from the sentences on each: the held-out set's
    "How do the faster algorithms avoid checking everything, and what two steps do they go
    through?" sat at 0.32 from every sentence and was refused before any model read it."""
    if len(parts) < 2 or not sentences:
        return 0.0
    return float(_closeness(embedder, parts, sentences).max())


def _closeness(embedder: Embedder, parts: list[str], sentences: list[Sentence]):
    """Cosines of each part (rows) with each sentence (columns)."""
    vectors = embedder.embed([*parts, *(s.text for s in sentences)])
    return vectors[:len(parts)] @ vectors[len(parts):].T
