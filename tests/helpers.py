"""Builders shared by tests: a Pipeline on a temporary data dir with scripted models."""

from __future__ import annotations

from pathlib import Path

from citetutor.config import Settings
from citetutor.models.factory import ModelSet
from citetutor.pipeline import Pipeline
from tests.fakes import HashEmbedder, ScriptedChat, ScriptedOcr


def make_pipeline(tmp_path: Path, embedder=None, ocr=None, **settings) -> Pipeline:
    """A Pipeline whose state lives in tmp_path and whose models are scripted."""
    models = ModelSet(drafter=ScriptedChat("test:gemma"), verifier=ScriptedChat("test:qwen"),
                      embedder=embedder or HashEmbedder(), ocr=ocr or ScriptedOcr(),
                      runtime="test", label="test models")
    return Pipeline(Settings(data_dir=tmp_path, **settings), models=models)
