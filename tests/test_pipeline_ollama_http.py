"""The whole pipeline over real HTTP: official ollama client -> loopback Ollama API server."""


import pytest

from citetutor.config import NOT_ENOUGH_EVIDENCE, Settings
from citetutor.errors import EmbeddingMismatch, ModelUnavailable
from citetutor.pipeline import Pipeline
from citetutor.schemas import BlindSolve, Claim, Draft
from tests.corpus import MIT, corpus_file
from tests.helpers import evidence_sentences

ROLES = ("gemma3:4b", "qwen2.5:3b", "nomic-embed-text", "glm-ocr:q8_0")


@pytest.fixture
def pipe(tmp_path, ollama_server):
    ollama_server.models |= set(ROLES)
    pipe = Pipeline(Settings(data_dir=tmp_path, ollama_host=ollama_server.url))
    pipe.subject_id = pipe.create_subject("Mechanics")
    pipe.doc = pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", pipe.subject_id)
    return pipe


def draft_citing_first_sentence(body: dict) -> str:
    """A draft whose one claim quotes the first evidence sentence."""
    number, text = evidence_sentences(body["messages"])[0]
    return Draft(claims=[Claim(text=text[:240], sentences=[number])]).model_dump_json()


def blind_citing_first_sentence(body: dict) -> str:
    """A blind solve resting on the first evidence sentence."""
    number, text = evidence_sentences(body["messages"])[0]
    return BlindSolve(answer=text[:150], sentences=[number]).model_dump_json()


def test_answer_over_http_is_verified_and_cited(pipe, ollama_server):
    ollama_server.enqueue_chat("gemma3:4b", draft_citing_first_sentence)
    ollama_server.enqueue_chat("qwen2.5:3b", blind_citing_first_sentence)
    result = pipe.ask("Which way does the acceleration of circular motion point?", pipe.subject_id)
    assert result.status == "answered" and result.citations
    chats = ollama_server.requests("/api/chat")
    # The blind solve, and any meaning check, went to the verifier's family, not the drafter's.
    solves = [c["model"] for c in chats if "answer" in c["format"]["properties"]]
    judged = [c["model"] for c in chats if {"statement", "stated"} & set(c["format"]["properties"])]
    assert solves == ["qwen2.5:3b"] and set(judged) <= {"qwen2.5:3b"}
    draft_request = next(c for c in chats if c["model"] == "gemma3:4b")
    assert draft_request["format"] == Draft.model_json_schema(), "the schema is sent as `format`"
    tokens = [s for s in result.spans if s["name"] == "draft"][0]
    assert tokens["prompt_tokens"] > 0 and tokens["model"] == "ollama:gemma3:4b"


def test_bad_json_three_times_refuses(pipe, ollama_server):
    for _ in range(4):  # three attempts, then the request to copy the notes' sentence
        ollama_server.enqueue_chat("gemma3:4b", '{"answer": 12}')
    ollama_server.enqueue_chat("qwen2.5:3b", BlindSolve(answer="x", sentences=[1]).model_dump_json())
    result = pipe.ask("Which way does the acceleration of circular motion point?", pipe.subject_id)
    assert result.text == NOT_ENOUGH_EVIDENCE and result.reasons == ["schema_invalid"] * 4


def test_missing_model_is_a_clear_error_and_is_traced(pipe, ollama_server):
    ollama_server.models.discard("gemma3:4b")
    ollama_server.enqueue_chat("qwen2.5:3b", BlindSolve(answer="x", sentences=[1]).model_dump_json())
    ollama_server.models.discard("gemma3:4b")
    with pytest.raises(ModelUnavailable, match="ollama pull gemma3:4b"):
        pipe.ask("Which way does the acceleration of circular motion point?", pipe.subject_id)
    assert pipe.recent_requests()[0]["outcome"] == "error"


def test_switching_embedding_model_asks_for_reembed(tmp_path, ollama_server, pipe):
    ollama_server.models.add("mxbai-embed-large")
    pipe.store.close()
    other = Pipeline(Settings(data_dir=tmp_path, ollama_host=ollama_server.url,
                              models={"embedder": "mxbai-embed-large"}))
    with pytest.raises(EmbeddingMismatch, match="Re-embed"):
        other.ask("circular motion acceleration", pipe.subject_id)
    assert other.reembed(pipe.doc.doc_id) == pipe.doc.chunks
    assert other.document(pipe.doc.doc_id)["embedding_model"] == "ollama:mxbai-embed-large"
