"""The three protocols every backend implements, and the schema-checked call helper."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

import numpy as np
from pydantic import BaseModel, ValidationError

from citetutor.errors import ModelOutputError

T = TypeVar("T", bound=BaseModel)


@dataclass(frozen=True)
class Reply:
    """One model reply with the metadata tracing needs (never logged as content)."""

    text: str
    model: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@dataclass(frozen=True)
class Choice:
    """Log-probabilities a model gives each option as its next token (nothing generated)."""

    logprobs: list[float]
    model: str
    prompt_tokens: int | None = None  # tokens actually read: the prompt less its cached prefix


@dataclass(frozen=True)
class OcrResult:
    """An OCR draft of one page; partial when the model stopped early or failed midway."""

    text: str
    model: str
    partial: bool = False
    lines: list[tuple[str, float]] | None = None  # (line, confidence 0-1), when the engine reports it


class ChatModel(Protocol):
    """A chat model that answers in JSON matching a given schema."""

    name: str

    def chat_json(self, messages: list[dict], schema: dict) -> Reply: ...


class ChoiceModel(Protocol):
    """A chat model that can score options by next-token log-probabilities (a capability:
    runtimes that have it set `choice_logprobs`; the gate asks the others through chat_json)."""

    name: str

    def chat_json(self, messages: list[dict], schema: dict) -> Reply: ...

    def choice_logprobs(self, messages: list[dict], answer_prefix: str, options: list[str]) -> Choice: ...


class Embedder(Protocol):
    """Turns texts into L2-normalised vectors; `name` is the stored model identity."""

    name: str

    def embed(self, texts: list[str]) -> np.ndarray: ...


class OcrModel(Protocol):
    """Transcribes a page image (PNG bytes)."""

    name: str

    def transcribe(self, png: bytes) -> OcrResult: ...


def ask_structured(model: ChatModel, messages: list[dict], schema: type[T]) -> tuple[T, Reply]:
    """Ask for `schema` via the model's JSON mode and validate the reply again with Pydantic."""
    reply = model.chat_json(messages, schema.model_json_schema())
    try:
        return schema.model_validate_json(reply.text), reply
    except ValidationError as exc:
        raise ModelOutputError(
            f"{model.name} replied with JSON that does not match {schema.__name__}; "
            "retrying usually helps, or choose a larger model in Settings."
        ) from exc


def normalise(vectors: np.ndarray) -> np.ndarray:
    """L2-normalise rows so a dot product is the cosine."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def unreadable(server: str, model: str, problem: str) -> ModelOutputError:
    """The error for a reply of the wrong shape: who sent it, what was wrong, what to check."""
    return ModelOutputError(f"{server} answered {model} in a form CiteTutor cannot read ({problem}): "
                            f"check that {model} is the right kind of model for its role and that the "
                            "server is up to date.")


def checked_rows(rows, count: int, server: str, model: str) -> list[list[float]]:
    """`count` vectors of one non-zero size made of numbers, or an error saying what was wrong."""
    if not isinstance(rows, list) or len(rows) != count:
        got = len(rows) if isinstance(rows, list) else "no list of"
        raise unreadable(server, model, f"{got} vectors for {count} texts")
    if not all(isinstance(r, list) and r for r in rows) or len({len(r) for r in rows}) != 1:
        raise unreadable(server, model, "vectors of different sizes")
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for r in rows for x in r):
        raise unreadable(server, model, "vectors holding something other than numbers")
    return rows


def embed_in_batches(texts: list[str], batch_size: int, fetch: Callable[[list[str]], list[list[float]]],
                     server: str = "The model server", model: str = "the embedding model") -> np.ndarray:
    """L2-normalised float32 rows for `texts`, asking a server for one batch at a time; a
    reply of the wrong shape is a ModelOutputError naming `server` and `model`."""
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    rows: list[list[float]] = []
    for start in range(0, len(texts), batch_size):
        batch = list(texts[start:start + batch_size])
        rows.extend(checked_rows(fetch(batch), len(batch), server, model))
    if len({len(r) for r in rows}) != 1:
        raise unreadable(server, model, "vectors of different sizes")
    return normalise(np.asarray(rows, dtype=np.float32))
