"""Citation chips, the PDF viewer at a cited page, and the per-answer timing panel."""

from __future__ import annotations

import json

import streamlit as st
from streamlit_pdf_viewer import pdf_viewer

from citetutor.pipeline import Pipeline
from citetutor.tutor import Citation

STAGE_LABELS = {
    "retrieve": "Retrieval", "draft": "Drafting", "blind_solve": "Blind solve",
    "support_check": "Support check", "rejection": "Rejected draft", "quiz_draft": "Drafting questions",
    "agreement": "Answer agreement", "evidence": "Evidence sentences", "ocr": "OCR", "ingest": "Ingest", "cache": "Cache lookup",
}


def citation_chips(citations: list[Citation], key: str) -> None:
    """One button per cited page; clicking opens the source page beside the answer."""
    cols = st.columns(min(len(citations), 4) or 1)
    for i, cite in enumerate(citations):
        label = f"📄 {cite.title} · p. {cite.page_no}"
        # A callback, not `if button:`: it runs before the script, so the viewer (drawn above
        # the answers) opens on this click rather than on the next rerun.
        cols[i % len(cols)].button(label, key=f"{key}-cite-{i}", help=cite.chunk_id,
                                   on_click=st.session_state.__setitem__, args=("open_citation", cite))


def _annotations(cite: Citation) -> list[dict]:
    """Viewer highlight boxes for the cited chunk (PDF points, top-left origin)."""
    boxes = json.loads(cite.bboxes or "[]")
    return [{"page": cite.page_no, "x": x0, "y": y0, "width": x1 - x0, "height": y1 - y0,
             "color": "#f5a623", "border": "solid"} for x0, y0, x1, y1 in boxes]


def open_citation_viewer(pipeline: Pipeline) -> None:
    """Render the PDF at the cited page with the chunk highlighted, if a chip was clicked."""
    cite: Citation | None = st.session_state.get("open_citation")
    if cite is None:
        return
    with st.container(border=True):
        top = st.columns([5, 1])
        top[0].markdown(f"**{cite.title}**, page {cite.page_no} — highlighted: the cited passage")
        if top[1].button("Close", key="close-citation"):
            st.session_state.pop("open_citation")
            st.rerun()
        annotations = _annotations(cite)
        pdf_viewer(pipeline.pdf_bytes(cite.doc_id), pages_to_render=[cite.page_no],
                   annotations=annotations, scroll_to_annotation=1 if annotations else None,
                   height=800, key=f"viewer-{cite.chunk_id}")
        with st.expander("Cited text"):
            st.text(cite.text)


def timing_panel(spans: list[dict]) -> None:
    """Per-stage timings of one request, in the order they started."""
    if not spans:
        return
    total = max(s["started_ms"] + s["duration_ms"] for s in spans)
    st.caption(f"⏱ {total / 1000:.2f} s in all")
    rows = [{"stage": STAGE_LABELS.get(s["name"], s["name"]),
             "attempt": str(s.get("attempt") or ""), "ms": round(s["duration_ms"], 1),
             "outcome": s.get("reason") or s.get("outcome") or "",
             # str: a column mixing ints and "" makes Arrow fail (and Streamlit log a traceback)
             "tokens": str((s.get("prompt_tokens") or 0) + (s.get("completion_tokens") or 0) or "")}
            for s in spans]
    st.dataframe(rows, hide_index=True)
