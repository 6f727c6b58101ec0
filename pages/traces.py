"""Traces: per-stage latency and the spans of each request (metadata only)."""

import streamlit as st

from citetutor.ui.state import get_pipeline
from citetutor.ui.widgets import timing_panel

pipeline = get_pipeline()
st.title(":material/timer: Traces")
requests = pipeline.recent_requests(100)
if not requests:
    st.info("No requests yet: ask the tutor something and come back.")
    st.stop()

kind = st.radio("Requests", ["all", "tutor", "quiz", "ingest", "ocr"], horizontal=True)
latency = pipeline.stage_latency(None if kind == "all" else kind)
if latency:
    st.subheader("Stage latency (ms)")
    st.bar_chart({row["name"]: row["p50_ms"] for row in latency}, horizontal=True)
    st.dataframe(latency, hide_index=True)

st.subheader("Outcomes")
st.dataframe(pipeline.outcome_counts(), hide_index=True)

st.subheader("Recent requests")
shown = [r for r in requests if kind == "all" or r["kind"] == kind]
st.dataframe(shown, hide_index=True)
if shown:
    chosen = st.selectbox("Spans of request", [r["id"] for r in shown],
                          format_func=lambda i: next(f"{r['started_at']} · {r['kind']} · {r['outcome']}"
                                                     for r in shown if r["id"] == i))
    timing_panel(pipeline.request_spans(chosen))
