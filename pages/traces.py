"""Traces: per-stage latency and the stages of each request (metadata only)."""

import altair as alt
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
    # Altair with named axes: st.bar_chart's x_label stayed on the horizontal axis when the
    # bars turned horizontal, so "median seconds" labelled the stage names.
    chart = alt.Chart(alt.Data(values=rows)).mark_bar().encode(
        y=alt.Y("stage:N", title="stage", sort="-x"), x=alt.X("median s:Q", title="median seconds"),
        tooltip=["stage:N", "median s:Q", "95th percentile s:Q", "runs:Q"])
    st.altair_chart(chart, use_container_width=True)
    st.dataframe(rows, hide_index=True)

st.subheader("Outcomes")
st.dataframe([{"request": KINDS.get(r["kind"], r["kind"]), "outcome": outcome_words(r["outcome"], r["reason"]),
               "count": r["count"]} for r in pipeline.outcome_counts()], hide_index=True)

st.subheader("Recent requests")
shown = [r for r in requests if kind == "all" or r["kind"] == kind]


def describe(r: dict) -> str:
    """'14:02:31 · Tutor · “why does it speed up…” · refused: notes don't cover it · 3.2 s'."""
    seconds = f" · {r['duration_ms'] / 1000:.1f} s" if r["duration_ms"] is not None else ""
    what = f" · “{r['label']}”" if r.get("label") else ""
    return (f"{r['started_at']:%H:%M:%S} · {KINDS.get(r['kind'], r['kind'])}{what} · "
            f"{outcome_words(r['outcome'], r['reason'])}{seconds}")


# Text columns only: a column mixing numbers and "" made Arrow fail (ArrowInvalid on attempts).
st.dataframe([{"time": f"{r['started_at']:%H:%M:%S}", "request": KINDS.get(r["kind"], r["kind"]),
               "question or item": r.get("label") or "", "outcome": outcome_words(r["outcome"], r["reason"]),
               "seconds": f"{r['duration_ms'] / 1000:.1f}" if r["duration_ms"] is not None else "",
               "attempts": str(r["attempts"] or "")} for r in shown], hide_index=True)
if shown:
    chosen = st.selectbox("Stages of request", [r["id"] for r in shown],
                          format_func=lambda i: describe(next(r for r in shown if r["id"] == i)))
    picked = next(r for r in shown if r["id"] == chosen)
    if picked.get("label"):  # which question (or page range, or file) this request was
        st.caption(f"{KINDS.get(picked['kind'], picked['kind'])}: “{picked['label']}”")
    timing_panel(pipeline.request_spans(chosen))
    with st.expander("Raw data (for bug reports)"):
        st.dataframe(shown, hide_index=True)
