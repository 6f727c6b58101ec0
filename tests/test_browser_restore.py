"""In a real browser: a truncated library is one clear message, and the learner restores the
newest snapshot with one click; their documents are back."""

from __future__ import annotations

import pytest

from citetutor.config import ModelRoles, Settings
from citetutor.pipeline import Pipeline
from tests.browser import browser_page, running_app
from tests.corpus import MIT, corpus_file

expect = pytest.importorskip("playwright.sync_api").expect
ROLES = ModelRoles()


def test_a_truncated_library_is_restored_from_its_snapshot_through_the_page(tmp_path, ollama_server,
                                                                             sync_playwright):
    ollama_server.models |= {ROLES.drafter, ROLES.verifier, ROLES.embedder, ROLES.ocr}
    settings = Settings(data_dir=tmp_path / "data", ollama_host=ollama_server.url)
    pipeline = Pipeline(settings)
    subject = pipeline.create_subject("Mechanics")
    pipeline.upload(corpus_file(*MIT).read_bytes(), "mit-ch06.pdf", subject)  # takes a snapshot
    pipeline.store.close()
    data = settings.db_path.read_bytes()
    settings.db_path.write_bytes(data[: len(data) // 2])

    with running_app(settings.data_dir, ollama_server.url, tmp_path / "streamlit.log") as base, \
            sync_playwright() as p:
        with browser_page(p) as page:
            page.goto(f"{base}/tutor")
            page.get_by_text("is damaged and cannot be read", exact=False).wait_for()
            page.get_by_role("button", name="Restore the snapshot").click()
            page.get_by_text("Restored your library from the snapshot of", exact=False).wait_for()
            page.goto(f"{base}/")
            page.get_by_text("mit ch06", exact=False).first.wait_for()
            page.screenshot(path=str(tmp_path / "restored.png"))
    assert [p for p in settings.data_dir.iterdir() if ".damaged-" in p.name], "the damaged file is kept"
