"""Adapters over the official `ollama` client: JSON chat, embeddings, OCR, and a health check."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager

import httpx
import numpy as np
import ollama
import pydantic

from citetutor.config import ModelRoles
from citetutor.errors import ModelUnavailable
from citetutor.models.base import OcrResult, Reply, embed_in_batches, unreadable

# GLM-OCR (the default OCR role) is trained on this task prompt; kept here, not in
# prompts.py, because that module is owned elsewhere.
OCR_PROMPT = "Text Recognition:"
EMBED_BATCH = 32
# Ollama reports "length" when num_predict or the context window cut the reply short.
TRUNCATED_REASONS = frozenset({"length", "max_tokens", "limit"})
DETERMINISTIC = {"temperature": 0}


def host_of(client: ollama.Client) -> str:
    """The server URL a client talks to, for error messages."""
    # The official client keeps its httpx client private; fall back if that ever changes.
    base_url = getattr(getattr(client, "_client", None), "base_url", None)
    return str(base_url).rstrip("/") if base_url else "the configured host"


def unreachable_message(host: str) -> str:
    """How to fix a server that cannot be reached."""
    return (f"Cannot reach Ollama at {host}: start it with `ollama serve`, "
            "or set CITETUTOR_OLLAMA_HOST")


def missing_model_message(model: str) -> str:
    """How to fix a model the server does not have."""
    return f"Model {model} is not installed on the Ollama server: run `ollama pull {model}`"


@contextmanager
def ollama_errors(client: ollama.Client, model: str) -> Iterator[None]:
    """Turn client and transport failures into ModelUnavailable with a fix in the message."""
    host = host_of(client)
    try:
        yield
    except ollama.ResponseError as exc:
        if exc.status_code == 404 or "not found" in str(exc.error).lower():
            raise ModelUnavailable(missing_model_message(model)) from exc
        raise ModelUnavailable(f"Ollama at {host} failed on {model}: {exc.error}") from exc
    except (httpx.ConnectError, httpx.ConnectTimeout, ConnectionError) as exc:
        raise ModelUnavailable(unreachable_message(host)) from exc
    except httpx.TimeoutException as exc:
        raise ModelUnavailable(
            f"Ollama at {host} did not finish {model} in time: raise CITETUTOR_REQUEST_TIMEOUT_S "
            "or choose a smaller model"
        ) from exc
    except httpx.TransportError as exc:
        raise ModelUnavailable(f"The connection to Ollama at {host} failed ({exc}); retry") from exc
    except pydantic.ValidationError as exc:  # JSON, but not of the shape Ollama's API promises
        raise unreadable(f"Ollama at {host}", model, "fields missing or of the wrong type") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ModelUnavailable(
            f"{host} answered with something that is not Ollama's API; check that "
            "CITETUTOR_OLLAMA_HOST points at an Ollama server") from exc


# httpx's timeout bounds each read, so a server that trickles a reply never trips it; each
# chat runs here and is waited for at most request_timeout_s in all (a call past it is left
# to finish in the background, its reply unused).
_CALLS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="ollama-call")


class OllamaChat:
    """A ChatModel whose JSON shape is enforced by Ollama's `format` (grammar-constrained)."""

    def __init__(self, client: ollama.Client, model_name: str, options: dict | None = None,
                 timeout_s: float = 120.0):
        self.client = client
        self.model_name = model_name
        self.options = {**DETERMINISTIC, **(options or {})}
        self.name = f"ollama:{model_name}"
        self.timeout_s = timeout_s

    def chat_json(self, messages: list[dict], schema: dict) -> Reply:
        """Ask for a reply matching `schema` at temperature 0, within timeout_s in all."""
        with ollama_errors(self.client, self.model_name):
            call = _CALLS.submit(self.client.chat, model=self.model_name, messages=messages,
                                 format=schema, options=self.options)
            try:
                response = call.result(timeout=self.timeout_s)
            except FutureTimeout as exc:
                raise ModelUnavailable(
                    f"Ollama at {host_of(self.client)} did not finish {self.model_name} within "
                    f"{self.timeout_s:.0f} s: raise CITETUTOR_REQUEST_TIMEOUT_S or choose a "
                    "smaller model") from exc
        return Reply(
            text=response.message.content or "",
            model=self.model_name,
            prompt_tokens=response.prompt_eval_count,
            completion_tokens=response.eval_count,
        )


class OllamaEmbedder:
    """An Embedder over /api/embed, batched so one huge request never times out."""

    def __init__(self, client: ollama.Client, model_name: str, batch_size: int = EMBED_BATCH):
        self.client = client
        self.model_name = model_name
        self.batch_size = batch_size
        self.name = f"ollama:{model_name}"

    def embed(self, texts: list[str]) -> np.ndarray:
        """L2-normalised float32 vectors, one row per text."""
        def fetch(batch: list[str]) -> list:  # checked by embed_in_batches, whatever came back
            with ollama_errors(self.client, self.model_name):
                found = self.client.embed(model=self.model_name, input=batch).embeddings
            return [list(v) if isinstance(v, (list, tuple)) else v for v in found]
        return embed_in_batches(texts, self.batch_size, fetch, f"Ollama at {host_of(self.client)}",
                                self.model_name)


class OllamaOcr:
    """An OcrModel that sends the page image to a vision model."""

    def __init__(self, client: ollama.Client, model_name: str, prompt: str = OCR_PROMPT):
        self.client = client
        self.model_name = model_name
        self.prompt = prompt
        self.name = f"ollama:{model_name}"

    def transcribe(self, png: bytes) -> OcrResult:
        """Transcribe one page image; partial when the model was cut off."""
        message = {"role": "user", "content": self.prompt, "images": [png]}
        with ollama_errors(self.client, self.model_name):
            response = self.client.chat(
                model=self.model_name, messages=[message], options=DETERMINISTIC
            )
        partial = response.done is False or response.done_reason in TRUNCATED_REASONS
        return OcrResult(text=(response.message.content or "").strip(), model=self.model_name,
                         partial=partial)


def installed_models(client: ollama.Client) -> set[str]:
    """Names the server has, with and without the implicit `:latest` tag."""
    names: set[str] = set()
    for entry in client.list().models:
        name = entry.model or ""
        names.add(name)
        if name.endswith(":latest"):
            names.add(name.removesuffix(":latest"))
    return names


def health(client: ollama.Client, roles: ModelRoles) -> list[tuple[str, str, bool, str]]:
    """(role, model, ok, message) for every role; never raises."""
    pairs = list(roles.model_dump().items())
    try:
        with ollama_errors(client, "the model list"):
            names = installed_models(client)
    except Exception as exc:  # a health panel must render whatever went wrong
        return [(role, model, False, str(exc)) for role, model in pairs]
    return [
        (role, model, True, "installed") if model in names
        else (role, model, False, missing_model_message(model))
        for role, model in pairs
    ]
