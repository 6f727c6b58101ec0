"""The one cached Pipeline, and error display for user actions."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import streamlit as st

from citetutor.config import Settings
from citetutor.errors import CiteTutorError
from citetutor.pipeline import Pipeline


@st.cache_resource(show_spinner="Opening your library…")
def get_pipeline() -> Pipeline:
    """One Pipeline per server process: one DuckDB connection, models loaded once."""
    return Pipeline(Settings())


@contextmanager
def shown_errors() -> Iterator[None]:
    """Show a CiteTutorError's message (it says how to fix it); let bugs surface as bugs."""
    try:
        yield
    except CiteTutorError as exc:
        st.error(str(exc), icon="⚠️")


def subject_picker(pipeline: Pipeline, key: str) -> dict | None:
    """Pick a subject (shared across pages); None when there is none yet."""
    subjects = pipeline.subjects()
    if not subjects:
        st.info("Create a subject in the Library and upload a PDF to start.")
        return None
    names = [s["name"] for s in subjects]
    current = st.session_state.get("subject_name")
    index = names.index(current) if current in names else 0
    name = st.selectbox("Subject", names, index=index, key=key)
    st.session_state["subject_name"] = name
    return subjects[names.index(name)]


def counted(n: int, noun: str) -> str:
    """'1 page', '3 pages'."""
    return f"{n} {noun}{'' if n == 1 else 's'}"
