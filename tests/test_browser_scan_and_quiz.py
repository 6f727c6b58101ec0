"""In a real browser: a learner corrects a scan's OCR and approves it; a quiz downloads as an
Anki deck that opens as the SQLite collection Anki reads."""

from __future__ import annotations

import io
import re
import sqlite3
import zipfile

import pytest

from citetutor.config import ModelRoles, Settings
from citetutor.pipeline import Pipeline
from citetutor.schemas import QuizBlindAnswer
from tests.browser import after_a_wait, browser_page, running_app
from tests.corpus import MIT, ONE_PAGE_SCAN, corpus_file

expect = pytest.importorskip("playwright.sync_api").expect  # assertions that retry until the UI settles

ROLES = ModelRoles()
OCR_DRAFT = "Method of relaxaton: each grid value becomes the avrage of its neighbours"
CORRECTED = "Method of relaxation: each grid value becomes the average of its four neighbours"
SEEN: dict[str, str] = {}  # the key and stem the scripted solver saw
OPTIONS: list[str] = []  # the card's options, as the solver saw them


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


def _picks_the_key(notes: str):
    """A solver reply that fills the card's blank from the notes (the test read them before the
    app started; the prompt never holds the card's sentence) and names the matching option."""
    def reply(body: dict) -> str:
        task = body["messages"][-1]["content"].split("Question: ", 1)[1].split("\nTask:", 1)[0]
        stem, *options = task.split("\n")
        sentence = stem.removeprefix("Which completes the sentence? ")
        pattern = re.escape(sentence).replace(re.escape("_____"), r"(\S+(?:\s\S+){0,2}?)").replace(r"\ ", r"\s+")
        found = re.search(pattern, notes, re.IGNORECASE)
        assert found, f"the stem is not a sentence of the notes: {stem}"
        SEEN["key"] = word = found.group(1)
        SEEN["stem"] = stem
        labels = [re.sub(r"^\d+\. ", "", o) for o in options]
        index = next(i for i, o in enumerate(labels) if o.lower() == word.lower())
        OPTIONS[:] = labels
        return QuizBlindAnswer(answer_text=word, choice_index=index, sentences=[1]).model_dump_json()
    return reply


def test_a_quiz_question_is_answered_reviewed_rescheduled_and_exported(tmp_path, ollama_server, sync_playwright):
    def upload(pipeline):
        subject = pipeline.create_subject("Mechanics")
        assert pipeline.upload(corpus_file(*MIT).read_bytes(), "mit-ch06.pdf", subject).status == "ready"
        upload.notes = " ".join(" ".join(t.split()) for (t,) in pipeline.store.query("SELECT text FROM chunks"))
    settings = _library(tmp_path, ollama_server, upload)
    ollama_server.enqueue_chat(ROLES.verifier, after_a_wait(5, _picks_the_key(upload.notes)))

    with running_app(settings.data_dir, ollama_server.url, tmp_path / "streamlit.log") as base, \
            sync_playwright() as p:
        with browser_page(p) as page:
            page.goto(f"{base}/quiz")
            slider = page.get_by_role("slider")
            slider.focus()
            slider.press("Home")  # one question
            page.get_by_text("Multiple choice").click()
            page.get_by_role("button", name="Make questions").click()
            expect(page.get_by_text("Checking candidate 1", exact=False)).to_be_visible()  # progress, a clock
            page.get_by_text("1 kept of 1 asked", exact=False).wait_for()
            key = next(o for o in OPTIONS if o.lower() == SEEN["key"].lower())
            wrong = next(o for o in OPTIONS if o != key)
            page.get_by_role("radiogroup", name="Your answer").get_by_text(wrong, exact=True).click()
            expect(page.get_by_text(f"Not quite: {key}")).to_be_visible()
            # The source says "highlighted" and is: the card's sentence is marked on its page.
            page.get_by_role("button", name=re.compile(r"· p\. \d+$")).first.click()
            page.get_by_text("highlighted: the cited passage").wait_for()
            viewer = page.locator('iframe[title*="streamlit_pdf_viewer"]').content_frame
            viewer.locator('[id^="annotation-"]').first.wait_for()
            assert viewer.locator('[id^="annotation-"]').count() >= 1
            page.get_by_role("button", name="Close").click()
            expect(page.get_by_text("highlighted: the cited passage")).to_have_count(0)
            with page.expect_download() as pending:
                page.get_by_role("button", name="Download Anki deck").click()
            download = pending.value
            assert download.suggested_filename.endswith(".apkg")
            deck = tmp_path / download.suggested_filename
            download.save_as(deck)
            # The kept question is in the deck, due now; a right answer moves it out.
            expect(page.get_by_text("Review deck: 1 due now of 1 questions")).to_be_visible()
            page.get_by_text("Review due cards").click()
            page.get_by_text("1 due · reviewed 0 times before").wait_for()
            # The make-questions card fades out once the run ends: wait for the review card alone.
            expect(page.get_by_role("radiogroup", name="Your answer")).to_have_count(1, timeout=60_000)
            # A click while the mode switch's run is still going was lost now and then (the radio
            # stayed empty): answer once the page has finished running, as a learner sees it.
            expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "notRunning",
                                                                   timeout=60_000)
            page.get_by_role("radiogroup", name="Your answer").get_by_text(key, exact=True).click()
            expect(page.get_by_text("Correct!")).to_be_visible()
            expect(page.get_by_text("Next review of this card in 10 minutes")).to_be_visible()
            page.get_by_role("button", name="Next card").click()
            expect(page.get_by_text("Review deck: 0 due now of 1 questions")).to_be_visible()
            expect(page.get_by_text("No card is due", exact=False)).to_be_visible()
            page.screenshot(path=str(tmp_path / "quiz.png"))

    with zipfile.ZipFile(io.BytesIO(deck.read_bytes())) as package:
        (tmp_path / "collection.anki2").write_bytes(package.read("collection.anki2"))
    collection = sqlite3.connect(tmp_path / "collection.anki2")
    assert collection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    fields = [row[0].split("\x1f") for row in collection.execute("SELECT flds FROM notes")]
    assert len(fields) == 1 and fields[0][0] == SEEN["stem"] and fields[0][2].lower() == SEEN["key"].lower()
