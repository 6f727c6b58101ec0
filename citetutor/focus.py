"""Which evidence sentences answer the question: picked before a retry, so it writes from them.

Traced over every refused attempt, most refusals were the drafter's choice of sentence, not its
wording: the 1.5B cited one sentence and wrote from another, and told three times that S6 says
"Bigger sample -> smaller SEs" it cited S3 each time. Asked of one sentence at a time whether it
answers the question, the same model ranks them well enough to narrow a retry's evidence. Each
ask is one forward pass after the draft's shared evidence prefix (no text generated), so picking
costs the candidate sentences' tokens, not another read of the evidence.
"""

from __future__ import annotations

from dataclasses import dataclass

from citetutor import prompts
from citetutor.evidence import Sentence
from citetutor.meaning import YES_NO, judge_messages, option_scores
from citetutor.models.base import ChatModel, Embedder
from citetutor.schemas import StatedOrNot

CANDIDATES = 4  # closest sentences in meaning that are asked about, per part of the question


@dataclass(frozen=True)
class Pick:
    """One candidate sentence and how firmly the judge said it answers (log-odds of Yes over No)."""

    sentence: Sentence
    answers: float


def answering_sentences(judge: ChatModel, embedder: Embedder, sentences: list[Sentence], question: str,
                        parts: list[str] | tuple[str, ...] = ()) -> list[list[Pick]]:
    """For each part of a multi-part question (else the whole question), the sentences closest
    to it in meaning, ranked by whether the judge says they answer it, best first."""
    asked = list(parts) if len(parts) > 1 else [question]
    ranked = []
    for part in asked:
        candidates = _closest(embedder, sentences, part) if len(asked) > 1 else \
            sorted(sentences, key=lambda s: -s.cosine)[:CANDIDATES]
        picks = [Pick(s, _answers(judge, sentences, question, part, s)) for s in candidates]
        ranked.append(sorted(picks, key=lambda p: -p.answers))
    return ranked


def focus(ranked: list[list[Pick]], width: int) -> list[Sentence]:
    """The `width` best sentences of each part, in the order they stand in the evidence."""
    chosen = {p.sentence.number: p.sentence for picks in ranked for p in picks[:width]}
    return [chosen[n] for n in sorted(chosen)]


def _closest(embedder: Embedder, sentences: list[Sentence], part: str) -> list[Sentence]:
    """The CANDIDATES sentences closest in meaning to one part of the question."""
    vectors = embedder.embed([part, *(s.text for s in sentences)])
    closeness = vectors[1:] @ vectors[0]
    order = sorted(range(len(sentences)), key=lambda i: -float(closeness[i]))
    return [sentences[i] for i in order[:CANDIDATES]]


def _answers(judge: ChatModel, sentences: list[Sentence], question: str, part: str,
             sentence: Sentence) -> float:
    """Log-odds that `sentence` answers `part` of the question, from one judge pass."""
    task = prompts.JUDGE_ANSWERS.format(label=sentence.label, text=sentence.text, part=part.rstrip(" ?"))
    yes, no = option_scores(judge, judge_messages(sentences, question, task), prompts.JUDGE_STATED_PREFIX,
                            YES_NO, StatedOrNot, "stated", ("Yes", "No"))
    return yes - no
