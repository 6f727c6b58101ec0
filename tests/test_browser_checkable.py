"""In a real browser: what a student checks can be checked. Tesseract's unsure lines are marked
and approving them unchanged asks first; a cited formula shows as the page draws it."""

from __future__ import annotations

import re

import pytest

from citetutor.config import ModelRoles, Settings
from citetutor.pipeline import Pipeline
from tests.browser import browser_page, running_app
from tests.corpus import MIT, corpus_file
from tests.helpers import as_json, blind_citing, quoting_draft

expect = pytest.importorskip("playwright.sync_api").expect
ROLES = ModelRoles()
RELAXATION = ("scanned", "msu-phy481-handwritten-12-method-of-relaxation.pdf")


def test_unsure_ocr_lines_are_marked_and_approving_them_asks_first(tmp_path, ollama_server, sync_playwright):
    settings = Settings(data_dir=tmp_path / "data", runtime="embedded")  # Tesseract reads the scan
    pipeline = Pipeline(settings)
    pipeline.upload(corpus_file(*RELAXATION).read_bytes(), "12_Relaxation.pdf", pipeline.create_subject("E&M"))
    pipeline.store.close()
    with running_app(settings.data_dir, ollama_server.url, tmp_path / "streamlit.log", runtime="embedded") as base, \
            sync_playwright() as p:
        with browser_page(p) as page:
            page.goto(f"{base}/scan_review")
            page.get_by_role("button", name="Make OCR drafts").click()
            page.get_by_text("The reader was unsure of", exact=False).wait_for()
            expect(page.get_by_label("Transcription", exact=True)).not_to_have_value("")  # the draft shows
            marked = page.locator("mark, span[class*='Background'], span[style*='background']")
            expect(marked.first).to_be_visible()
            page.get_by_role("button", name="Approve", exact=True).click()
            page.get_by_text("Approve anyway?", exact=False).wait_for()
            expect(page.get_by_text("Page 1 · pending")).to_be_visible()
            page.get_by_role("button", name="Approve anyway").click()
            page.get_by_text("Every page is reviewed", exact=False).wait_for()
            page.screenshot(path=str(tmp_path / "scan-unsure.png"))


def test_a_cited_formula_is_shown_as_the_page_draws_it(tmp_path, ollama_server, sync_playwright):
    ollama_server.models |= {ROLES.drafter, ROLES.verifier, ROLES.embedder, ROLES.ocr}
    settings = Settings(data_dir=tmp_path / "data", ollama_host=ollama_server.url)
    pipeline = Pipeline(settings)
    pipeline.upload(corpus_file(*MIT).read_bytes(), "mit-ch06.pdf", pipeline.create_subject("Mechanics"))
    pipeline.store.close()
    ollama_server.enqueue_chat(ROLES.drafter, as_json(quoting_draft("fourth alternate")))
    ollama_server.enqueue_chat(ROLES.verifier, as_json(blind_citing("fourth alternate")))
    with running_app(settings.data_dir, ollama_server.url, tmp_path / "streamlit.log") as base, \
            sync_playwright() as p:
        with browser_page(p) as page:
            page.goto(f"{base}/tutor")
            box = page.get_by_placeholder("Ask about your notes…")
            box.fill("How can the centripetal acceleration be written using the frequency and the radius?")
            box.press("Enter")
            page.get_by_role("button", name=re.compile(r"· p\. \d+$")).first.click()
            page.get_by_text("Cited lines, as your notes draw them", exact=False).wait_for()
            crop = page.get_by_test_id("stImage").last
            expect(crop).to_be_visible()
            assert crop.bounding_box()["height"] > 20
            page.screenshot(path=str(tmp_path / "formula.png"))
