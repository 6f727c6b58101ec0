"""Build the model set for a runtime from Settings; construction is cheap, loading is lazy."""

from __future__ import annotations

from dataclasses import dataclass

from citetutor.config import Settings
from citetutor.models.base import ChatModel, Embedder, OcrModel

EMBEDDED_LABEL = (
    "Embedded demo runtime: one 270M Gemma model drafts and verifies "
    "(no second model family is packaged for offline use), MiniLM embeds, Tesseract reads scans"
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


def build_models(settings: Settings) -> ModelSet:
    """The adapters for `settings.runtime`; no model is contacted or loaded here."""
    if settings.runtime == "embedded":
        return _embedded(settings)
    return _ollama(settings)


def _ollama(settings: Settings) -> ModelSet:
    import ollama

    from citetutor.models.ollama import OllamaChat, OllamaEmbedder, OllamaOcr

    client = ollama.Client(host=settings.ollama_host, timeout=settings.request_timeout_s)
    roles = settings.models
    return ModelSet(
        drafter=OllamaChat(client, roles.drafter),
        verifier=OllamaChat(client, roles.verifier),
        embedder=OllamaEmbedder(client, roles.embedder),
        ocr=OllamaOcr(client, roles.ocr),
        runtime="ollama",
        label=f"Ollama at {settings.ollama_host}: "
              f"{roles.drafter} drafts, {roles.verifier} verifies",
    )


def _embedded(settings: Settings) -> ModelSet:
    from citetutor.models.embedded import EmbeddedChat, MiniLMEmbedder, TesseractOcr

    cache = settings.data_dir / "models"
    chat = EmbeddedChat(cache)  # one instance: two would load the weights twice
    return ModelSet(
        drafter=chat,
        verifier=chat,
        embedder=MiniLMEmbedder(cache),
        ocr=TesseractOcr(timeout_s=settings.request_timeout_s),
        runtime="embedded",
        label=EMBEDDED_LABEL,
    )


def health(models: ModelSet) -> list[tuple[str, str, bool, str]]:
    """(role, model, ok, message) for the sidebar; never raises."""
    if models.runtime == "ollama":
        from citetutor.config import ModelRoles
        from citetutor.models.ollama import health as ollama_health

        roles = ModelRoles(drafter=models.drafter.model_name, verifier=models.verifier.model_name,
                           embedder=models.embedder.model_name, ocr=models.ocr.model_name)
        return ollama_health(models.drafter.client, roles)
    if models.runtime == "embedded":
        return _embedded_health(models)
    return [(role, getattr(models, role).name, True, models.label)
            for role in ("drafter", "verifier", "embedder", "ocr")]


def _embedded_health(models: ModelSet) -> list[tuple[str, str, bool, str]]:
    """Whether the in-process runtimes can load, without loading them."""
    import importlib.util
    import shutil

    llama = importlib.util.find_spec("llama_cpp") is not None
    minilm = importlib.util.find_spec("all_minilm_l6_v2") is not None
    tesseract = shutil.which("tesseract") is not None
    fix = {True: "available", False: "not installed: run `bash scripts/setup.sh`"}
    return [("drafter", models.drafter.name, llama, fix[llama]),
            ("verifier", models.verifier.name, llama, fix[llama]),
            ("embedder", models.embedder.name, minilm, fix[minilm]),
            ("ocr", models.ocr.name, tesseract, fix[tesseract] if tesseract
             else "not installed: apt-get install tesseract-ocr")]
