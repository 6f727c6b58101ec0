"""The OpenAI-compatible runtime end to end against a real llama.cpp server on loopback.

`python -m llama_cpp.server` serves the packaged Qwen2.5-Coder-0.5B GGUF (chat and
embeddings) on 127.0.0.1; CiteTutor talks to it only through its /v1 HTTP API.
"""

import importlib.util
import socket
import subprocess
import sys
import time

import httpx
import numpy as np
import pytest

from citetutor.config import Settings
from citetutor.errors import ModelUnavailable
from citetutor.models.base import ask_structured
from citetutor.models.embedded import QWEN_0_5B, assembled_gguf
from citetutor.models.factory import build_models, health
from citetutor.models.openai_compat import OpenAIChat, OpenAIServer
from citetutor.pipeline import Pipeline
from citetutor.schemas import BlindSolve
from tests.corpus import SLIDES, corpus_file

ALIAS = "qwen2.5-coder-0.5b"
pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("uvicorn") is None,
    reason="llama-cpp-python with its server extras is not installed (bash scripts/setup.sh)")]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    """A real llama.cpp OpenAI-compatible server with the 0.5B model, for this module."""
    gguf = assembled_gguf(QWEN_0_5B, tmp_path_factory.mktemp("models"))
    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with open(log, "w") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", ALIAS,
             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096", "--n_threads", "2",
             "--embedding", "true"], stdout=sink, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(240):  # loading takes a few seconds; a bound, not a timing assertion
            if process.poll() is not None:
                pytest.fail(f"llama_cpp.server exited: {log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{url}/models", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def settings_for(url: str, tmp_path) -> Settings:
    return Settings(data_dir=tmp_path, runtime="openai", openai_base_url=url,
                    models={"drafter": ALIAS, "verifier": ALIAS, "embedder": ALIAS, "ocr": "unused"})


def test_chat_replies_in_schema_over_http(server_url):
    chat = OpenAIChat(OpenAIServer(server_url), ALIAS)
    messages = [{"role": "system", "content": "Answer from the evidence. Reply with JSON."},
                {"role": "user", "content": "Evidence:\n[S1] A static array has a fixed length.\n"
                                            "[S2] Bananas are yellow.\n\nQuestion: What length does a "
                                            "static array have?\nGive the answer and the sentence numbers."}]
    parsed, reply = ask_structured(chat, messages, BlindSolve)
    assert parsed.sentences and set(parsed.sentences) <= {1, 2} and parsed.answer
    assert reply.completion_tokens and reply.model == f"openai:{ALIAS}"


def test_health_names_what_the_server_offers(server_url, tmp_path):
    models = build_models(settings_for(server_url, tmp_path))
    rows = {role: ok for role, _, ok, _ in health(models)}
    assert rows["drafter"] and rows["verifier"] and rows["embedder"]
    missing = build_models(settings_for(server_url, tmp_path).model_copy(
        update={"models": Settings().models.model_copy(update={"drafter": "no-such-model"})}))
    message = next(m for role, _, ok, m in health(missing) if role == "drafter")
    assert "does not offer no-such-model" in message and ALIAS in message


def test_the_whole_pipeline_runs_over_the_openai_runtime(server_url, tmp_path):
    # The relevance floors are calibrated for real sentence encoders; token vectors of a chat
    # model, mean-pooled, score lower, so they are opened here to drive both models over HTTP.
    settings = settings_for(server_url, tmp_path)
    pipe = Pipeline(settings.model_copy(update={"limits": settings.limits.model_copy(
        update={"min_relevance": -1.0, "min_sentence_relevance": -1.0})}))
    subject = pipe.create_subject("Data structures")
    result = pipe.upload(corpus_file(*SLIDES).read_bytes(), "arrays.pdf", subject)
    assert result.chunks > 0
    vectors = pipe.models.embedder.embed(["static array", "dynamic array"])
    assert vectors.shape[0] == 2 and np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-4)
    answer = pipe.ask("What is a static array?", subject)
    stages = {s["name"] for s in answer.spans}
    assert {"retrieve", "blind_solve", "draft"} <= stages, "both model calls went over HTTP"
    assert answer.status in ("answered", "refused")
    if answer.status == "answered":
        assert answer.citations, "an answer over this runtime is gated and cited like any other"


def test_an_unreachable_server_says_how_to_fix(tmp_path):
    chat = OpenAIChat(OpenAIServer(f"http://127.0.0.1:{_free_port()}/v1"), ALIAS)
    with pytest.raises(ModelUnavailable, match="CITETUTOR_OPENAI_BASE_URL"):
        chat.chat_json([{"role": "user", "content": "hi"}], BlindSolve.model_json_schema())
