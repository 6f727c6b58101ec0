"""Builders shared by tests: a Pipeline on a temporary data dir with scripted models."""

from __future__ import annotations

import re
from pathlib import Path

from citetutor.config import Settings
from citetutor.evidence import Sentence
from citetutor.models.factory import ModelSet
from citetutor.pipeline import Pipeline
from citetutor.retrieval import Hit
from citetutor.schemas import BlindSolve, Claim, Draft
from tests.fakes import HashEmbedder, OverlapJudge, ScriptedChat, ScriptedOcr


def make_pipeline(tmp_path: Path, embedder=None, ocr=None, judge=None, **settings) -> Pipeline:
    """A Pipeline whose state lives in tmp_path and whose models are scripted."""
    models = ModelSet(drafter=ScriptedChat("test:gemma"), verifier=ScriptedChat("test:qwen"),
                      embedder=embedder or HashEmbedder(), ocr=ocr or ScriptedOcr(),
                      runtime="test", label="test models", judge=judge or OverlapJudge())
    return Pipeline(Settings(data_dir=tmp_path, **settings), models=models)


# --- scripted replies for the answer gate ----------------------------------------------------

SENTENCE_LINE = re.compile(r"^\[S(\d+)\] (.*)$", re.MULTILINE)


def numbered(*texts: str, cosine: float = 0.0) -> list[Sentence]:
    """Evidence sentences S1.. from whole texts, one chunk each, `cosine` close to the question."""
    return [Sentence(n, Hit(f"d-p1-c{n}", "d", "Notes", 1, t, "[]"), 0, len(t), cosine)
            for n, t in enumerate(texts, start=1)]


def evidence_sentences(messages: list[dict]) -> list[tuple[int, str]]:
    """(number, text) of each evidence sentence exactly as the prompt presented it."""
    return [(int(n), t) for n, t in SENTENCE_LINE.findall(messages[-1]["content"])]


def sentence_with(messages: list[dict], word: str) -> tuple[int, str]:
    """The first evidence sentence containing `word`."""
    return next(s for s in evidence_sentences(messages) if word.lower() in s[1].lower())


def page_of(store, sentence: str) -> int:
    """The page whose chunk holds `sentence` (whitespace folded), found without the gate's code."""
    for page_no, text in store.query("SELECT page_no, text FROM chunks"):
        if sentence in " ".join(text.split()):
            return page_no
    raise AssertionError(f"no chunk holds {sentence!r}")


def quoting_draft(word: str = "inward", drop_words: int = 0, reworded: bool = False):
    """A drafter reply: one claim that quotes (and cites) the sentence containing `word`,
    less its last `drop_words` words (a retry that differs from the draft before it);
    `reworded` swaps its first two words, so it is no longer word for word and is judged."""
    def reply(messages: list[dict]) -> Draft:
        number, text = sentence_with(messages, word)
        words = text[:240].split()
        if reworded:
            words[:2] = words[1::-1]
        return Draft(claims=[Claim(text=" ".join(words[:len(words) - drop_words]), sentences=[number])])
    return reply


def blind_citing(word: str = "inward"):
    """A blind-solve reply that rests on the sentence containing `word`."""
    def reply(messages: list[dict]) -> BlindSolve:
        number, text = sentence_with(messages, word)
        return BlindSolve(answer=text[:150], sentences=[number])
    return reply


def as_json(reply):
    """Turn a reply builder over messages into one over an Ollama request body (JSON text)."""
    return lambda body: reply(body["messages"]).model_dump_json()


def copying_nothing(messages: list[dict]) -> Draft:
    """A drafter reply to the copy request that cites no sentence it was given: nothing to quote."""
    return Draft(claims=[Claim(text="Nothing in the notes answers this.", sentences=[99])])


def claiming(text: str, word: str = "inward"):
    """A drafter reply: one claim in its own words, citing the sentence containing `word`."""
    def reply(messages: list[dict]) -> Draft:
        return Draft(claims=[Claim(text=text, sentences=[sentence_with(messages, word)[0]])])
    return reply
