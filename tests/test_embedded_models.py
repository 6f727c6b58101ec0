"""The offline runtime with its real packaged models: MiniLM, Tesseract, Gemma 3 270M."""

from __future__ import annotations

import importlib.util
import json
import shutil

import numpy as np
import pytest
from pydantic import BaseModel, Field

from citetutor.config import Settings
from citetutor.errors import ModelUnavailable
from citetutor.models.base import ask_structured
from citetutor.models.embedded import (
    EmbeddedChat,
    MiniLMEmbedder,
    TesseractOcr,
    bounded_schema,
    fold_system,
    strict_json,
)
from citetutor.models.factory import EMBEDDED_LABEL, build_models

needs_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None,
    reason="tesseract binary not installed (apt-get install tesseract-ocr)",
)
needs_llama = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python not installed"
)


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory):
    """One cache for the session: extracting/assembling the weights takes seconds."""
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="session")
def minilm(model_cache) -> MiniLMEmbedder:
    return MiniLMEmbedder(model_cache)


# --- MiniLM ------------------------------------------------------------------------------


def test_minilm_shape_dtype_and_unit_norm(minilm):
    vectors = minilm.embed(["Newton's second law", "F = ma", "a third, longer sentence here"])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert minilm.name == "embedded:all-MiniLM-L6-v2" and minilm.dim == 384


def test_minilm_reference_values(minilm):
    """First values for this sentence as printed by sentence-transformers (model card)."""
    # Guards the hand-written forward pass: a wrong GELU, norm, mask or pooling shifts these.
    vector = minilm.embed(["This is an example sentence"])[0]
    reference = [0.0677, 0.0635, 0.0487, 0.0793, 0.0374, 0.0027, 0.0394, -0.0071]
    assert np.allclose(vector[:8], reference, atol=2e-4)


def test_minilm_semantic_sanity(minilm):
    query, near, far = minilm.embed([
        "centripetal acceleration of circular motion",
        "an object moving in a circle accelerates toward the centre",
        "bake the bread for forty minutes",
    ])
    assert query @ near > query @ far + 0.2


def test_minilm_is_deterministic_and_batch_independent(minilm):
    text = "The period of a pendulum depends on its length."
    alone = minilm.embed([text])
    # Batched with a much longer text, this one is padded: the mask must hide the padding.
    batched = minilm.embed([text, text, "word " * 200])
    assert np.array_equal(alone[0], minilm.embed([text])[0])
    assert np.array_equal(batched[0], batched[1])
    assert np.allclose(alone[0], batched[0], atol=1e-5)


def test_minilm_truncates_long_text_and_keeps_order(minilm):
    texts = [f"sentence number {i} about kinematics" for i in range(40)] + ["gravity " * 2000]
    vectors = minilm.embed(texts)
    assert vectors.shape == (41, 384)
    assert np.allclose(vectors[7], minilm.embed([texts[7]])[0], atol=1e-5)
    assert minilm.embed([]).shape == (0, 384)


# --- Tesseract ---------------------------------------------------------------------------


def render_png(text: str) -> bytes:
    """A page image of `text`, as the scan workflow would keep it."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((50, 100), text, fontsize=24)
    return page.get_pixmap(dpi=150).tobytes("png")


@needs_tesseract
def test_tesseract_reads_a_rendered_sentence():
    result = TesseractOcr().transcribe(render_png("Momentum is mass times velocity"))
    words = result.text.lower().split()
    assert ["momentum", "is", "mass", "times", "velocity"] == words
    assert result.partial is False and result.model == "embedded:tesseract"


def test_tesseract_missing_binary_says_how_to_install():
    with pytest.raises(ModelUnavailable, match="apt-get install tesseract-ocr"):
        TesseractOcr(binary="tesseract-binary-that-does-not-exist").transcribe(b"png")


@needs_tesseract
def test_tesseract_rejects_a_non_image():
    with pytest.raises(ModelUnavailable, match="Tesseract failed"):
        TesseractOcr().transcribe(b"this is not a png")


# --- Gemma 3 270M ------------------------------------------------------------------------


class Verdict(BaseModel):
    supported: bool = Field(description="Whether the evidence supports the statement.")
    reason: str = Field(description="One short sentence.")


@needs_llama
@pytest.mark.slow
def test_embedded_chat_returns_schema_valid_json(model_cache):
    chat = EmbeddedChat(model_cache)
    messages = [
        {"role": "system", "content": "You check statements against evidence. Reply with JSON."},
        {"role": "user", "content": "Evidence: g is 9.8 m/s^2.\nStatement: g is 9.8 m/s^2."},
    ]
    parsed, reply = ask_structured(chat, messages, Verdict)
    assert isinstance(parsed.supported, bool) and len(parsed.reason) <= 300
    assert json.loads(reply.text).keys() == {"supported", "reason"}
    assert reply.prompt_tokens > 0 and reply.completion_tokens > 0
    assert reply.model == chat.name == "embedded:gemma-3-270m"


def test_bounded_schema_caps_strings_lists_and_ids():
    from citetutor.schemas import Draft

    schema = bounded_schema(Draft.model_json_schema())
    claim = schema["$defs"]["Claim"]["properties"]
    assert schema["properties"]["answer"]["maxLength"] == 300
    assert schema["properties"]["claims"]["maxItems"] == 4
    assert claim["chunk_ids"]["maxItems"] == 3 and claim["chunk_ids"]["items"]["maxLength"] == 64
    assert "maxLength" not in Draft.model_json_schema()["properties"]["answer"]  # a copy


def test_strict_json_escapes_raw_control_characters():
    assert json.loads(strict_json('{"reason": "line one\nline two"}')) == {
        "reason": "line one\nline two"
    }
    assert strict_json("{not json") == "{not json"


def test_fold_system_moves_system_text_into_the_first_user_turn():
    folded = fold_system([{"role": "system", "content": "Rules."},
                          {"role": "user", "content": "Question?"}])
    assert folded == [{"role": "user", "content": "Rules.\n\nQuestion?"}]
    assert fold_system([{"role": "system", "content": "Rules."}]) == [
        {"role": "user", "content": "Rules."}
    ]


# --- factory -----------------------------------------------------------------------------


def test_build_embedded_models_is_lazy(tmp_path):
    models = build_models(Settings(data_dir=tmp_path, runtime="embedded"))
    assert models.drafter is models.verifier
    assert (models.runtime, models.label) == ("embedded", EMBEDDED_LABEL)
    assert "270M Gemma model drafts and verifies" in models.label
    assert {models.embedder.name, models.ocr.name} == {
        "embedded:all-MiniLM-L6-v2", "embedded:tesseract"
    }
    assert not (tmp_path / "models").exists()  # nothing extracted or loaded yet
