"""The one cached Pipeline, and error display for user actions."""

from __future__ import annotations

import logging
import runpy
import uuid
from contextlib import contextmanager
from typing import Callable, Iterator

import streamlit as st

from citetutor.config import Settings
from citetutor.errors import CiteTutorError, LibraryDamaged
from citetutor.pipeline import DocumentListing, Pipeline, SubjectRow, restore_library


@st.cache_resource(show_spinner="Opening your library…")
def _open_pipeline() -> Pipeline:
    """One Pipeline per server process: one DuckDB connection, models loaded once."""
    return Pipeline(Settings())


def get_pipeline() -> Pipeline:
    """The cached Pipeline; every page calls this first, so it also keeps pages behind app.py."""
    _through_app()
    try:
        pipeline = _open_pipeline()
        if "restored" in st.session_state:
            st.success(st.session_state.pop("restored"), icon=":material/restore:")
        return pipeline
    except LibraryDamaged as exc:  # one message on every page, and the way back
        st.error(str(exc), icon="⚠️")
        if exc.snapshot is not None and st.button("Restore the snapshot", type="primary",
                                                  icon=":material/restore:"):
            try:
                st.session_state["restored"] = restore_library(Settings())
            except CiteTutorError as failed:
                st.error(str(failed))
                st.stop()
            _open_pipeline.clear()
            st.rerun()
        st.stop()
    except CiteTutorError as exc:  # e.g. the library is open in another process: say so, retry later
        st.error(str(exc), icon="⚠️")
        st.stop()


get_pipeline.clear = _open_pipeline.clear  # type: ignore[attr-defined]


def _through_app() -> None:
    """Run app.py (navigation, sidebar health, page config) if Streamlit ran a page on its own.

    Until some run in the server process has called st.navigation, Streamlit treats the
    `pages/` folder as an old-style multipage app: a first visit straight to /tutor runs
    pages/tutor.py alone (no health sidebar, no page config, a nav listing "app"). Clear the
    flag st.navigation itself clears, run the entrypoint in this same run (so no widget
    event is lost to a rerun; it runs this page again), then stop the stray page run.
    """
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if PagesManager.uses_pages_directory and ctx is not None:
        PagesManager.uses_pages_directory = False
        runpy.run_path(str(ctx.pages_manager.main_script_path), run_name="__main__")
        st.stop()


@contextmanager
def shown_errors() -> Iterator[None]:
    """Show a CiteTutorError's message (it says how to fix it); log a bug, show its reference."""
    try:
        yield
    except CiteTutorError as exc:
        st.error(str(exc), icon="⚠️")
    except Exception:  # Streamlit's Stop and Rerun are BaseExceptions and pass through
        reference = uuid.uuid4().hex[:8]
        logging.getLogger("citetutor").exception("unexpected error, reference %s", reference)
        st.error(f"Something went wrong inside CiteTutor (reference {reference}). Nothing you "
                 "stored was lost; try again, and if it keeps happening, report the reference "
                 "with the server log.", icon="⚠️")


@st.cache_data(ttl=30, show_spinner=False)
def model_health() -> list[tuple[str, str, bool, str]]:
    """Model availability, checked at most every 30 seconds."""
    return get_pipeline().health()


def warn_missing_models(*roles: str) -> None:
    """On the page that needs them: which models are missing and how to get them."""
    for role, model, ok, message in model_health():
        if role in roles and not ok:
            st.warning(f"The {role} model ({model}) is not available: {message}", icon=":material/error:")


def subject_picker(pipeline: Pipeline, key: str) -> SubjectRow | None:
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


def subject_documents(pipeline: Pipeline, key: str, keep: Callable[[DocumentListing], bool],
                      empty_message: str) -> tuple[SubjectRow, list[DocumentListing]]:
    """The chosen subject and its documents that pass `keep`; stops the page when there are none."""
    subject = subject_picker(pipeline, key=key)
    if subject is None:
        st.stop()
    documents = [d for d in pipeline.documents(subject["id"]) if keep(d)]
    if not documents:
        st.info(empty_message)
        st.stop()
    return subject, documents
