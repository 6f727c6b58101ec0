"""Quiz: practice questions from a page range; only questions a blind solver confirms are kept."""

import streamlit as st

from citetutor.quiz import REASON_TEXT
from citetutor.ui.state import get_pipeline, shown_errors, subject_documents
from citetutor.ui.widgets import timing_panel

pipeline = get_pipeline()
st.title(":material/quiz: Quiz")
_, ready = subject_documents(pipeline, "quiz-subject", lambda d: d["status"] == "ready",
                             "No document in this subject is ready yet.")

docs = {d["id"]: d for d in ready}
doc_id = st.selectbox("Document", list(docs), format_func=lambda i: docs[i]["title"])
pages = docs[doc_id]["page_count"]
first, last, count = st.columns(3)
start = first.number_input("From page", 1, pages, 1)
end = last.number_input("To page", 1, pages, min(pages, start + 4))
how_many = count.slider("Questions", 1, 10, 5)
kinds = st.radio("Kind", ["mixed", "mcq", "short"], horizontal=True,
                 format_func={"mixed": "Mixed", "mcq": "Multiple choice", "short": "Short answer"}.get)

if st.button("Make questions", type="primary"):
    with st.status("Drafting and checking questions…", expanded=True) as status:
        def on_stage(stage: str, number: int) -> None:
            """Live progress per candidate."""
            status.update(label="Drafting…" if stage == "draft" else f"Checking question {number}…")

        with shown_errors():
            st.session_state["quiz-result"] = pipeline.quiz(doc_id, int(start), int(end), how_many,
                                                            kinds, on_stage)
        status.update(label="Done", state="complete", expanded=False)

result = st.session_state.get("quiz-result")
if result is not None:
    st.caption(f"{len(result.items)} kept · {result.rejected_count} rejected by the gate")
    for code, n in result.rejected.items():
        st.caption(f"– {n} × {REASON_TEXT.get(code, code)}")
    for i, item in enumerate(result.items, start=1):
        c = item.candidate
        with st.container(border=True):
            st.markdown(f"**{i}. {c.stem}**  \n_pages {', '.join(map(str, item.pages))}_")
            if c.kind == "mcq":
                pick = st.radio("Your answer", c.options, index=None, key=f"q-{item.id}")
                if pick is not None:
                    right = c.options.index(pick) == c.answer_index
                    (st.success if right else st.error)("Correct!" if right else f"Not quite: {item.key}")
            else:
                st.text_input("Your answer", key=f"q-{item.id}")
            with st.expander("Show answer and source"):
                st.markdown(f"**{item.key}**")
                for quote in item.quotes:
                    st.markdown(f"> {quote}")
    with st.expander("Timings"):
        timing_panel(result.spans)
