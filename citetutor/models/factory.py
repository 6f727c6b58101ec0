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
        label=f"Ollama at {settings.ollama_host}: {roles.drafter} drafts, {roles.verifier} verifies",
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
