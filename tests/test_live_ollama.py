"""Opt-in checks against a real Ollama with the default models: CITETUTOR_LIVE=1 pytest -m live."""

import os
from pathlib import Path

import pytest

from citetutor.config import Settings
from citetutor.pipeline import Pipeline

pytestmark = [pytest.mark.live, pytest.mark.skipif(
    os.environ.get("CITETUTOR_LIVE") != "1",
    reason="live model test: set CITETUTOR_LIVE=1 with Ollama running and the default models pulled")]
FIXTURE = Path(__file__).resolve().parents[1] / "assets" / "mechanics-fixture.pdf"


def test_real_models_answer_with_a_citation_or_refuse(tmp_path):
    pipe = Pipeline(Settings(data_dir=tmp_path, runtime="ollama",
                             ollama_host=os.environ.get("OLLAMA_HOST", "http://127.0.0.1:11434")))
    subject = pipe.create_subject("Mechanics")
    pipe.upload(FIXTURE.read_bytes(), FIXTURE.name, subject)
    result = pipe.ask("What is the acceleration of the 3.0 kg cart pushed with 12 N?", subject)
    if result.status == "answered":
        assert any(c.page_no == 2 for c in result.citations)
    off_topic = pipe.ask("Who painted the Mona Lisa?", subject)
    assert off_topic.status == "refused"
