"""Tutor: a conversation per subject; only verified answers are shown, with citations."""

import time

import streamlit as st

from citetutor.pipeline import MAX_QUESTION_CHARS, DocStatus, Mode
from citetutor.ui.state import get_pipeline, shown_errors, subject_documents, warn_missing_models
from citetutor.ui.widgets import (
    STAGE_PROGRESS,
    citation_chips,
    open_citation_viewer,
    running_clock,
    show_progress,
    source_previews,
    timing_bar,
    timing_panel,
    total_seconds,
)

pipeline = get_pipeline()
st.title(":material/school: Tutor")
subject, ready = subject_documents(
    pipeline, "tutor-subject", lambda d: d["status"] == DocStatus.READY,
    "No document in this subject is ready yet: upload one, or finish its scan review.")

warn_missing_models("drafter", "verifier", "embedder")
titles = {d["id"]: d["title"] for d in ready}
with st.expander("Options: documents, explanation or hint, about me"):
    chosen = st.multiselect("Documents (none = whole subject)", list(titles), format_func=titles.__getitem__)
    mode: Mode = st.radio("I want", ["explain", "hint"], horizontal=True,
                          format_func={"explain": "an explanation", "hint": "a hint"}.__getitem__)
    notes = st.text_input("About me (changes wording only)", placeholder="e.g. first-year, visual learner")


def show_turn(turn) -> None:
    """One question and what was shown for it, with its citations and timings."""
    result, key = turn.answer, f"t{turn.id}"
    with st.chat_message("user"):
        st.markdown(turn.question)
        if turn.searched != turn.question:
            st.caption(f"Read as a follow-up: searched for “{turn.searched}”")
    with st.chat_message("assistant"):
        cached = result.from_cache
        if result.status == "answered" and result.form == "quote":
            st.caption("The tutor's own wording could not be verified, so here is what your notes "
                       "say, word for word (both models chose these sentences):")
            st.markdown("\n\n".join(f"> {text}" for text, _ in result.claims))
            citation_chips(result.citations, key=key)
            st.caption(":green[quoted from your notes]" + (" · served from the cache" if cached else ""))
        elif result.status == "answered":
            st.markdown(result.text)
            citation_chips(result.citations, key=key)
            st.caption(f":green[verified] · {result.attempts} attempt(s)"
                       + (" · checked earlier, served from the cache" if cached else ""))
        else:
            st.warning(result.text)
            st.caption(pipeline.refusal_reason(result))
            if result.nearby:
                st.caption("Closest pages (not an answer):")
                citation_chips(result.nearby, key=key, icon=":material/search:")
            st.caption(":orange[not shown]")
            if waiting:  # the answer may be in a scan the tutor cannot read yet
                names = ", ".join(f"“{d['title']}” ({d['pages_to_review']} pages)" for d in waiting)
                st.info(f"Not searched yet: {names} in this subject still waits for your review.",
                        icon=":material/document_scanner:")
                st.page_link("pages/scan_review.py", label="Review the scan", icon=":material/document_scanner:")
        if result.status == "answered" and result.missing_parts:
            st.caption("Your notes do not cover this part of the question: "
                       + "; ".join(f"“{part}”" for part in result.missing_parts))
        open_citation_viewer(pipeline, key)
        timing_bar(result.spans, roles)  # in view: who took how long, with which model
        with st.expander(f"Every stage · {total_seconds(result.spans):.1f} s"):
            timing_panel(result.spans)


roles = pipeline.model_roles()
waiting = [d for d in pipeline.documents(subject["id"]) if d["pages_to_review"]]
question = st.chat_input("Ask about your notes…", max_chars=MAX_QUESTION_CHARS)
if question:  # an open page viewer would push the new question's progress out of sight
    st.session_state.pop("open_citation", None)
turns = pipeline.chat_history(subject["id"])
for turn in turns:
    show_turn(turn)
if turns and st.button("Clear this conversation", icon=":material/delete_sweep:"):
    pipeline.clear_chat(subject["id"])
    st.rerun()

if question:
    with st.chat_message("user"):
        st.markdown(question)
    with st.chat_message("assistant"):
        sources_box = st.container()  # above the progress, filled as soon as retrieval is done
        running_clock(pipeline.typical_seconds())
        with st.status("Checking an answer before showing it…", expanded=True) as status:
            started = time.monotonic()

            def on_stage(stage: str, attempt: int) -> None:
                """Live progress with elapsed time: the draft itself stays hidden until verified."""
                label = STAGE_PROGRESS.get(stage, stage) + (f" (attempt {attempt})" if attempt else "")
                if stage == "draft" and attempt == 1 and pipeline.blind_solve_in_parallel:
                    label += " while the verifier answers blind"
                show_progress(status, label, f"{time.monotonic() - started:4.0f} s · {label}")

            def on_sources(sources) -> None:
                """The pages being checked, from the gate's own retrieval, while models run."""
                with sources_box:
                    source_previews(pipeline, sources)

            with shown_errors():
                pipeline.chat(question, subject["id"], tuple(chosen), mode, notes, on_stage, on_sources)
                status.update(label="Checked", state="complete", expanded=False)
                st.rerun()
            status.update(label="Not answered", state="error", expanded=False)
