"""Traces: per-stage latency and the stages of each request (metadata only)."""

import streamlit as st

from citetutor.ui.state import get_pipeline
from citetutor.ui.widgets import STAGE_LABELS, outcome_words, timing_panel

pipeline = get_pipeline()
st.title(":material/timer: Traces")
requests = pipeline.recent_requests(100)
if not requests:
    st.info("No requests yet: ask the tutor something and come back.")
    st.stop()

KINDS = {"all": "All", "tutor": "Tutor", "quiz": "Quiz", "ingest": "Uploads", "ocr": "OCR"}
kind = st.radio("Requests", list(KINDS), horizontal=True, format_func=KINDS.get)
latency = pipeline.stage_latency(None if kind == "all" else kind)
if latency:
    st.subheader("Time per stage")
    rows = [{"stage": STAGE_LABELS.get(r["name"], r["name"]), "runs": r["count"],
             "median s": round(r["p50_ms"] / 1000, 2), "95th percentile s": round(r["p95_ms"] / 1000, 2)}
            for r in latency]
    st.bar_chart({r["stage"]: r["median s"] for r in rows}, horizontal=True, x_label="median seconds")
    st.dataframe(rows, hide_index=True)

st.subheader("Outcomes")
st.dataframe([{"request": KINDS.get(r["kind"], r["kind"]), "outcome": outcome_words(r["outcome"], r["reason"]),
               "count": r["count"]} for r in pipeline.outcome_counts()], hide_index=True)

st.subheader("Recent requests")
shown = [r for r in requests if kind == "all" or r["kind"] == kind]


def describe(r: dict) -> str:
    """'14:02:31 · Tutor · refused: notes don't cover it · 3.2 s'."""
    seconds = f" · {r['duration_ms'] / 1000:.1f} s" if r["duration_ms"] is not None else ""
    return (f"{r['started_at']:%H:%M:%S} · {KINDS.get(r['kind'], r['kind'])} · "
            f"{outcome_words(r['outcome'], r['reason'])}{seconds}")


st.dataframe([{"request": describe(r), "attempts": r["attempts"] or ""} for r in shown], hide_index=True)
if shown:
    chosen = st.selectbox("Stages of request", [r["id"] for r in shown],
                          format_func=lambda i: describe(next(r for r in shown if r["id"] == i)))
    timing_panel(pipeline.request_spans(chosen))
    with st.expander("Raw data (for bug reports)"):
        st.dataframe(shown, hide_index=True)
