"""Citation chips, the PDF viewer at a cited page, and the per-answer timing panel."""

from __future__ import annotations

import json

import streamlit as st
from streamlit_pdf_viewer import pdf_viewer

from citetutor.errors import CiteTutorError
from citetutor.pipeline import Citation, Pipeline
from citetutor.states import Reason

STAGE_LABELS = {
    "retrieve": "Retrieval", "draft": "Drafting", "blind_solve": "Blind solve",
    "support_check": "Support check", "rejection": "Rejected draft", "quiz_draft": "Drafting questions",
    "agreement": "Answer agreement", "evidence": "Evidence sentences", "ocr": "OCR", "ingest": "Ingest",
    "cache": "Cache lookup",
}
# What a running stage is doing, in the Tutor's live status (the same stage names).
STAGE_PROGRESS = {"retrieve": "Finding passages", "blind_solve": "The verifier answers blind",
                  "draft": "Drafting an answer", "support_check": "The verifier checks each claim"}


# Reason codes as a learner or teacher would say them (the Traces page and timing panels).
REASON_WORDS: dict[str, str] = {
    Reason.SCHEMA_INVALID: "reply not in the expected form",
    Reason.UNKNOWN_SENTENCE: "cited a sentence it was not given",
    Reason.UNCOVERED_CLAIM: "claim not in its cited sentences",
    Reason.NUMBER_NOT_IN_EVIDENCE: "number not in the notes",
    Reason.QUANTITY_NOT_IN_EVIDENCE: "value not in the notes",
    Reason.OFF_QUESTION: "cited sentences off the question",
    Reason.BLIND_UNANSWERABLE: "verifier found no answer",
    Reason.BLIND_DISAGREES: "verifier answered differently",
    Reason.IRRELEVANT: "did not answer the question",
    Reason.UNSUPPORTED_CLAIM: "verifier rejected a claim",
    Reason.MODEL_UNAVAILABLE: "model unavailable",
    Reason.NO_EVIDENCE: "no notes to search",
    Reason.LOW_RELEVANCE: "notes don't cover it",
    Reason.KEY_MISMATCH: "solver chose another option",
    Reason.ANSWER_MISMATCH: "solver answered differently",
    Reason.KEY_UNSUPPORTED: "key not stated by its sentence",
    Reason.ABOUT_THE_TEXT: "asked about the document, not its content",
    Reason.NO_BLANK: "no key term to blank",
    Reason.KEY_IN_STEM: "answer only repeated the question",
    Reason.NOT_A_QUESTION: "stem was not a question",
    Reason.NO_DISTRACTORS: "too few terms for options",
    Reason.KEY_IS_FORMULA: "answer was a formula",
    Reason.DEADLINE: "ran out of time",
    Reason.REPEATED_DRAFT: "drafter repeated a rejected draft",
    Reason.ERROR: "error",
}
OUTCOME_WORDS = {"answered": "answered", "refused": "refused", "ok": "ok", "rejected": "rejected",
                 "hit": "from cache", "miss": "checked now", "error": "error", None: ""}


def outcome_words(outcome: str | None, reason: str | None) -> str:
    """'refused: notes don't cover it', 'ok', ..."""
    word = OUTCOME_WORDS.get(outcome, outcome or "")
    return f"{word}: {REASON_WORDS.get(reason, reason)}" if reason else word


def citation_chips(citations: list[Citation], key: str, icon: str = ":material/description:") -> None:
    """One button per cited page; clicking opens the source page under this answer."""
    cols = st.columns(min(len(citations), 4) or 1)
    for i, cite in enumerate(citations):
        label = f"{cite.title} · p. {cite.page_no}"
        # A callback, not `if button:`: it runs before the script, so the viewer opens on
        # this click rather than on the next rerun.
        cols[i % len(cols)].button(label, key=f"{key}-cite-{i}", help=cite.chunk_id or None, icon=icon,
                                   on_click=st.session_state.__setitem__,
                                   args=("open_citation", (key, cite)))


def _annotations(cite: Citation) -> list[dict]:
    """Viewer highlight boxes for the cited chunk (PDF points, top-left origin)."""
    boxes = json.loads(cite.bboxes or "[]")
    return [{"page": cite.page_no, "x": x0, "y": y0, "width": x1 - x0, "height": y1 - y0,
             "color": "rgba(245, 166, 35, 0.35)", "border": "solid"} for x0, y0, x1, y1 in boxes]


def open_citation_viewer(pipeline: Pipeline, key: str) -> None:
    """Render the PDF at the cited page, highlighted, if a chip of answer `key` was clicked."""
    opened = st.session_state.get("open_citation")
    if not opened or opened[0] != key:
        return
    cite: Citation = opened[1]
    with st.container(border=True):
        top = st.columns([5, 1])
        what = "highlighted: the cited passage" if cite.text else "a page the tutor looked at"
        top[0].markdown(f"**{cite.title}**, page {cite.page_no} — {what}")
        if top[1].button("Close", key=f"close-citation-{key}"):
            st.session_state.pop("open_citation")
            st.rerun()
        annotations = _annotations(cite)
        boxes = json.loads(cite.bboxes or "[]")
        pdf_viewer(pipeline.pdf_bytes(cite.doc_id, cite.page_no, boxes), pages_to_render=[cite.page_no],
                   annotations=annotations, scroll_to_annotation=1 if annotations else None,
                   height=800, key=f"viewer-{cite.chunk_id}")
        if cite.text:
            crop = pipeline.quote_image(cite)
            if crop is not None:  # the text layer took the formula apart: show the notes' own lines
                st.caption("Cited lines, as your notes draw them (their text layer garbles this formula)")
                st.image(crop)
            else:
                st.caption("Cited text")
                st.markdown(f"> {cite.text}")


