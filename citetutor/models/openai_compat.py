"""Adapters for an OpenAI-compatible server (vLLM, llama.cpp's server, LM Studio, Ollama's /v1).

A class or department runs the models once on a shared machine; every laptop points
CITETUTOR_OPENAI_BASE_URL at it. Chat replies are constrained to the schema by the server;
both ways servers spell that are sent (OpenAI's `json_schema`, then llama.cpp's
`json_object` + `schema`), and the reply is validated again by the caller.
"""

from __future__ import annotations

import json

import httpx
import numpy as np

from citetutor.errors import ModelUnavailable
from citetutor.models.base import Reply, embed_in_batches, unreadable

EMBED_BATCH = 32


class OpenAIServer:
    """One HTTP client for a server's /v1 API, with errors that say how to fix them."""

    def __init__(self, base_url: str, api_key: str = "", timeout_s: float = 120.0):
        self.base_url = base_url.rstrip("/")
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.client = httpx.Client(base_url=self.base_url, headers=headers, timeout=timeout_s)

    def post(self, path: str, body: dict, model: str) -> httpx.Response:
        """POST, turning transport failures into ModelUnavailable."""
        try:
            return self.client.post(path, json=body)
        except httpx.TimeoutException as exc:
            raise ModelUnavailable(f"{self.base_url} did not answer for {model} in time: raise "
                                   "CITETUTOR_REQUEST_TIMEOUT_S or ask the server's admin") from exc
        except httpx.TransportError as exc:
            raise ModelUnavailable(f"Cannot reach the model server at {self.base_url}: check "
                                   "CITETUTOR_OPENAI_BASE_URL and that the server is running") from exc

    def json_of(self, response: httpx.Response, model: str) -> dict:
        """The reply's JSON, or an error naming what the server said."""
        if response.status_code in (401, 403):
            raise ModelUnavailable(f"{self.base_url} refused the key: set CITETUTOR_OPENAI_API_KEY")
        if response.status_code == 404:
            raise ModelUnavailable(f"{self.base_url} has no model {model}: pick one from "
                                   f"{self.base_url}/models for CITETUTOR_MODELS__...")
        if response.status_code >= 400:
            raise ModelUnavailable(f"{self.base_url} failed on {model} ({response.status_code}: "
                                   f"{response.text[:200]})")
        try:
            return response.json()
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ModelUnavailable(f"{self.base_url} answered with something that is not an "
                                   "OpenAI-compatible API; check CITETUTOR_OPENAI_BASE_URL") from exc

    def models(self) -> list[str]:
        """The model IDs the server offers."""
        try:
            response = self.client.get("/models")
        except httpx.HTTPError as exc:
            raise ModelUnavailable(f"Cannot reach the model server at {self.base_url}: check "
                                   "CITETUTOR_OPENAI_BASE_URL and that the server is running") from exc
        return [m.get("id", "") for m in self.json_of(response, "the model list").get("data", [])]


def _schema_formats(schema: dict) -> list[dict]:
    """How servers spell 'reply with JSON of this schema', most standard first."""
    return [{"type": "json_schema", "json_schema": {"name": "reply", "schema": schema}},
            {"type": "json_object", "schema": schema}]


class OpenAIChat:
    """A ChatModel over /v1/chat/completions at temperature 0."""

    def __init__(self, server: OpenAIServer, model_name: str):
        self.server, self.model_name = server, model_name
        self.name = f"openai:{model_name}"
        self._format = 0  # which spelling of the schema this server accepted

    def chat_json(self, messages: list[dict], schema: dict) -> Reply:
        """Ask for a reply matching `schema`."""
        formats = _schema_formats(schema)
        while True:
            body = {"model": self.model_name, "messages": messages, "temperature": 0,
                    "response_format": formats[self._format]}
            response = self.server.post("/chat/completions", body, self.model_name)
            # A server that does not know this spelling rejects the request (llama.cpp's server
            # with a 500 naming response_format); try the next spelling.
            refused = response.status_code in (400, 422) or (
                response.status_code >= 400 and "response_format" in response.text)
            if refused and self._format + 1 < len(formats):
                self._format += 1
                continue
            data = self.server.json_of(response, self.model_name)
            break
        try:
            usage = data.get("usage") or {}
            return Reply(text=data["choices"][0]["message"].get("content") or "", model=self.name,
                         prompt_tokens=usage.get("prompt_tokens"), completion_tokens=usage.get("completion_tokens"))
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            raise unreadable(self.server.base_url, self.model_name, "no message in the reply") from exc


class OpenAIEmbedder:
    """An Embedder over /v1/embeddings, batched."""

    def __init__(self, server: OpenAIServer, model_name: str, batch_size: int = EMBED_BATCH):
        self.server, self.model_name, self.batch_size = server, model_name, batch_size
        self.name = f"openai:{model_name}"

    def embed(self, texts: list[str]) -> np.ndarray:
        """L2-normalised float32 vectors, one row per text."""
        def fetch(batch: list[str]) -> list:  # checked by embed_in_batches, whatever came back
            data = self.server.json_of(self.server.post(
                "/embeddings", {"model": self.model_name, "input": batch}, self.model_name), self.model_name)
            try:
                return [_pooled(item["embedding"]) for item in sorted(data["data"], key=lambda d: d["index"])]
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise unreadable(self.server.base_url, self.model_name, "no vectors in the reply") from exc
        return embed_in_batches(texts, self.batch_size, fetch, self.server.base_url, self.model_name)


def _pooled(embedding: list) -> list[float]:
    """One vector per text: a server running a model without pooling (llama.cpp's, for a chat
    GGUF) returns one vector per token, which are mean-pooled as sentence encoders do."""
    if embedding and isinstance(embedding[0], list):
        return np.asarray(embedding, dtype=np.float32).mean(axis=0).tolist()
    return embedding


def openai_health(server: OpenAIServer, roles: dict[str, str]) -> list[tuple[str, str, bool, str]]:
    """(role, model, ok, message) for each role served by the OpenAI-compatible server."""
    try:
        offered = set(server.models())
    except ModelUnavailable as exc:
        return [(role, model, False, str(exc)) for role, model in roles.items()]
    return [(role, model, model in offered,
             "available" if model in offered else
             f"{server.base_url} does not offer {model}; it offers: {', '.join(sorted(offered)) or 'nothing'}")
            for role, model in roles.items()]
