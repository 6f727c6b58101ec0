"""Quiz: practice questions from a page range, checked before they are shown, and a review deck."""

import streamlit as st

from citetutor.pipeline import DocStatus
from citetutor.ui.quiz_cards import KIND_WORDS, answer_card, due_in_words
from citetutor.ui.quiz_job import QuizJob
from citetutor.ui.state import get_pipeline, subject_documents, warn_missing_models
from citetutor.ui.widgets import REASON_WORDS, timing_bar, timing_panel

pipeline = get_pipeline()
st.title(":material/quiz: Quiz")
subject, ready = subject_documents(pipeline, "quiz-subject", lambda d: d["status"] == DocStatus.READY,
                                   "No document in this subject is ready yet.")
docs = {d["id"]: d for d in ready}
due_now, in_deck = pipeline.deck_counts(subject["id"])
# Fixed labels and a key: a label that carried the due count made a new widget whenever the
# count changed, and the page jumped back to "Make questions" after each review.
mode = st.radio("Mode", ["make", "review"], horizontal=True, label_visibility="collapsed", key="quiz-mode",
                format_func={"make": "Make questions", "review": "Review due cards"}.get)
st.caption(f"Review deck: {due_now} due now of {in_deck} questions kept in this subject.")


def review_deck() -> None:
    """The subject's due cards one at a time; each answer reschedules the card (FSRS).

    The card stays on screen after its answer (it is no longer due) until "Next card".
    """
    showing = st.session_state.setdefault("review-card", {})  # per subject
    card = showing.get(subject["id"])
    if card is None:
        due = pipeline.due_cards(subject["id"])
        if not due:
            st.info(f"No card is due. {in_deck} in this subject's deck: each question the quiz keeps "
                    "joins it, and comes back when it is due." if in_deck else
                    "The deck is empty: questions the quiz keeps join it.")
            return
        card = showing[subject["id"]] = due[0]
        st.caption(f"{len(due)} due · reviewed {card.reviews} times before")
    key = f"review-{card.item.id}-{card.reviews}"
    mark = answer_card(pipeline, card.doc_id, card.item, 1, key)
    if mark is None:
        return
    done = st.session_state.setdefault("reviewed", {})
    if key not in done:  # once per answer, whatever reruns follow
        done[key] = pipeline.record_review(card.item.id, mark.right)
        if not mark.right:  # a miss opens the page that states the answer
            sources = pipeline.quiz_sources(card.doc_id, card.item)
            if sources:
                st.session_state["open_citation"] = (key, sources[0])
                st.rerun()
    st.caption(f"Next review of this card {due_in_words(done[key])}.")
    if st.button("Next card", type="primary", key=f"{key}-next"):
        showing.pop(subject["id"], None)
        st.rerun()


def make_questions() -> None:
    """Choose a range; kept questions appear one by one while the rest are checked."""
    warn_missing_models("drafter", "verifier", "embedder")
    doc_id = st.selectbox("Document", list(docs), format_func=lambda i: docs[i]["title"])
    pages = docs[doc_id]["page_count"]
    first, last, count = st.columns(3)
    # Both fields keep the full range as bounds: a bound that moves with the other field made
    # Streamlit silently reset a value the learner had typed.
    start = first.number_input("From page", 1, pages, 1, key=f"quiz-from-{doc_id}")
    end = last.number_input("To page", 1, pages, min(pages, 5), key=f"quiz-to-{doc_id}")
    how_many = count.slider("Questions", 1, 10, 5)
    kinds = st.radio("Kind", ["mixed", "cloze", "mcq", "short"], horizontal=True,
                     format_func=lambda k: "Mixed" if k == "mixed" else KIND_WORDS[k])
    if end < start:
        st.error(f"Page {start} comes after page {end}: make the first page the smaller one.")
    job: QuizJob | None = st.session_state.get("quiz-job")
    busy = job is not None and job.running
    if st.button("Make questions", type="primary", disabled=end < start or busy):
        st.session_state["quiz-job"] = QuizJob(doc_id, int(start), int(end), how_many, kinds).start(pipeline)
        st.rerun()
    if job is not None:
        live_quiz(job)


def _live(job: QuizJob) -> None:
    """Progress with a running clock, then each kept question as soon as it passed."""
    title = docs[job.doc_id]["title"] if job.doc_id in docs else "document"
    found = f"{len(job.items)} of {job.count} ready"
    if job.running:
        st.info(f":material/hourglass_top: {job.stage} · {found} · {job.seconds():.0f} s — answer the "
                "ready ones while the rest are checked.")
    elif job.error:
        st.error(job.error)
    for i, item in enumerate(list(job.items), start=1):
        answer_card(pipeline, job.doc_id, item, i, f"quiz-{item.id}")
    result = job.result
    if result is None:
        return
    st.caption(f"Pages {job.first}–{job.last} of {title}: {len(result.items)} kept of {job.count} asked "
               f"in {job.seconds():.0f} s · {result.rejected_count} candidates dropped by the check")
    if result.shortfall:
        st.warning(result.shortfall)
    for code, n in result.rejected.items():
        st.caption(f"– {n} × {REASON_WORDS.get(code, code)}")
    if result.items:
        csv_col, anki_col = st.columns(2)
        name = f"{title} pp{job.first}-{job.last}".replace(" ", "-")
        csv_col.download_button("Download CSV", pipeline.export_quiz(result.items, title, "csv"),
                                f"{name}.csv", "text/csv", icon=":material/table:")
        anki_col.download_button("Download Anki deck", pipeline.export_quiz(result.items, title, "apkg"),
                                 f"{name}.apkg", "application/octet-stream", icon=":material/style:")
    timing_bar(result.spans, pipeline.model_roles())
    with st.expander("Every stage"):
        timing_panel(result.spans)


def live_quiz(job: QuizJob) -> None:
    """Poll the worker every second while it runs; one full rerun when it ends stops the polling."""
    if not job.running:
        _live(job)
        return

    @st.fragment(run_every=1.0)
    def poll() -> None:
        if not job.running:
            st.rerun()  # the whole page: the result, exports and the enabled button
        _live(job)
    poll()


if mode == "review":
    review_deck()
else:
    make_questions()
