"""The Streamlit pages through AppTest, over real DuckDB and a real loopback Ollama server.

State lives in tmp_path (CITETUTOR_DATA_DIR); every model call is real HTTP to the scripted
server (CITETUTOR_OLLAMA_HOST), so the sidebar health check, embeddings, drafting,
verification and OCR all go through the app's own Ollama adapters.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from citetutor.config import NOT_ENOUGH_EVIDENCE, ModelRoles, Settings
from citetutor.pipeline import Pipeline
from citetutor.schemas import BlindSolve, QuizBlindAnswer
from citetutor.ui.state import get_pipeline
from tests.corpus import HANDWRITTEN, MIT, corpus_file
from tests.helpers import as_json, blind_citing, claiming
from tests.ollama_server import FakeOllama

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
ROLES = ModelRoles()
QUESTION = "What is the direction of the acceleration for uniform circular motion?"
ANSWER = "The acceleration is directed radially inward."
OK, BAD = ":green[:material/check_circle:]", ":red[:material/error:]"  # sidebar health marks
READY, VERIFIED, NOT_SHOWN = ":green[ready]", ":green[verified]", ":orange[not shown]"
TIMEOUT = 60  # seconds per script run: generous bound, not a timing assertion


good_draft = as_json(claiming(ANSWER))
BLIND = as_json(blind_citing())


@pytest.fixture
def env(tmp_path, monkeypatch, ollama_server: FakeOllama) -> Iterator[Settings]:
    """Data dir and Ollama host for the app; every default model is installed on the server."""
    ollama_server.models |= {ROLES.drafter, ROLES.verifier, ROLES.embedder, ROLES.ocr}
    monkeypatch.setenv("CITETUTOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("CITETUTOR_OLLAMA_HOST", ollama_server.url)
    monkeypatch.setenv("CITETUTOR_RUNTIME", "ollama")  # health tests remove models on purpose
    st.cache_resource.clear()
    st.cache_data.clear()
    settings = Settings()
    assert settings.data_dir == tmp_path / "data" and settings.ollama_host == ollama_server.url
    yield settings
    # Close the app's cached DuckDB connection before the next test opens another one.
    if settings.db_path.exists():
        get_pipeline().store.close()  # the instance the app cached in this process
    st.cache_resource.clear()
    st.cache_data.clear()


def preingest(settings: Settings, folder_name: tuple[str, str], filename: str,
              subject: str = "Mechanics") -> str:
    """Ingest a corpus PDF with the same Ollama models the app builds; return its doc ID."""
    pipeline = Pipeline(settings)  # build_models(settings): real HTTP to the fake server
    try:
        subject_id = pipeline.create_subject(subject)
        result = pipeline.upload(corpus_file(*folder_name).read_bytes(), filename, subject_id)
        return result.doc_id
    finally:
        pipeline.store.close()


def run(target) -> AppTest:
    """Run the script (from the app or a just-set widget); fail on any uncaught exception."""
    at = target.run(timeout=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    return at


def start_app() -> AppTest:
    """The app on its default page (Library)."""
    return run(AppTest.from_file(APP, default_timeout=TIMEOUT))


def texts(elements) -> list[str]:
    """The text values of a list of elements."""
    return [e.value for e in elements]


def all_markdown(at: AppTest) -> str:
    """Every markdown string on the page, sidebar included."""
    return "\n".join(texts(at.markdown))


# Sidebar and Library


def test_sidebar_health_is_green_over_real_http(env, ollama_server):
    at = start_app()
    sidebar = "\n".join(texts(at.sidebar.markdown))
    for role, model in ROLES.model_dump().items():
        assert f"{OK} **{role}** `{model}`" in sidebar
    assert BAD not in sidebar
    captions = texts(at.sidebar.caption)
    assert captions[0].startswith("Runs on this computer through Ollama: gemma3:4b writes each answer")
    assert any(f"Ollama at {ollama_server.url}" in c for c in captions[1:]), "the details, one click away"
    assert ollama_server.requests("/api/tags"), "the health check asked the server"


def test_sidebar_health_is_red_for_a_missing_model(env, ollama_server):
    ollama_server.models.discard(ROLES.ocr)
    at = start_app()
    sidebar = "\n".join(texts(at.sidebar.markdown))
    assert f"{BAD} **ocr** `{ROLES.ocr}`" in sidebar
    assert f"{OK} **drafter** `{ROLES.drafter}`" in sidebar
    assert any("Not available: ocr" in c for c in texts(at.sidebar.caption)), "said without opening details"
    warnings = texts(at.warning)  # on the Library page, which needs OCR for scans
    assert any(f"The ocr model ({ROLES.ocr}) is not available" in w and f"ollama pull {ROLES.ocr}" in w
               for w in warnings), warnings


def test_an_offline_first_run_says_what_works_and_how_to_add_ollama(env, monkeypatch, tmp_path):
    monkeypatch.setenv("CITETUTOR_RUNTIME", "embedded")
    at = start_app()
    banner = " ".join(texts(at.info))
    assert "Running offline" in banner and "ollama pull" in banner
    assert "15–25 s" not in banner, "no fixed promise: this computer's own pace, once it has one"
    assert "Runs offline on this computer" in texts(at.sidebar.caption)[0]
    assert any("Qwen2.5-Coder" in c for c in texts(at.sidebar.caption)), "the model names, one click away"


@pytest.mark.parametrize("page, title", [
    ("pages/library.py", "Library"), ("pages/tutor.py", "Tutor"), ("pages/quiz.py", "Quiz"),
    ("pages/scan_review.py", "Scan Review"), ("pages/traces.py", "Traces")])
def test_every_page_runs_behind_app_py_with_the_health_sidebar(env, page, title):
    # Streamlit runs a pages/ script on its own until st.navigation has run once in the
    # process (AppTest resets that before every run): the page must still get app.py's sidebar.
    preingest(env, MIT, "mit-ch06.pdf")
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page(page)
    run(at)
    assert at.title[0].value.endswith(f" {title}")
    assert f"{OK} **drafter** `{ROLES.drafter}`" in "\n".join(texts(at.sidebar.markdown))
    run(at)  # and again on a plain rerun of the same page
    assert len(at.title) == 1 and at.title[0].value.endswith(f" {title}")
    assert f"{OK} **drafter** `{ROLES.drafter}`" in "\n".join(texts(at.sidebar.markdown))


def test_library_creates_a_subject_and_shows_it(env):
    at = start_app()
    assert "Create a subject in the Library and upload a PDF to start." in texts(at.info)
    at.text_input[0].input("Classical Mechanics")
    at = run(at.button[0].click())
    assert at.selectbox(key="library-subject").value == "Classical Mechanics"
    assert "Add PDFs to Classical Mechanics" in texts(at.subheader)
    assert "No documents yet." in texts(at.caption)


def test_library_upload_ingests_through_the_app(env, ollama_server):
    at = start_app()
    at.text_input[0].input("Mechanics")
    at = run(at.button[0].click())
    data = corpus_file(*MIT).read_bytes()
    at.file_uploader[0].set_value(("mit-ch06.pdf", data, "application/pdf"))
    upload = next(b for b in at.button if b.label == "Add to library")
    run(upload.click())
    successes = texts(at.success)
    assert any(s.startswith("'mit-ch06.pdf':") and "passages indexed" in s for s in successes), successes
    assert any(READY in m for m in texts(at.markdown))
    assert ollama_server.requests("/api/embed"), "chunks were embedded over HTTP"


def test_a_locked_pdf_waits_for_its_password_without_picking_the_file_again(env, ollama_server):
    at = start_app()
    at.text_input[0].input("Locked")
    at = run(at.button[0].click())
    name = "qpdf__enc-R2_V1_U-view_O-master.pdf"
    at.file_uploader[0].set_value((name, corpus_file("broken", name).read_bytes(), "application/pdf"))
    run(next(b for b in at.button if b.label == "Add to library").click())
    assert any("password-protected" in w for w in texts(at.warning))
    next(t for t in at.text_input if t.label == "Its password").input("wrong")
    run(next(b for b in at.button if b.label == "Unlock and add").click())
    assert any("not correct" in w for w in texts(at.warning))
    next(t for t in at.text_input if t.label == "Its password").input("view")
    run(next(b for b in at.button if b.label == "Unlock and add").click())
    assert any(READY in m and "30 pages" in m for m in texts(at.markdown))
    assert not [b for b in at.button if b.label == "Unlock and add"], "the waiting file is gone"


def test_library_lists_a_preingested_document(env):
    preingest(env, MIT, "mit-ch06.pdf")
    at = start_app()
    docs = [m for m in texts(at.markdown) if READY in m]
    assert len(docs) == 1 and "pages" in docs[0] and "passages" in docs[0]
    assert not at.warning, "the app's embedder matches the stored vectors: no re-embed offer"


# Tutor


def test_tutor_without_documents_says_so(env):
    Pipeline(env).store.close()
    at = start_app()
    at.text_input[0].input("Empty subject")
    at = run(at.button[0].click())
    at.switch_page("pages/tutor.py")
    run(at)
    assert any("No document in this subject is ready yet" in i for i in texts(at.info))


def ask_verified_question(env, ollama_server):
    """Pre-ingest the MIT chapter, script a passing gate, and ask QUESTION on the Tutor page."""
    preingest(env, MIT, "mit-ch06.pdf")
    ollama_server.enqueue_chat(ROLES.drafter, good_draft)
    ollama_server.enqueue_chat(ROLES.verifier, BLIND)
    at = start_app()
    at.switch_page("pages/tutor.py")
    run(at)
    run(at.chat_input[0].set_value(QUESTION))
    return at


def test_tutor_shows_a_verified_answer_with_citation_that_opens_the_page(env, ollama_server):
    at = ask_verified_question(env, ollama_server)
    markdown = all_markdown(at)
    assert QUESTION in markdown and ANSWER in markdown
    assert any(VERIFIED in c for c in texts(at.caption))
    chips = [b for b in at.button if re.fullmatch(r".+ · p\. \d+", b.label)]
    assert len(chips) == 1
    page_no = int(chips[0].label.rsplit("p. ", 1)[1])
    # Both model families were asked over HTTP: one draft, a blind solve, and the verifier
    # judging the claim against its code-made flip in both orders.
    models = [b["model"] for b in ollama_server.requests("/api/chat")]
    assert models.count(ROLES.drafter) == 1 and models.count(ROLES.verifier) == 3
    run(chips[0].click())  # the viewer must open on this click, not on the next rerun
    assert any(f"page {page_no} — highlighted: the cited passage" in m for m in texts(at.markdown))
    assert any(b.label == "Close" for b in at.button)
    run(next(b for b in at.button if b.label == "Close").click())
    assert not any("highlighted: the cited passage" in m for m in texts(at.markdown))


def test_tutor_refusal_shows_not_enough_evidence(env, ollama_server):
    preingest(env, MIT, "mit-ch06.pdf")
    ollama_server.enqueue_chat(ROLES.drafter, good_draft)
    ollama_server.enqueue_chat(ROLES.verifier,
                               BlindSolve(answer="", sentences=[]).model_dump_json())
    at = start_app()
    at.switch_page("pages/tutor.py")
    run(at)
    run(at.chat_input[0].set_value(QUESTION))
    assert NOT_ENOUGH_EVIDENCE in texts(at.warning)
    assert ANSWER not in all_markdown(at), "a refused draft is never shown"
    assert any(NOT_SHOWN in c for c in texts(at.caption))
    assert any("found no sentence that answers it" in c for c in texts(at.caption)), "says why"
    nearby = [b for b in at.button if re.fullmatch(r".+ · p\. \d+", b.label)]
    assert nearby and all(not b.help for b in nearby), "offers the closest pages, not citations"
    run(nearby[0].click())
    assert any("a page the tutor looked at" in m for m in texts(at.markdown))


def test_conversation_survives_a_reload_and_reads_follow_ups_with_context(env, ollama_server):
    at = ask_verified_question(env, ollama_server)
    ollama_server.enqueue_chat(ROLES.drafter, good_draft)
    ollama_server.enqueue_chat(ROLES.verifier, BLIND)
    run(at.chat_input[0].set_value("Why is that?"))
    follow_up = [b["messages"][-1]["content"] for b in ollama_server.requests("/api/chat")][-3]
    assert QUESTION in follow_up, "the follow-up was searched and drafted with its context"
    again = start_app()  # a new session: a reload, or coming back tomorrow
    again.switch_page("pages/tutor.py")
    run(again)
    markdown = all_markdown(again)
    assert QUESTION in markdown and "Why is that?" in markdown and ANSWER in markdown
    assert any("Read as a follow-up" in c for c in texts(again.caption))
    run(next(b for b in again.button if b.label == "Clear this conversation").click())
    assert "Why is that?" not in all_markdown(again)


def test_a_blank_question_is_an_error_not_a_silent_done(env):
    preingest(env, MIT, "mit-ch06.pdf")
    at = start_app()
    at.switch_page("pages/tutor.py")
    run(at)
    run(at.chat_input[0].set_value("   "))
    assert any("Type a question first" in e for e in texts(at.error))


def test_tutor_shows_model_errors_instead_of_crashing(env, ollama_server):
    preingest(env, MIT, "mit-ch06.pdf")
    ollama_server.enqueue_chat(ROLES.verifier, BLIND)  # the blind solve still runs
    ollama_server.models.discard(ROLES.drafter)  # chat for it now answers 404: not installed
    at = start_app()
    at.switch_page("pages/tutor.py")
    run(at)
    run(at.chat_input[0].set_value(QUESTION))
    errors = texts(at.error)
    assert any(f"ollama pull {ROLES.drafter}" in e for e in errors), errors


def test_an_unexpected_bug_shows_a_reference_not_a_traceback(env, monkeypatch):
    preingest(env, MIT, "mit-ch06.pdf")

    def broken(*args, **kwargs):
        raise ValueError("a bug, not the learner's fault")
    monkeypatch.setattr(Pipeline, "ask", broken)
    at = start_app()
    at.switch_page("pages/tutor.py")
    run(at)
    run(at.chat_input[0].set_value(QUESTION))
    errors = texts(at.error)
    assert any(re.search(r"reference [0-9a-f]{8}", e) for e in errors), errors
    assert not at.exception and not any("ValueError" in e for e in errors)


# Quiz


def test_quiz_without_ready_documents_shows_info(env):
    preingest(env, HANDWRITTEN, "07_Energy.pdf", subject="E&M")  # a scan: needs review first
    at = start_app()
    at.switch_page("pages/quiz.py")
    run(at)
    assert "No document in this subject is ready yet." in texts(at.info)
    assert not [b for b in at.button if b.label == "Make questions"]


def test_quiz_page_offers_the_ready_document(env):
    preingest(env, MIT, "mit-ch06.pdf")
    at = start_app()
    at.switch_page("pages/quiz.py")
    run(at)
    assert at.selectbox[1].label == "Document" and at.selectbox[1].value
    assert [b for b in at.button if b.label == "Make questions"]


def filled_from(settings: Settings):
    """A solver reply that fills the quiz blank from the notes' own text (the test's knowledge:
    the prompt never holds the sentence), or names a wrong word first."""
    wrong_first = [True]

    def reply(body: dict) -> str:
        task = body["messages"][-1]["content"].split("Question: ", 1)[1].split("\nTask:", 1)[0]
        stem = re.sub(r"^(Fill in the blank|Which completes the sentence\?):? ", "", task.split("\n")[0])
        notes = " ".join(" ".join(t.split()) for (t,) in get_pipeline().store.query("SELECT text FROM chunks"))
        pattern = re.escape(stem).replace(re.escape("_____"), r"(\S+(?:\s\S+){0,2}?)").replace(r"\ ", r"\s+")
        found = re.search(pattern, notes, re.IGNORECASE)
        assert found, f"the stem is not a sentence of the notes: {stem}"
        word = found.group(1)
        SEEN["key"] = word
        if wrong_first.pop() if wrong_first else False:
            word = "photosynthesis"
        return QuizBlindAnswer(answer_text=word, sentences=[1]).model_dump_json()
    return reply


SEEN: dict[str, str] = {}  # what a scripted reply chose, for the assertions


def wait_for_quiz(at: AppTest) -> AppTest:
    """Rerun the page until the quiz worker has finished (it polls itself in a browser)."""
    for _ in range(120):
        if any("kept of" in c for c in texts(at.caption)):
            return at
        time.sleep(0.5)
        at = run(at)
    raise AssertionError(f"the quiz never finished: {texts(at.caption)} {texts(at.info)} {texts(at.error)} "
                         f"{texts(at.title)}")


def test_quiz_keeps_only_checked_questions_marks_answers_and_reviews_the_deck(env, ollama_server):
    preingest(env, MIT, "mit-ch06.pdf")
    fill = filled_from(env)
    ollama_server.enqueue_chat(ROLES.verifier, fill)
    ollama_server.enqueue_chat(ROLES.verifier, fill)
    at = start_app()
    at.switch_page("pages/quiz.py")
    run(at)
    run(next(s for s in at.slider if s.label == "Questions").set_value(1))
    run(next(r for r in at.radio if r.label == "Kind").set_value("cloze"))
    at = wait_for_quiz(run(next(b for b in at.button if b.label == "Make questions").click()))
    assert any("1 kept of 1 asked" in c for c in texts(at.caption)), texts(at.caption)
    assert any(c.startswith("– 1 × solver answered differently") for c in texts(at.caption))
    assert sum("_____" in m for m in texts(at.markdown)) == 1, "the dropped card is not shown"
    answer = next(t for t in at.text_input if t.label == "Your answer")
    run(answer.set_value("photosynthesis"))
    run(next(b for b in at.button if b.label == "Check my answer").click())
    assert any("The answer: " in e for e in texts(at.error)), texts(at.error)
    run(next(t for t in at.text_input if t.label == "Your answer").set_value(SEEN["key"].upper()))
    run(next(b for b in at.button if b.label == "Check my answer").click())
    assert texts(at.success), "the key's own word, in capitals, is right"
    assert len(at.get("download_button")) == 2, "CSV and Anki exports of the kept items"
    # The kept card is in the deck, due now; answering it right schedules it away.
    assert any("1 due now of 1" in c for c in texts(at.caption))
    run(next(r for r in at.radio if r.label == "Mode").set_value("review"))
    run(next(t for t in at.text_input if t.label == "Your answer").set_value("photosynthesis"))
    run(next(b for b in at.button if b.label == "Check my answer").click())
    assert any(c.startswith("Next review of this card in ") for c in texts(at.caption)), texts(at.caption)
    assert "highlighted: the cited passage" in all_markdown(at), "a miss opens the page that states it"
    run(next(b for b in at.button if b.label == "Next card").click())
    assert any("No card is due" in i for i in texts(at.info))


def test_a_refusal_says_a_scan_in_the_subject_still_waits_for_review(env, ollama_server):
    preingest(env, MIT, "mit-ch06.pdf")
    preingest(env, HANDWRITTEN, "07_Energy.pdf")  # same subject: a scan, kept out until reviewed
    ollama_server.enqueue_chat(ROLES.drafter, good_draft)
    ollama_server.enqueue_chat(ROLES.verifier, BlindSolve(answer="", sentences=[]).model_dump_json())
    at = start_app()
    at.switch_page("pages/tutor.py")
    run(at)
    run(at.chat_input[0].set_value("How is the energy of moving a charge worked out?"))
    assert NOT_ENOUGH_EVIDENCE in texts(at.warning)
    waiting = [i for i in texts(at.info) if i.startswith("Not searched yet:")]
    assert waiting and "07 Energy" in waiting[0] and "waits for your review" in waiting[0]
    assert [link for link in at.get("page_link") if "Review the scan" in str(link.proto)]


def test_quiz_refuses_a_backwards_page_range_in_words(env):
    preingest(env, MIT, "mit-ch06.pdf")
    at = start_app()
    at.switch_page("pages/quiz.py")
    run(at)
    run(next(n for n in at.number_input if n.label == "From page").set_value(9))
    run(next(n for n in at.number_input if n.label == "To page").set_value(3))
    assert any("Page 9 comes after page 3" in e for e in texts(at.error))
    assert next(b for b in at.button if b.label == "Make questions").disabled
    assert next(n for n in at.number_input if n.label == "To page").value == 3, "what was typed stays"


# Scan Review


def test_scan_review_drafts_ocr_and_approving_every_page_releases_the_scan(env, ollama_server):
    doc_id = preingest(env, HANDWRITTEN, "07_Energy.pdf", subject="E&M")
    at = start_app()
    at.switch_page("pages/scan_review.py")
    run(at)
    assert at.selectbox(key="scan-subject").value == "E&M"
    assert len(at.selectbox[1].options) == 1 and at.selectbox[1].options[0].endswith("(6 to review)")
    assert any("pages have no OCR draft yet" in w for w in texts(at.warning))
    pages = [f"Page {i}: the work done moving a charge equals the change in potential energy"
             for i in range(1, 7)]
    for text in pages:
        ollama_server.enqueue_chat(ROLES.ocr, text)
    run(next(b for b in at.button if b.label == "Make OCR drafts").click())
    ocr_calls = [b for b in ollama_server.requests("/api/chat") if b["model"] == ROLES.ocr]
    assert len(ocr_calls) == 6 and all(b["messages"][0]["images"] for b in ocr_calls)
    assert [a.value for a in at.text_area] == pages
    assert "This document stays out of the tutor until every page is reviewed." in texts(at.info)

    # The learner corrects page 1, approves pages 1-5 and marks page 6 blank.
    next(a for a in at.text_area if a.key and a.key.startswith(f"text-{doc_id}-1-")).input(pages[0] + " (checked)")
    run(at.button(key=f"approve-{doc_id}-1").click())
    approved = next(a for a in at.text_area if a.label == "Transcription (approved)")
    assert approved.disabled, "an approved page is read-only"
    assert approved.value == pages[0] + " (checked)", "shows the learner's correction"
    assert "**Page 1** · approved" in all_markdown(at)
    for page_no in range(2, 6):
        run(at.button(key=f"approve-{doc_id}-{page_no}").click())
    run(at.button(key=f"blank-{doc_id}-6").click())
    assert "Every page is reviewed: this document is in the tutor's library." in texts(at.success)

    chunks = get_pipeline().store.query(
        "SELECT page_no, text FROM chunks WHERE doc_id = ? ORDER BY page_no", [doc_id])
    assert [p for p, _ in chunks] == [1, 2, 3, 4, 5]
    assert "(checked)" in chunks[0][1]

    # Now the tutor and the quiz both see it.
    at.switch_page("pages/quiz.py")
    run(at)
    assert "No document in this subject is ready yet." not in texts(at.info)
    assert at.selectbox[1].label == "Document" and len(at.selectbox[1].options) == 1


def test_scan_review_without_scans_says_so(env):
    preingest(env, MIT, "mit-ch06.pdf")
    at = start_app()
    at.switch_page("pages/scan_review.py")
    run(at)
    assert any("No scanned documents in this subject" in i for i in texts(at.info))


# Traces


def test_traces_without_requests_says_so(env):
    Pipeline(env).store.close()
    at = start_app()
    at.switch_page("pages/traces.py")
    run(at)
    assert "No requests yet: ask the tutor something and come back." in texts(at.info)


def test_traces_shows_the_tutor_request_and_its_spans(env, ollama_server):
    at = ask_verified_question(env, ollama_server)  # preingest also records an ingest request
    assert ANSWER in all_markdown(at)
    at.switch_page("pages/traces.py")
    run(at)
    assert "Time per stage" in texts(at.subheader)
    frames = [df.value for df in at.dataframe]
    recent = next(df for df in frames if "request" in df.columns and "attempts" in df.columns)
    tutor = recent[recent["request"] == "Tutor"]
    assert len(tutor) == 1 and tutor["outcome"].iloc[0] == "answered"
    assert tutor["question or item"].iloc[0] == QUESTION[:80] or QUESTION.startswith(
        tutor["question or item"].iloc[0].rstrip("…")), "a row says which question it was"
    assert re.fullmatch(r"\d+\.\d", tutor["seconds"].iloc[0])
    assert "mit-ch06.pdf" in set(recent[recent["request"] == "Uploads"]["question or item"])
    assert all(isinstance(v, str) for v in recent["attempts"]), "one type per column: Arrow converts it"
    stages = next(df for df in frames if "median s" in df.columns)
    assert {"Retrieval", "Drafting", "Blind solve", "Support check"} <= set(stages["stage"])
    assert not any("None" in str(v) for df in frames[:3] for v in df.to_numpy().ravel())

    at.radio[0].set_value("tutor")
    run(at)
    recent = next(df.value for df in at.dataframe if "attempts" in df.value.columns)
    assert set(recent["request"]) == {"Tutor"}
    spans = next(df.value for df in at.dataframe if "stage" in df.value.columns and "seconds" in df.value.columns)
    assert {"Retrieval", "Drafting", "Blind solve", "Support check"} <= set(spans["stage"])


def test_every_reason_code_has_words_for_the_learner():
    from citetutor.tracing import REASON_CODES
    from citetutor.ui.widgets import REASON_WORDS
    assert set(REASON_WORDS) == set(REASON_CODES)


def test_scan_review_marks_lines_tesseract_was_unsure_of_and_asks_before_approving_them(env, monkeypatch):
    """The real offline OCR (Tesseract) on real handwriting: its weak lines are marked, and a
    one-click approval of them asks first."""
    monkeypatch.setenv("CITETUTOR_RUNTIME", "embedded")
    settings = Settings()
    doc_id = preingest(settings, HANDWRITTEN, "07_Energy.pdf", subject="E&M")
    at = start_app()
    at.switch_page("pages/scan_review.py")
    run(at)
    run(next(b for b in at.button if b.label == "Make OCR drafts").click())
    marked = [m for m in texts(at.markdown) if ":orange-background[" in m]
    assert marked, "unsure lines are marked for the learner"
    assert any("The reader was unsure of" in c and "check each against the image" in c for c in texts(at.caption))
    run(at.button(key=f"approve-{doc_id}-1").click())
    assert any("Approve anyway?" in w for w in texts(at.warning)), "asks before approving unchecked text"
    assert "**Page 1** · pending" in all_markdown(at), "not approved yet"
    run(at.button(key=f"approve-anyway-{doc_id}-1").click())
    assert "**Page 1** · approved" in all_markdown(at)
