"""One quiz card on the page: the question, the learner's answer and its mark, the source."""

from __future__ import annotations

from datetime import datetime, timezone

import streamlit as st

from citetutor.marking import Mark
from citetutor.pipeline import Pipeline
from citetutor.quiz import QuizItem
from citetutor.ui.widgets import citation_chips, open_citation_viewer

KIND_WORDS = {"cloze": "Fill in the blank", "mcq": "Multiple choice", "short": "Short answer"}


def answer_card(pipeline: Pipeline, doc_id: str, item: QuizItem, number: int, key: str) -> Mark | None:
    """Show a card and mark the learner's answer; returns the mark once they have answered."""
    c = item.candidate
    mark: Mark | None = None
    with st.container(border=True):
        # "Card 1", not "1.": Markdown turns a leading "1." into a numbered list.
        st.caption(f"Card {number} · {KIND_WORDS.get(c.kind, c.kind)} · p. {', '.join(map(str, item.pages))}")
        st.markdown(f"**{c.stem}**")
        if c.kind == "mcq":
            pick = st.radio("Your answer", c.options, index=None, key=f"{key}-pick")
            if pick is not None:
                right = c.options.index(pick) == c.answer_index
                mark = Mark(right, "Correct!" if right else f"Not quite: {item.key}")
        else:
            mine = st.text_input("Your answer", key=f"{key}-text")
            if st.button("Check my answer", key=f"{key}-check", disabled=not mine.strip()):
                st.session_state[f"{key}-mark"] = pipeline.check_answer(item, mine)
            mark = st.session_state.get(f"{key}-mark")
        if mark is not None:
            (st.success if mark.right else st.error)(
                mark.why if mark.right or c.kind == "mcq" else f"{mark.why} The answer: {item.key}")
        with st.expander("Answer and source", expanded=mark is not None and not mark.right):
            st.markdown(f"**{item.key}**")
            for quote in item.quotes:
                st.markdown(f"> {quote}")
            citation_chips(pipeline.quiz_sources(doc_id, item), key=key)
            open_citation_viewer(pipeline, key)
    return mark


def due_in_words(when: datetime) -> str:
    """'in 10 minutes', 'in 3 days': when a reviewed card comes back."""
    seconds = (when - datetime.now(timezone.utc)).total_seconds()
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = round(seconds / size)
            return f"in {n} {unit}{'' if n == 1 else 's'}"
    return "in under a minute"
