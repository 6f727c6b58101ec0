"""Tutor: ask for an explanation or hint; only verified answers are shown, with citations."""

import streamlit as st

from citetutor.ui.state import get_pipeline, shown_errors, subject_documents
from citetutor.ui.widgets import citation_chips, open_citation_viewer, timing_panel

STAGES = {"retrieve": "Finding passages", "blind_solve": "Verifier solving blind",
          "draft": "Drafting", "support_check": "Checking support"}

pipeline = get_pipeline()
st.title(":material/school: Tutor")
subject, ready = subject_documents(
    pipeline, "tutor-subject", lambda d: d["status"] == "ready",
    "No document in this subject is ready yet: upload one, or finish its scan review.")

titles = {d["id"]: d["title"] for d in ready}
chosen = st.multiselect("Documents (none = whole subject)", list(titles), format_func=titles.get)
mode = st.radio("I want", ["explain", "hint"], horizontal=True,
                format_func={"explain": "an explanation", "hint": "a hint"}.get)
notes = st.text_input("About me (optional: changes wording only)", placeholder="e.g. first-year, visual learner")
history = st.session_state.setdefault("tutor-history", [])

question = st.chat_input("Ask about your notes…")
if question:
    with st.status("Checking an answer before showing it…", expanded=True) as status:
        def on_stage(stage: str, attempt: int) -> None:
            """Live progress: the draft itself stays hidden until verified."""
            label = STAGES.get(stage, stage) + (f" (attempt {attempt})" if attempt else "")
            status.update(label=label + "…")
            status.write(label)

        with shown_errors():
            result = pipeline.ask(question, subject["id"], tuple(chosen), mode, notes, on_stage)
            history.append((question, result))
        status.update(label="Done", state="complete", expanded=False)

open_citation_viewer(pipeline)
for index, (asked, result) in reversed(list(enumerate(history))):
    with st.container(border=True):
        answer_col, timing_col = st.columns([3, 1])
        with answer_col:
            st.markdown(f"**You:** {asked}")
            if result.status == "answered":
                st.markdown(result.text)
                citation_chips(result.citations, key=f"a{index}")
            else:
                st.warning(result.text)
        with timing_col:
            st.caption(f"{':green[verified]' if result.status == 'answered' else ':orange[not shown]'} · "
                       f"{result.attempts} attempt(s)")
            timing_panel(result.spans)
