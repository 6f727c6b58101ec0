"""End to end in a real browser: ask the tutor, click the citation, see the cited page.

A real `streamlit run app.py` server (subprocess) over a real DuckDB in tmp_path, with every
model call going over HTTP to the loopback Ollama stand-in; Debian's chromium is driven by
Playwright (never downloads a browser). Waits are bounded; nothing asserts on timings.
"""

from __future__ import annotations

import re

import pymupdf
import pytest

from citetutor.config import ModelRoles, Settings
from citetutor.pipeline import Pipeline
from citetutor.schemas import Claim, Draft
from tests.browser import after_a_wait, browser_page, running_app
from tests.corpus import MIT, corpus_file
from tests.helpers import as_json, blind_citing, sentence_with

expect = pytest.importorskip("playwright.sync_api").expect  # assertions that retry until the UI settles

ROLES = ModelRoles()
QUESTION = "What is the direction of the acceleration for uniform circular motion?"
ANSWER = "The acceleration is directed radially inward."
SEEN: dict[str, str] = {}  # the sentence the scripted draft cited
# Every link Streamlit's own page menu ever shows, from the first paint on: the raw pages/
# list used to flash ("app", "library", …) on a fresh server's first visit.
RECORD_NAV_LINKS = """
window.navLinksSeen = [];
new MutationObserver(() => document.querySelectorAll('[data-testid="stSidebarNav"] a')
    .forEach(a => window.navLinksSeen.push(a.innerText.trim()))
).observe(document, {subtree: true, childList: true, characterData: true});
"""


def _latex_draft(body: dict) -> str:
    """The same claim with a vector in LaTeX, as a drafter may write it."""
    number, _ = sentence_with(body["messages"], "inward")
    return Draft(claims=[Claim(text=r"The acceleration $\vec{a}$ is directed radially inward.",
                               sentences=[number])]).model_dump_json()


def _draft(body: dict) -> str:
    """A draft claim citing the evidence sentence that says 'inward'; records its page."""
    number, text = sentence_with(body["messages"], "inward")
    SEEN["cited"] = text
    return Draft(claims=[Claim(text=ANSWER, sentences=[number])]).model_dump_json()


def test_citation_opens_the_cited_page_in_the_pdf_viewer(tmp_path, ollama_server, sync_playwright):
    ollama_server.models |= {ROLES.drafter, ROLES.verifier, ROLES.embedder, ROLES.ocr}
    settings = Settings(data_dir=tmp_path / "data", ollama_host=ollama_server.url)
    pipeline = Pipeline(settings)  # the app's own Ollama models, over real HTTP
    try:
        subject_id = pipeline.create_subject("Mechanics")
        doc = pipeline.upload(corpus_file(*MIT).read_bytes(), "mit-ch06.pdf", subject_id)
        assert doc.status == "ready" and doc.chunks
    finally:
        pipeline.store.close()  # the app opens the same DuckDB file next

    ollama_server.enqueue_chat(ROLES.drafter, _draft)
    ollama_server.enqueue_chat(ROLES.verifier, as_json(blind_citing()))

    with running_app(settings.data_dir, ollama_server.url, tmp_path / "streamlit.log") as base:
        with sync_playwright() as p:
            with browser_page(p) as page:
                page.add_init_script(RECORD_NAV_LINKS)
                page.goto(f"{base}/tutor")  # the first visit to a fresh server, straight to a page
                sidebar = page.get_by_test_id("stSidebar")
                sidebar.get_by_text("Runs on this computer through Ollama", exact=False).wait_for()  # app.py's
                seen = {t.lower() for t in page.evaluate("window.navLinksSeen")}
                assert not seen & {"app", "scan review", "scan_review"}, \
                    f"Streamlit's raw pages/ list showed before app.py's menu: {sorted(seen)}"
                expect(sidebar.get_by_role("link", name="Library")).to_be_visible()  # app.py's menu
                assert not sidebar.get_by_role("link", name="app", exact=True).count(), \
                    "not Streamlit's pages-folder navigation"
                box = page.get_by_placeholder("Ask about your notes…")
                box.fill(QUESTION)
                box.press("Enter")
                page.get_by_text(ANSWER).wait_for()
                page.screenshot(path=str(tmp_path / "answer.png"))
                expect(page.get_by_text("verified", exact=True)).to_be_visible()

                chip = page.get_by_role("button", name=re.compile(r"· p\. \d+$"))
                label = chip.inner_text()
                page_no = int(re.search(r"p\. (\d+)", label).group(1))
                cited_page = pymupdf.open(corpus_file(*MIT)).load_page(page_no - 1).get_text()
                assert SEEN["cited"].split()[0] in cited_page, "code resolved the page"
                chip.click()

                page.get_by_text(f"page {page_no} — highlighted: the cited passage").wait_for()
                iframe = page.locator('iframe[title*="streamlit_pdf_viewer"]')
                iframe.wait_for()
                viewer = iframe.content_frame
                canvas = viewer.locator(f"canvas#canvas_page_{page_no}")
                canvas.wait_for()
                expect(viewer.locator("canvas[id^=canvas_page_]")).to_have_count(1)  # only the cited page
                highlight = viewer.locator('[id^="annotation-"]').first
                highlight.wait_for()
                # The page really is drawn: its canvas holds dark (text) pixels, not a blank sheet.
                iframe.element_handle().content_frame().wait_for_function(
                    """(id) => { const c = document.getElementById(id);
                        if (!c || !c.width) return false;
                        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                        let dark = 0;
                        for (let i = 0; i < d.length; i += 4) if (d[i] + d[i+1] + d[i+2] < 300) dark++;
                        return dark > 1000; }""", arg=f"canvas_page_{page_no}")
                box_size = highlight.bounding_box()
                assert box_size and box_size["width"] > 10 and box_size["height"] > 10
                assert 1 <= viewer.locator('[id^="annotation-"]').count() <= 5, "the quoted lines only"
                # The PDF's own highlight annotation fills those lines like a marker pen.
                iframe.element_handle().content_frame().wait_for_function(
                    """(id) => { const c = document.getElementById(id);
                        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                        let marked = 0;
                        for (let i = 0; i < d.length; i += 4)
                            if (d[i] > 200 && d[i+1] > 200 && d[i+2] < 120) marked++;
                        return marked > 2000; }""", arg=f"canvas_page_{page_no}")
                iframe.scroll_into_view_if_needed()
                page.screenshot(path=str(tmp_path / "citation-page.png"))
                iframe.screenshot(path=str(tmp_path / "citation-viewer.png"))
                print(f"screenshots: {tmp_path / 'citation-page.png'} {tmp_path / 'citation-viewer.png'}")


