"""Scripted models for tests: queue replies, then assert on what each model was sent."""

from __future__ import annotations

import hashlib
import re
from collections import deque
from typing import Callable

import numpy as np
from pydantic import BaseModel

from citetutor.models.base import OcrResult, Reply, normalise


class ScriptedChat:
    """A ChatModel whose replies are queued by the test (cf. llm's MockModel.enqueue)."""

    def __init__(self, name: str):
        self.name = name
        self.queue: deque = deque()
        self.history: list[list[dict]] = []

    def enqueue(self, *replies: BaseModel | str | Callable[[list[dict]], BaseModel | str]) -> "ScriptedChat":
        """Queue replies: a schema object, raw text, or a function of the messages."""
        self.queue.extend(replies)
        return self

    def chat_json(self, messages: list[dict], schema: dict) -> Reply:
        """Pop the next reply; fail loudly when the test queued too few."""
        self.history.append(messages)
        if not self.queue:
            raise AssertionError(f"{self.name} was called more times than the test scripted")
        reply = self.queue.popleft()
        if callable(reply) and not isinstance(reply, BaseModel):
            reply = reply(messages)
        text = reply.model_dump_json() if isinstance(reply, BaseModel) else reply
        return Reply(text, self.name, prompt_tokens=sum(len(m["content"]) for m in messages) // 4,
                     completion_tokens=len(text) // 4)


class HashEmbedder:
    """Deterministic bag-of-words vectors: texts sharing words are close."""

    def __init__(self, name: str = "test:hash-256", dim: int = 256):
        self.name, self.dim = name, dim
        self.calls = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        """Hash each word into a bucket; L2-normalise."""
        self.calls += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dim] += 1.0
        return normalise(out + 1e-6)


class ScriptedOcr:
    """An OcrModel that returns queued transcriptions."""

    def __init__(self, *texts: str, partial_pages: tuple[int, ...] = ()):
        self.name = "test:ocr"
        self.texts, self.partial_pages, self.seen = list(texts), partial_pages, 0

    def transcribe(self, png: bytes) -> OcrResult:
        """Return the next scripted page text; checks it was given a PNG."""
        assert png.startswith(b"\x89PNG"), "OCR must receive PNG page images"
        self.seen += 1
        return OcrResult(self.texts.pop(0), self.name, partial=self.seen in self.partial_pages)


def judge_reply(body: dict) -> str:
    """An Ollama judge's JSON reply, by OverlapJudge's rule (it has no log-probabilities)."""
    scores = OverlapJudge().choice_logprobs(body["messages"], "", [" Yes", " No"]
                                            if "stated" in body["format"]["properties"] else [" A", " B"])
    if "stated" in body["format"]["properties"]:
        return '{"stated": "%s"}' % ("Yes" if scores.logprobs[0] > scores.logprobs[1] else "No")
    return '{"statement": "%s"}' % ("A" if scores.logprobs[0] >= scores.logprobs[1] else "B")


def _found(pattern: str, text: str) -> str:
    """The first group of `pattern` in a judge prompt; a prompt without it fails the test."""
    match = re.search(pattern, text)
    assert match, f"the judge prompt lost {pattern!r}: {text[:200]}"
    return match.group(1)


class OverlapJudge:
    """A meaning judge for tests: prefers the statement whose words the quoted sentences hold.

    It has the `choice_logprobs` capability like the in-process runtime. `wrong(statement)`
    marks statements it must never prefer (to script a judge that rejects a claim).
    """

    def __init__(self, name: str = "test:judge", wrong: Callable[[str], bool] = lambda s: False):
        self.name, self.wrong = name, wrong
        self.calls: list[str] = []
        self.history: list[list[dict]] = []
        self.solver = ScriptedChat(name)  # it also solves code-made quiz cards, in JSON

    def enqueue(self, *replies) -> "OverlapJudge":
        """Queue quiz-card answers (the only JSON this judge is asked for)."""
        self.solver.enqueue(*replies)
        return self

    def chat_json(self, messages: list[dict], schema: dict):
        """Answer a quiz card from the queue; judging meaning never asks for JSON here."""
        assert "QuizBlindAnswer" == schema.get("title"), "a judge with log-probabilities judges by them"
        return self.solver.chat_json(messages, schema)

    def choice_logprobs(self, messages: list[dict], answer_prefix: str, options: list[str]):
        """Score each option from the statements and the quoted sentences in the prompt."""
        from citetutor import prompts
        from citetutor.models.base import Choice
        task = messages[-1]["content"].split("Task: do not answer the question")[-1]
        self.calls.append(task)
        self.history.append(messages)
        if answer_prefix == prompts.JUDGE_ANSWER_PREFIX:  # draft against blind: the whole evidence
            quoted = set(re.findall(r"\w+", _found(r"(?s)Evidence:(.*)\nQuestion:", messages[-1]["content"]).lower()))
        else:
            quoted = set(re.findall(r"\w+", _found(r'says: "(.*)"', task).lower()))
        def held(statement: str) -> float:
            words = re.findall(r"\w+", statement.lower())
            return (sum(w in quoted for w in words) / max(len(words), 1)) - 10 * self.wrong(statement)
        if options[0].strip() == "Yes":
            claim = _found(r"Statement: (.*)", task)
            denied = claim.startswith("It is not true that ")  # a denial is stated where its claim is not
            yes = (held(claim.removeprefix("It is not true that ")) >= 0.5) != denied
            return Choice([0.0, -2.0] if yes else [-2.0, 0.0], self.name)
        a, b = (_found(rf"(?m)^{x}: (.*)$", task) for x in "AB")
        # The statement holding more of the sentences' words wins by 2 nats, a clear preference
        # as a real judge's is (not a hair: meaning.MIN_FLIP_MARGIN); a tie is no preference.
        first, second = held(a), held(b)
        return Choice([0.0 if first >= second else -2.0, 0.0 if second >= first else -2.0], self.name)


class ContraryJudge(OverlapJudge):
    """A judge that finds no claim stated: "No" when asked, and in a choice the statement that
    is not the claim (meaning.py shows the claim first, then second)."""

    def choice_logprobs(self, messages: list[dict], answer_prefix: str, options: list[str]):
        from citetutor.models.base import Choice
        self.calls.append(messages[-1]["content"])
        self.history.append(messages)
        if options[0].strip() == "Yes":
            return Choice([-2.0, 0.0], self.name)
        claim_first = sum("Which statement" in c for c in self.calls) % 2 == 1
        return Choice([-2.0, 0.0] if claim_first else [0.0, -2.0], self.name)
