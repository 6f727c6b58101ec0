"""In a real browser: a learner corrects a scan's OCR and approves it; a quiz downloads as an
Anki deck that opens as the SQLite collection Anki reads."""

from __future__ import annotations

import io
import sqlite3
import zipfile

import pytest

from citetutor.config import ModelRoles, Settings
from citetutor.pipeline import Pipeline
from citetutor.schemas import KeySupportVerdict, QuizBlindAnswer, QuizCandidate
from tests.browser import after_a_wait, browser_page, running_app
from tests.corpus import MIT, ONE_PAGE_SCAN, corpus_file
from tests.helpers import evidence_sentences

expect = pytest.importorskip("playwright.sync_api").expect  # assertions that retry until the UI settles

ROLES = ModelRoles()
OCR_DRAFT = "Method of relaxaton: each grid value becomes the avrage of its neighbours"
CORRECTED = "Method of relaxation: each grid value becomes the average of its four neighbours"
SEEN: dict[str, str] = {}  # the key the scripted drafter chose
STEM = "Which way does the acceleration of uniform circular motion point?"


def _library(tmp_path, ollama_server, upload) -> Settings:
    """A data dir prepared through the app's own Pipeline (models over loopback HTTP)."""
    ollama_server.models |= {ROLES.drafter, ROLES.verifier, ROLES.embedder, ROLES.ocr}
    settings = Settings(data_dir=tmp_path / "data", ollama_host=ollama_server.url)
    pipeline = Pipeline(settings)
    try:
        upload(pipeline)
    finally:
        pipeline.store.close()  # the app opens the same DuckDB file next
    return settings


def test_an_edited_scan_page_shows_the_edit_after_approve(tmp_path, ollama_server, sync_playwright):
    def upload(pipeline):
        subject = pipeline.create_subject("E&M")
        doc = pipeline.upload(corpus_file(*ONE_PAGE_SCAN).read_bytes(), "12_Relaxation.pdf", subject)
        assert doc.status == "needs_review"
        ollama_server.enqueue_chat(ROLES.ocr, OCR_DRAFT)
        assert pipeline.run_ocr(doc.doc_id) == 1
        upload.doc_id = doc.doc_id
    settings = _library(tmp_path, ollama_server, upload)

    with running_app(settings.data_dir, ollama_server.url, tmp_path / "streamlit.log") as base, \
            sync_playwright() as p:
        with browser_page(p) as page:
            page.goto(f"{base}/scan_review")
            page.get_by_text("This document stays out of the tutor until every page is reviewed.").wait_for()
            box = page.get_by_label("Transcription", exact=True)
            expect(box).to_have_value(OCR_DRAFT)  # retries: the widget may paint before its value
            box.fill(CORRECTED)
            box.press("Control+Enter")  # commit the edit the way a learner's click away would
            page.get_by_role("button", name="Approve").click()
            page.get_by_text("Every page is reviewed: this document is in the tutor's library.").wait_for()
            saved = page.get_by_label("Transcription (approved)")
            expect(saved).to_be_disabled()
            expect(saved).to_have_value(CORRECTED)
            expect(page.get_by_text("Page 1 · approved")).to_be_visible()
            page.screenshot(path=str(tmp_path / "scan-approved.png"))

    pipeline = Pipeline(settings)
    chunks = pipeline.store.query("SELECT text FROM chunks WHERE doc_id = ?", [upload.doc_id])
    assert chunks and CORRECTED in " ".join(t for (t,) in chunks), "the tutor reads the learner's edit"


def _quiz_item(body: dict) -> str:
    """An MCQ whose key is the first words of the last source sentence, which it cites."""
    number, text = evidence_sentences(body["messages"])[-1]
    SEEN["key"] = key = " ".join(text.split()[:6])
    return QuizCandidate(stem=STEM, kind="mcq", options=[key, "Away from the center",
                                                         "Along the velocity"],
                         answer_index=0, answer_text=key, sentences=[number]).model_dump_json()


def test_a_kept_quiz_question_downloads_as_an_anki_deck(tmp_path, ollama_server, sync_playwright):
    def upload(pipeline):
        subject = pipeline.create_subject("Mechanics")
        assert pipeline.upload(corpus_file(*MIT).read_bytes(), "mit-ch06.pdf", subject).status == "ready"
    settings = _library(tmp_path, ollama_server, upload)
    ollama_server.enqueue_chat(ROLES.drafter, after_a_wait(5, _quiz_item))
    ollama_server.enqueue_chat(ROLES.verifier, QuizBlindAnswer(
        answer_text="the first option", choice_index=0, sentences=[1]).model_dump_json())
    ollama_server.enqueue_chat(ROLES.verifier, KeySupportVerdict(why="stated", supported=True).model_dump_json())

    with running_app(settings.data_dir, ollama_server.url, tmp_path / "streamlit.log") as base, \
            sync_playwright() as p:
        with browser_page(p) as page:
            page.goto(f"{base}/quiz")
            slider = page.get_by_role("slider")
            slider.focus()
            slider.press("Home")  # one question
            page.get_by_text("Multiple choice").click()
            page.get_by_role("button", name="Make questions").click()
            expect(page.get_by_text("Drafting question 1", exact=True)).to_be_visible()  # progress stays open
            page.get_by_text("1 kept · 0 dropped by the check", exact=False).wait_for()
            page.get_by_text(STEM).wait_for()
            with page.expect_download() as pending:
                page.get_by_role("button", name="Download Anki deck").click()
            download = pending.value
            assert download.suggested_filename.endswith(".apkg")
            deck = tmp_path / download.suggested_filename
            download.save_as(deck)
            page.screenshot(path=str(tmp_path / "quiz.png"))

    with zipfile.ZipFile(io.BytesIO(deck.read_bytes())) as package:
        (tmp_path / "collection.anki2").write_bytes(package.read("collection.anki2"))
    collection = sqlite3.connect(tmp_path / "collection.anki2")
    assert collection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    fields = [row[0].split("\x1f") for row in collection.execute("SELECT flds FROM notes")]
    assert len(fields) == 1 and fields[0][0] == STEM and fields[0][2] == SEEN["key"]
