"""The Ollama adapters through the official client against a real loopback server."""

from __future__ import annotations

import base64
import json
import socket

import numpy as np
import ollama
import pytest

from citetutor.config import ModelRoles
from citetutor.errors import ModelUnavailable
from citetutor.models.base import ask_structured
from citetutor.models.ollama import OCR_PROMPT, OllamaChat, OllamaEmbedder, OllamaOcr, health
from citetutor.schemas import BlindSolve

SCHEMA = BlindSolve.model_json_schema()
MESSAGES = [{"role": "system", "content": "Answer from evidence."},
            {"role": "user", "content": "What is g?"}]
REPLY = {"answer": "9.8 m/s^2", "sentences": [1]}


@pytest.fixture
def client(ollama_server) -> ollama.Client:
    return ollama.Client(host=ollama_server.url, timeout=10)


def closed_port() -> int:
    """A port nothing listens on: bound, then released."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_chat_json_sends_schema_and_temperature_zero(ollama_server, client):
    ollama_server.enqueue_chat("qwen2.5:3b", json.dumps(REPLY))
    reply = OllamaChat(client, "qwen2.5:3b").chat_json(MESSAGES, SCHEMA)
    (body,) = ollama_server.requests("/api/chat")
    assert body["format"] == SCHEMA
    assert body["options"]["temperature"] == 0
    assert body["stream"] is False
    assert [m["content"] for m in body["messages"]] == [m["content"] for m in MESSAGES]
    assert json.loads(reply.text) == REPLY
    assert reply.model == "qwen2.5:3b"
    assert reply.completion_tokens == len(reply.text)
    assert reply.prompt_tokens == sum(len(m["content"]) for m in MESSAGES)


def test_chat_json_with_callable_script_and_ask_structured(ollama_server, client):
    seen = []
    ollama_server.enqueue_chat("gemma3:4b", lambda body: seen.append(body) or json.dumps(REPLY))
    parsed, reply = ask_structured(OllamaChat(client, "gemma3:4b"), MESSAGES, BlindSolve)
    assert parsed.answer == "9.8 m/s^2"
    assert seen[0]["model"] == "gemma3:4b"
    assert OllamaChat(client, "gemma3:4b").name == "ollama:gemma3:4b"


def test_extra_options_keep_temperature_zero(ollama_server, client):
    ollama_server.enqueue_chat("m", "{}")
    OllamaChat(client, "m", options={"num_ctx": 8192}).chat_json(MESSAGES, SCHEMA)
    (body,) = ollama_server.requests("/api/chat")
    assert body["options"] == {"temperature": 0, "num_ctx": 8192}


def test_chat_replies_are_fifo_per_model(ollama_server, client):
    for text in ('{"n": 1}', '{"n": 2}'):
        ollama_server.enqueue_chat("a", text)
    ollama_server.enqueue_chat("b", '{"n": 3}')
    chat_a, chat_b = OllamaChat(client, "a"), OllamaChat(client, "b")
    texts = [chat_b.chat_json([], {}).text, chat_a.chat_json([], {}).text,
             chat_a.chat_json([], {}).text]
    assert texts == ['{"n": 3}', '{"n": 1}', '{"n": 2}']


def test_unscripted_chat_fails_loudly(ollama_server, client):
    ollama_server.models.add("gemma3:4b")
    with pytest.raises(ModelUnavailable, match="forgot to enqueue"):
        OllamaChat(client, "gemma3:4b").chat_json(MESSAGES, SCHEMA)


def test_embed_returns_normalised_rows_in_batches(ollama_server, client):
    ollama_server.models.add("nomic-embed-text")
    texts = [f"text number {i} about circular motion" for i in range(70)]
    vectors = OllamaEmbedder(client, "nomic-embed-text", batch_size=32).embed(texts)
    assert vectors.shape == (70, 64) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert [len(b["input"]) for b in ollama_server.requests("/api/embed")] == [32, 32, 6]


def test_embed_normalises_what_the_server_returns(ollama_server, client):
    ollama_server.models.add("e")
    ollama_server.set_embedder(lambda text: [3.0, 4.0] if text == "a" else [0.0, 2.0])
    embedder = OllamaEmbedder(client, "e")
    assert np.allclose(embedder.embed(["a", "b"]), [[0.6, 0.8], [0.0, 1.0]])
    assert embedder.name == "ollama:e"


def test_default_embedder_puts_similar_texts_close(ollama_server, client):
    ollama_server.models.add("e")
    a, b, c = OllamaEmbedder(client, "e").embed(
        ["centripetal acceleration in circular motion",
         "circular motion has centripetal acceleration", "bake the bread for forty minutes"])
    assert a @ b > a @ c


def test_ocr_sends_the_image_and_reads_text(ollama_server, client):
    png = b"\x89PNG\r\n\x1a\nfake-page"
    ollama_server.enqueue_chat("glm-ocr:q8_0", "  Newton's second law: F = ma  \n")
    result = OllamaOcr(client, "glm-ocr:q8_0").transcribe(png)
    (body,) = ollama_server.requests("/api/chat")
    (message,) = body["messages"]
    assert base64.b64decode(message["images"][0]) == png
    assert message["content"] == OCR_PROMPT
    assert result.text == "Newton's second law: F = ma"
    assert result.partial is False and result.model == "glm-ocr:q8_0"


def test_ocr_marks_truncated_output_partial(ollama_server, client):
    ollama_server.done_reason = "length"
    ollama_server.enqueue_chat("glm-ocr:q8_0", "The first half of the pa")
    assert OllamaOcr(client, "glm-ocr:q8_0").transcribe(b"png").partial is True


def test_unreachable_host_says_how_to_fix():
    host = f"http://127.0.0.1:{closed_port()}"
    client = ollama.Client(host=host, timeout=5)
    with pytest.raises(ModelUnavailable, match="ollama serve") as info:
        OllamaChat(client, "gemma3:4b").chat_json(MESSAGES, SCHEMA)
    assert host in str(info.value) and "CITETUTOR_OLLAMA_HOST" in str(info.value)
    assert info.value.__cause__ is not None
    with pytest.raises(ModelUnavailable, match="ollama serve"):
        OllamaEmbedder(client, "nomic-embed-text").embed(["x"])


@pytest.mark.parametrize("call", ["chat", "embed", "ocr"])
def test_missing_model_says_ollama_pull(ollama_server, client, call):
    adapters = {
        "chat": lambda: OllamaChat(client, "nope:1b").chat_json(MESSAGES, SCHEMA),
        "embed": lambda: OllamaEmbedder(client, "nope:1b").embed(["x"]),
        "ocr": lambda: OllamaOcr(client, "nope:1b").transcribe(b"png"),
    }
    with pytest.raises(ModelUnavailable, match=r"run `ollama pull nope:1b`") as info:
        adapters[call]()
    assert isinstance(info.value.__cause__, ollama.ResponseError)


def test_health_reports_each_role(ollama_server, client):
    ollama_server.models.update({"gemma3:4b", "nomic-embed-text:latest"})
    report = health(client, ModelRoles())
    by_role = {role: (model, ok, message) for role, model, ok, message in report}
    assert by_role["drafter"][:2] == ("gemma3:4b", True)
    assert by_role["embedder"][:2] == ("nomic-embed-text", True)
    assert by_role["verifier"][1] is False and "ollama pull qwen2.5:3b" in by_role["verifier"][2]
    assert by_role["ocr"][1] is False and "ollama pull glm-ocr:q8_0" in by_role["ocr"][2]


def test_health_never_raises_when_server_is_down():
    client = ollama.Client(host=f"http://127.0.0.1:{closed_port()}", timeout=5)
    report = health(client, ModelRoles())
    assert len(report) == 4
    assert all(not ok and "ollama serve" in message for _, _, ok, message in report)


def test_build_ollama_models_talk_to_the_configured_host(ollama_server, tmp_path):
    from citetutor.config import Settings
    from citetutor.models.factory import build_models

    models = build_models(Settings(data_dir=tmp_path, ollama_host=ollama_server.url, runtime="ollama"))
    assert models.runtime == "ollama" and ollama_server.history == []  # construction is cheap
    ollama_server.enqueue_chat("qwen2.5:3b", json.dumps(REPLY))
    assert json.loads(models.verifier.chat_json(MESSAGES, SCHEMA).text) == REPLY
    assert (models.drafter.name, models.embedder.name, models.ocr.name) == (
        "ollama:gemma3:4b", "ollama:nomic-embed-text", "ollama:glm-ocr:q8_0")


def test_auto_runtime_picks_ollama_when_it_has_every_model(ollama_server, tmp_path):
    from citetutor.config import Settings
    from citetutor.models.factory import build_models

    ollama_server.models |= set(ModelRoles().model_dump().values())
    models = build_models(Settings(data_dir=tmp_path, ollama_host=ollama_server.url))
    assert models.runtime == "ollama"
    assert models.label.endswith(f"Picked automatically: Ollama at {ollama_server.url} has every model.")


def test_auto_runtime_falls_back_to_embedded_and_says_why(ollama_server, tmp_path):
    from citetutor.config import Settings
    from citetutor.models.factory import build_models

    ollama_server.models |= {"gemma3:4b", "qwen2.5:3b", "nomic-embed-text"}
    models = build_models(Settings(data_dir=tmp_path, ollama_host=ollama_server.url))
    assert models.runtime == "embedded" and "lacks glm-ocr:q8_0" in models.label
    assert "CITETUTOR_RUNTIME=ollama" in models.label
    down = f"http://127.0.0.1:{closed_port()}"
    models = build_models(Settings(data_dir=tmp_path, ollama_host=down))
    assert models.runtime == "embedded" and f"Ollama at {down} is not running" in models.label


def test_a_trickled_reply_is_cut_off_at_the_call_timeout(ollama_server):
    ollama_server.enqueue_chat("qwen2.5:3b", json.dumps(REPLY) + " " * 2000)
    ollama_server.trickle_s = 0.05  # ~270 reads over ~13 s, each far inside httpx's 2 s read timeout
    chat = OllamaChat(ollama.Client(host=ollama_server.url, timeout=2), "qwen2.5:3b", timeout_s=1.0)
    with pytest.raises(ModelUnavailable, match="within 1 s"):
        chat.chat_json(MESSAGES, SCHEMA)
    # Cut off mid-reply by the whole-call limit, not by waiting for the last byte.
    assert ollama_server.trickles_finished == 0


def test_a_server_that_is_not_ollama_says_so(ollama_server, client):
    ollama_server.enqueue_chat("qwen2.5:3b", json.dumps(REPLY))  # status 200 ...
    ollama_server.raw_body = b"<html>login page</html>"  # ... with a body that is not JSON
    with pytest.raises(ModelUnavailable, match="not Ollama's API"):
        OllamaChat(client, "qwen2.5:3b").chat_json(MESSAGES, SCHEMA)


# Replies of the wrong shape: valid JSON that is not what Ollama's API promises. Each once
# escaped as a pydantic ValidationError or a numpy error with no advice.
WRONG_SHAPES = {
    "chat without a message": (b'{"model": "qwen2.5:3b", "done": true}', "chat"),
    "chat message of the wrong type": (b'{"model": "q", "message": 7, "done": true}', "chat"),
    "no embeddings": (b'{"model": "m", "embeddings": []}', "embed"),
    "embeddings not a list": (b'{"model": "m", "embeddings": "none"}', "embed"),
    "ragged vectors": (b'{"model": "m", "embeddings": [[1.0, 2.0], [1.0]]}', "embed"),
    "strings in a vector": (b'{"model": "m", "embeddings": [["a", "b"], ["c", "d"]]}', "embed"),
    "nulls in a vector": (b'{"model": "m", "embeddings": [[null, 1.0], [1.0, null]]}', "embed"),
}


@pytest.mark.parametrize("case", WRONG_SHAPES)
def test_a_reply_of_the_wrong_shape_is_a_clear_error_naming_the_server_and_model(ollama_server, client, case):
    from citetutor.errors import CiteTutorError
    body, call = WRONG_SHAPES[case]
    ollama_server.models |= {"qwen2.5:3b", "nomic-embed-text"}
    ollama_server.enqueue_chat("qwen2.5:3b", json.dumps(REPLY))
    ollama_server.raw_body = body
    with pytest.raises(CiteTutorError) as raised:
        if call == "chat":
            OllamaChat(client, "qwen2.5:3b").chat_json(MESSAGES, SCHEMA)
        else:
            OllamaEmbedder(client, "nomic-embed-text").embed(["one text", "another text"])
    message = str(raised.value)
    assert ollama_server.url in message and ("qwen2.5:3b" in message or "nomic-embed-text" in message)
    assert "cannot read" in message and "check" in message, message
    assert "{" not in message, "no excerpt of the raw reply"