def test_a_new_user_uploads_in_the_library_then_asks_and_opens_the_highlight(
        tmp_path, ollama_server, sync_playwright):
    ollama_server.models |= {ROLES.drafter, ROLES.verifier, ROLES.embedder, ROLES.ocr}
    ollama_server.enqueue_chat(ROLES.drafter, after_a_wait(6, _latex_draft))
    ollama_server.enqueue_chat(ROLES.verifier, as_json(blind_citing()))
    ollama_server.enqueue_chat(ROLES.drafter, after_a_wait(6, _draft))  # the follow-up question
    ollama_server.enqueue_chat(ROLES.verifier, as_json(blind_citing()))
    with running_app(tmp_path / "data", ollama_server.url, tmp_path / "streamlit.log") as base, \
            sync_playwright() as p:
        with browser_page(p) as page:
            page.goto(base)  # a fresh library: the Library page, "New subject" open
            page.get_by_label("Subject name").fill("Mechanics")
            page.get_by_role("button", name="Create subject").click()
            page.locator('input[type="file"]').set_input_files(str(corpus_file(*MIT)))
            page.get_by_role("button", name="Add to library").click()
            page.get_by_text(re.compile(r"19 pages, \d+ passages indexed")).wait_for()
            page.screenshot(path=str(tmp_path / "library.png"))
            page.get_by_test_id("stSidebar").get_by_role("link", name="Tutor").click()
            box = page.get_by_placeholder("Ask about your notes…")
            box.fill(QUESTION)
            box.press("Enter")
            # While the gate runs, its progress is open: the pages being checked and each stage.
            expect(page.get_by_text("Sources being checked — not an answer yet")).to_be_visible()
            expect(page.get_by_text(re.compile(r"\d+ s · Drafting an answer"))).to_be_visible()
            # ... and a source page opens without stopping the check.
            source = page.get_by_test_id("stExpander").filter(has_text=re.compile(r"circular motion p\. \d+"))
            source.first.get_by_text(re.compile(r"p\. \d+")).click()
            expect(source.first.get_by_role("img")).to_be_visible()
            page.screenshot(path=str(tmp_path / "sources.png"))
            answer = page.get_by_test_id("stChatMessage").filter(has_text="is directed radially inward")
            answer.wait_for()
            expect(answer.locator(".katex")).to_have_count(1)  # the answer's LaTeX is typeset
            expect(answer).not_to_contain_text("$")
            # The timing panel is in view beside the answer: both model roles, with their models.
            bar = answer.locator(".timing-bar")
            expect(bar).to_be_visible()
            expect(answer.get_by_text(re.compile(rf"drafter {ROLES.drafter}: \d+\.\d s"))).to_be_visible()
            expect(answer.get_by_text(re.compile(rf"verifier {ROLES.verifier}: \d+\.\d s"))).to_be_visible()
            page.get_by_role("button", name=re.compile(r"· p\. \d+$")).click()
            page.get_by_text("highlighted: the cited passage").wait_for()
            page.screenshot(path=str(tmp_path / "tutor.png"))
            # A new question with the page viewer open: its progress is where the learner looks.
            box = page.get_by_placeholder("Ask about your notes…")
            box.fill("Which way does the acceleration point when something goes round a circle at steady speed: "
                     "is it directed inward?")
            box.press("Enter")
            progress = page.get_by_text(re.compile(r"\d+ s · Drafting an answer")).last
            expect(progress).to_be_in_viewport()
            expect(page.get_by_text("highlighted: the cited passage")).to_have_count(0)
            expect(page.locator('iframe[title*="components.v1.html"], iframe[srcdoc*="clock"]').last).to_be_attached()
            expect(page.get_by_text(ANSWER)).to_have_count(1, timeout=60_000)  # the 2nd (the 1st is typeset)
            # Traces: the row says which question it was.
            page.get_by_test_id("stSidebar").get_by_role("link", name="Traces").click()
            page.get_by_text("Tutor: “Which way does the acceleration point when", exact=False).wait_for()
            print(f"screenshots: {tmp_path / 'library.png'} {tmp_path / 'tutor.png'}")
