"""Model adapters behind small protocols: chat, embeddings, OCR."""

from citetutor.models.base import ChatModel, Embedder, OcrModel, OcrResult, Reply, ask_structured

__all__ = ["ChatModel", "Embedder", "OcrModel", "OcrResult", "Reply", "ask_structured"]
