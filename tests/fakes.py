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

    def __init__(self, name: str = "test:hash-64", dim: int = 64):
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
