"""Evidence as numbered sentences: what models cite, and what code resolves to spans and boxes."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from citetutor.models.base import Embedder
from citetutor.retrieval import Hit, tokenize

# A sentence ends at . ! ? before a capital, digit, bracket or bullet; a blank line, a bullet
# line or a Q:/A: line also starts a new one (slides rarely use full stops).
_BOUNDARY = re.compile(
    r"(?<=[.!?])\s+(?=[\"'(\[A-Z0-9•])"
    r"|\n\s*\n"
    r"|\n(?=\s*(?:[•\-–*▪]\s|\d{1,2}[.)]\s|[QA]:))"
)
MIN_SENTENCE_CHARS = 25
MAX_SENTENCE_CHARS = 320


@dataclass(frozen=True)
class Sentence:
    """One numbered evidence sentence: its chunk and its character span in the chunk text."""

    number: int
    hit: Hit
    start: int
    end: int
    cosine: float = 0.0  # closeness in meaning to the question

    @property
    def text(self) -> str:
        """The sentence as it stands in the chunk, on one line."""
        return " ".join(self.hit.text[self.start:self.end].split())

    @property
    def label(self) -> str:
        """How prompts and messages name it."""
        return f"S{self.number}"


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences of `text`: short pieces merged, long ones cut at lines."""
    cuts = [0, *(m.end() for m in _BOUNDARY.finditer(text)), len(text)]
    pieces = [(a, b) for a, b in zip(cuts, cuts[1:]) if text[a:b].strip()]
    merged: list[tuple[int, int]] = []
    for start, end in pieces:
        if merged and len(text[merged[-1][0]:merged[-1][1]].strip()) < MIN_SENTENCE_CHARS:
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return [span for a, b in merged for span in _cut_long(text, a, b)]


def _cut_long(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Split an over-long piece at line breaks (then spaces) so each part stays quotable."""
    spans = []
    while end - start > MAX_SENTENCE_CHARS:
        window = text[start:start + MAX_SENTENCE_CHARS]
        cut = max(window.rfind("\n", MAX_SENTENCE_CHARS // 2), window.rfind(" ", MAX_SENTENCE_CHARS // 2))
        cut = start + (cut + 1 if cut > 0 else MAX_SENTENCE_CHARS)
        spans.append(_trim(text, start, cut))
        start = cut
    spans.append(_trim(text, start, end))
    return [s for s in spans if s[1] > s[0]]


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink a span past surrounding whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def number_evidence(hits: list[Hit], question: str, embedder: Embedder,
                    max_sentences: int) -> list[Sentence]:
    """Number the retrieved chunks' most relevant sentences, best first, without repeats.

    Small models read a short prompt faster and cite from its top more reliably, so the
    sentences closest in meaning to the question come first and get the lowest numbers.
    """
    seen: set[str] = set()
    candidates: list[tuple[Hit, int, int]] = []
    for hit in hits:
        for start, end in sentence_spans(hit.text):
            key = " ".join(hit.text[start:end].lower().split())
            if key not in seen:  # neighbouring chunks overlap
                seen.add(key)
                candidates.append((hit, start, end))
    if not candidates:
        return []
    texts = [" ".join(h.text[a:b].split()) for h, a, b in candidates]
    vectors = embedder.embed([question, *texts])
    wanted = set(stems(question))
    # Shared words break near-ties in meaning (a formula's symbols embed poorly).
    cosine = vectors[1:] @ vectors[0]
    score = [float(c) + 0.02 * len(wanted & set(stems(t))) for c, t in zip(cosine, texts)]
    best = sorted(range(len(candidates)), key=lambda i: (-score[i], i))[:max_sentences]
    return [Sentence(n, *candidates[i], float(cosine[i])) for n, i in enumerate(best, start=1)]


def stems(text: str) -> list[str]:
    """Content-word stems: tokens without stopwords, cut to 5 letters so forms of a word meet."""
    return [w[:5] if w.isalpha() else w for w in tokenize(text) if len(w) > 2 or w.isdigit()]


def evidence_block(sentences: list[Sentence]) -> str:
    """Evidence as models see it: one numbered sentence a line.

    No page numbers: small models cited "p. 9" as sentence 9, and code resolves pages anyway.
    """
    return "\n".join(f"[{s.label}] {s.text}" for s in sentences)


def sentence_boxes(sentence: Sentence) -> list[list[float]]:
    """Line boxes of the sentence's words, from the chunk's word boxes (else the chunk's lines)."""
    words = json.loads(sentence.hit.word_boxes or "null")
    if not words:
        return json.loads(sentence.hit.bboxes or "[]")
    lines: list[list[float]] = []
    for start, end, x0, y0, x1, y1 in words:
        if end <= sentence.start or start >= sentence.end:
            continue
        last = lines[-1] if lines else None
        if last and abs(last[1] - y0) < 2 and abs(last[3] - y1) < 2:
            last[0], last[2] = min(last[0], x0), max(last[2], x1)
        else:
            lines.append([x0, y0, x1, y1])
    return lines
