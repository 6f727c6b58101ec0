"""A real loopback HTTP server that speaks Ollama's API as the official client uses it.

Tests script what each model replies (`enqueue_chat`, `set_embedder`) and assert on what it
was sent (`history`). A chat for a model with nothing queued fails loudly with HTTP 500.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

from tests.fakes import judge_reply

EMBED_DIM = 64
ChatScript = str | Callable[[dict], str]


def hashed_bag_of_words(text: str, dim: int = EMBED_DIM) -> list[float]:
    """A deterministic vector: shared words make texts close."""
    vector = np.zeros(dim, dtype=np.float32)
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        bucket = int.from_bytes(hashlib.sha256(word.encode()).digest()[:4], "little") % dim
        vector[bucket] += 1.0
    if not vector.any():
        vector[0] = 1.0  # an empty text still needs a direction
    return (vector / np.linalg.norm(vector)).tolist()


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


class FakeOllama:
    """Scripted Ollama on 127.0.0.1 with an OS-chosen port."""

    def __init__(self, models: set[str] | None = None):
        self.models: set[str] = set(models or ())
        self.history: list[tuple[str, dict]] = []
        self.embedder: Callable[[str], list[float]] = hashed_bag_of_words
        self.done_reason = "stop"
        self.trickle_s = 0.0  # > 0: send each reply a few bytes at a time, this far apart
        self.raw_body: bytes | None = None  # set: answer every request with these bytes
        self.trickles_finished = 0  # trickled replies whose last byte was written
        self._queues: dict[str, deque[ChatScript]] = defaultdict(deque)
        # Meaning-check requests (a "statement" or "stated" schema) are answered by this rule
        # rather than the queue: how many a draft needs depends on the claim's words.
        self.judge: Callable[[dict], str] = judge_reply
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        # A short poll interval keeps shutdown (and so each test's teardown) fast.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        """Base URL to pass to `ollama.Client(host=...)`."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host if isinstance(host, str) else host.decode()}:{port}"

    def start(self) -> FakeOllama:
        """Serve in a daemon thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and free the port."""
        self._httpd.shutdown()
        self._httpd.server_close()

    def enqueue_chat(self, model: str, reply: ChatScript) -> None:
        """Queue the next reply of `model`: text, or a callable given the request body."""
        self.models.add(model)
        with self._lock:
            self._queues[model].append(reply)

    def set_embedder(self, fn: Callable[[str], list[float]]) -> None:
        """Map each input text to its vector."""
        self.embedder = fn

    def requests(self, path: str) -> list[dict]:
        """Bodies of the requests received on `path`."""
        return [body for seen, body in self.history if seen == path]

    def _next_chat(self, model: str) -> ChatScript | None:
        with self._lock:
            queue = self._queues[model]
            return queue.popleft() if queue else None

    def route(self, method: str, path: str, body: dict) -> tuple[int, dict]:
        """Answer one request as (status, JSON body)."""
        with self._lock:
            self.history.append((path, body))
        routes = {
            ("GET", "/api/version"): lambda: (200, {"version": "0.0.0-test"}),
            ("GET", "/api/tags"): self._tags,
            ("POST", "/api/chat"): lambda: self._chat(body),
            ("POST", "/api/embed"): lambda: self._embed(body),
        }
        handler = routes.get((method, path))
        return handler() if handler else (404, {"error": f"no route {method} {path}"})

    def _unknown(self, model: str) -> tuple[int, dict] | None:
        return None if model in self.models else (404, {"error": f"model '{model}' not found"})

    def _tags(self) -> tuple[int, dict]:
        entries = [
            {"name": m, "model": m, "modified_at": _now(), "size": 1, "digest": "0" * 64}
            for m in sorted(self.models)
        ]
        return 200, {"models": entries}

    def _chat(self, body: dict) -> tuple[int, dict]:
        model = body.get("model", "")
        if missing := self._unknown(model):
            return missing
        fields = (body.get("format") or {}).get("properties", {})
        script = self.judge if {"statement", "stated"} & set(fields) else self._next_chat(model)
        if script is None:
            return 500, {"error": f"test forgot to enqueue a chat reply for model '{model}'"}
        try:
            content = script(body) if callable(script) else script
        except Exception as exc:  # surface a broken script as a loud server error
            return 500, {"error": f"chat script for model '{model}' raised {exc!r}"}
        return 200, {
            "model": model, "created_at": _now(),
            "message": {"role": "assistant", "content": content},
            "done": True, "done_reason": self.done_reason,
            "total_duration": 1_000_000, "load_duration": 1000,
            "prompt_eval_count": sum(len(str(m.get("content", ""))) for m in body["messages"]),
            "prompt_eval_duration": 1000, "eval_count": len(content), "eval_duration": 1000,
        }

    def _embed(self, body: dict) -> tuple[int, dict]:
        model = body.get("model", "")
        if missing := self._unknown(model):
            return missing
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        vectors = [list(map(float, self.embedder(text))) for text in texts]
        return 200, {"model": model, "embeddings": vectors, "total_duration": 1000,
                     "load_duration": 1000, "prompt_eval_count": len(texts)}


def _handler_for(server: FakeOllama) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to one FakeOllama."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as httpx expects from Ollama

        def do_GET(self) -> None:
            self._answer("GET", {})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b"{}"
            self._answer("POST", json.loads(raw or b"{}"))

        def _answer(self, method: str, body: dict) -> None:
            status, payload = server.route(method, self.path.split("?")[0], body)
            data = server.raw_body if server.raw_body is not None else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if not server.trickle_s:
                self.wfile.write(data)
                return
            for start in range(0, len(data), 8):  # every read arrives well within the timeout
                self.wfile.write(data[start:start + 8])
                self.wfile.flush()
                time.sleep(server.trickle_s)
            server.trickles_finished += 1

        def log_message(self, format: str, *args) -> None:
            pass  # keep pytest output clean

    return Handler
