"""Quiz: practice questions from a page range; only questions a blind solver confirms are kept."""

import streamlit as st

from citetutor.pipeline import DocStatus
from citetutor.ui.state import get_pipeline, shown_errors, subject_documents, warn_missing_models
from citetutor.ui.widgets import REASON_WORDS, citation_chips, open_citation_viewer, show_progress, timing_panel

pipeline = get_pipeline()
st.title(":material/quiz: Quiz")
_, ready = subject_documents(pipeline, "quiz-subject", lambda d: d["status"] == DocStatus.READY,
                             "No document in this subject is ready yet.")

warn_missing_models("drafter", "verifier", "embedder")
docs = {d["id"]: d for d in ready}
doc_id = st.selectbox("Document", list(docs), format_func=lambda i: docs[i]["title"])
pages = docs[doc_id]["page_count"]
first, last, count = st.columns(3)
# Both fields keep the full range as bounds: a bound that moves with the other field made
# Streamlit silently reset a value the learner had typed.
start = first.number_input("From page", 1, pages, 1, key=f"quiz-from-{doc_id}")
end = last.number_input("To page", 1, pages, min(pages, 5), key=f"quiz-to-{doc_id}")
how_many = count.slider("Questions", 1, 10, 5)
kinds = st.radio("Kind", ["mixed", "mcq", "short"], horizontal=True,
                 format_func={"mixed": "Mixed", "mcq": "Multiple choice", "short": "Short answer"}.get)
if end < start:
    st.error(f"Page {start} comes after page {end}: make the first page the smaller one.")

if st.button("Make questions", type="primary", disabled=end < start):
    with st.status(f"Drafting and checking questions from pages {start}–{end}…", expanded=True) as status:
        def on_stage(stage: str, number: int) -> None:
            """Live progress per candidate."""
            label = f"Drafting question {number}" if stage == "draft" else f"Checking question {number}"
            show_progress(status, label, label)

        with shown_errors():
            st.session_state["quiz-result"] = (doc_id, int(start), int(end),
                                               pipeline.quiz(doc_id, int(start), int(end), how_many,
                                                             kinds, on_stage))
        status.update(label="Done", state="complete", expanded=False)

kept = st.session_state.get("quiz-result")
if kept is not None:
    result_doc, result_start, result_end, result = kept
    title = docs[result_doc]["title"] if result_doc in docs else "document"
    st.caption(f"Pages {result_start}–{result_end} of {title}: {len(result.items)} kept · "
               f"{result.rejected_count} dropped by the check")
    if not result.items:
        st.info("No question passed the check, so none is shown. A question is kept only when an "
                "independent solver, reading the pages without the answer, reaches the same answer "
                "and the cited sentences state it. Pages of formulas, figures or lists rarely pass: "
                "try a wider range, or pages with definitions and explanations.")
    for code, n in result.rejected.items():
        st.caption(f"– {n} × {REASON_WORDS.get(code, code)}")
    for i, item in enumerate(result.items, start=1):
        c = item.candidate
        with st.container(border=True):
            st.markdown(f"**{i}. {c.stem}**")
            if c.kind == "mcq":
                pick = st.radio("Your answer", c.options, index=None, key=f"q-{item.id}")
                if pick is not None:
                    right = c.options.index(pick) == c.answer_index
                    (st.success if right else st.error)("Correct!" if right else f"Not quite: {item.key}")
            else:
                mine = st.text_input("Your answer", key=f"q-{item.id}")
                if st.button("Check my answer", key=f"check-{item.id}", disabled=not mine.strip()):
                    right = pipeline.check_answer(item, mine)
                    (st.success if right else st.warning)(
                        "That matches the answer." if right else f"Compare with the answer: {item.key}")
            with st.expander("Answer and source"):
                st.markdown(f"**{item.key}**")
                for quote in item.quotes:
                    st.markdown(f"> {quote}")
                citation_chips(pipeline.quiz_sources(result_doc, item), key=f"quiz-{item.id}")
                open_citation_viewer(pipeline, f"quiz-{item.id}")
    if result.items:
        csv_col, anki_col = st.columns(2)
        name = f"{title} pp{result_start}-{result_end}".replace(" ", "-")
        csv_col.download_button("Download CSV", pipeline.export_quiz(result.items, title, "csv"),
                                f"{name}.csv", "text/csv", icon=":material/table:")
        anki_col.download_button("Download Anki deck", pipeline.export_quiz(result.items, title, "apkg"),
                                 f"{name}.apkg", "application/octet-stream", icon=":material/style:")
    with st.expander("Timings"):
        timing_panel(result.spans)