def show_progress(status, label: str, line: str) -> None:
    """Name the running stage on a live st.status box and add `line` to what it lists.

    `expanded=True` every time: Streamlit 1.67's update() without it clears the field, and the
    browser then collapses the box, hiding the pages being checked and every stage line.
    """
    status.update(label=label + "…", expanded=True)
    status.write(line)


def source_previews(pipeline: Pipeline, sources: list[Citation]) -> None:
    """The pages the gate is checking, each an expander with its page image.

    Opening an expander happens in the browser and does not rerun the script, so a learner can
    read a source while the answer is still being checked.
    """
    st.caption("Sources being checked — not an answer yet. Open one to read it while you wait:")
    for source in sources:
        with st.expander(f"{source.title} p. {source.page_no}", icon=":material/description:"):
            try:
                st.image(pipeline.page_image(source.doc_id, source.page_no))
            except CiteTutorError as exc:
                st.caption(f"No preview of this page: {exc}")


def total_seconds(spans: list[dict]) -> float:
    """Wall time of one request from its spans."""
    return max((s["started_ms"] + s["duration_ms"] for s in spans), default=0.0) / 1000


ROLE_COLOURS = {"drafter": "#4C78A8", "verifier": "#F58518", "judge": "#54A24B", "": "#BAB0AC"}


def timing_bar(spans: list[dict], roles: dict[str, str]) -> None:
    """The per-request timing panel, always in view: one bar of the stages in the order they
    ran, coloured by the model role that ran each, and per role its model, time and tokens."""
    timed = [s for s in spans if s["duration_ms"] >= 1 and s["name"] != "rejection"]
    if not timed:
        return
    whole = sum(s["duration_ms"] for s in timed)
    segments = "".join(
        f'<div title="{STAGE_LABELS.get(s["name"], s["name"])}: {s["duration_ms"] / 1000:.1f} s" '
        f'style="width:{100 * s["duration_ms"] / whole:.2f}%;background:'
        f'{ROLE_COLOURS[roles.get(s.get("model") or "", "")]}"></div>' for s in timed)
    per_role: dict[str, list] = {}
    for s in timed:
        role = roles.get(s.get("model") or "", "")
        seconds, tokens = per_role.setdefault(role, [0.0, 0, s.get("model") or ""])[:2]
        per_role[role][0] = seconds + s["duration_ms"] / 1000
        per_role[role][1] = tokens + (s.get("prompt_tokens") or 0) + (s.get("completion_tokens") or 0)
    legend = " · ".join(
        f'<span style="color:{ROLE_COLOURS[role]}">■</span> '
        + (f"<b>{role}</b> {_short(model)}: " if role else "search and checks: ")
        + f"{seconds:.1f} s" + (f", {tokens:,} tokens" if tokens else "")
        for role, (seconds, tokens, model) in per_role.items())
    st.markdown(
        f'<div class="timing-bar" style="display:flex;height:10px;border-radius:3px;overflow:hidden;'
        f'margin:2px 0">{segments}</div><div style="font-size:0.8em;opacity:0.8">⏱ '
        f"{total_seconds(spans):.1f} s · {legend}</div>", unsafe_allow_html=True)


def running_clock(typical_s: float | None) -> None:
    """A clock that counts in the browser while the gate runs (the script is busy meanwhile),
    with this computer's usual time for an answer, if it has answered enough to know."""
    from streamlit.components.v1 import html
    usual = f" · usually about {typical_s:.0f} s on this computer" if typical_s else ""
    html(f"""<div id="clock" style="font-family:sans-serif;font-size:14px;color:#555"></div>
<script>const t0 = Date.now();
function tick() {{ document.getElementById("clock").textContent =
  "⏱ " + Math.round((Date.now() - t0) / 1000) + " s{usual}"; }}
tick(); setInterval(tick, 1000);</script>""", height=24)


def _short(model: str) -> str:
    """A model's name without its runtime prefix."""
    return model.split(":", 1)[-1] if model.startswith(("embedded:", "ollama:", "openai:")) else model


def timing_panel(spans: list[dict]) -> None:
    """Per-stage timings of one request, in the order they started."""
    if not spans:
        return
    st.caption(f"⏱ {total_seconds(spans):.2f} s in all")
    rows = [{"stage": STAGE_LABELS.get(s["name"], s["name"]),
             "attempt": str(s.get("attempt") or ""), "seconds": round(s["duration_ms"] / 1000, 2),
             "outcome": outcome_words(s.get("outcome"), s.get("reason")),
             # str: a column mixing ints and "" makes Arrow fail (and Streamlit log a traceback)
             "tokens": str((s.get("prompt_tokens") or 0) + (s.get("completion_tokens") or 0) or "")}
            for s in spans]
    st.dataframe(rows, hide_index=True)
