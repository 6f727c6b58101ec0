"""Scan Review: check each OCR draft against its page image before the tutor may use it."""

import streamlit as st

from citetutor.pipeline import DocStatus, ReviewState
from citetutor.ui.state import get_pipeline, shown_errors, subject_documents

pipeline = get_pipeline()


def _escaped(line: str) -> str:
    """An OCR line shown as text, not as Markdown (OCR output is full of * _ [ ] $)."""
    return "".join(f"\\{ch}" if ch in "\\`*_{}[]()#+-.!|$<>~:" else ch for ch in line)


def _approve(key: str, page_no: int, text: str) -> None:
    """Save the learner's text for the page and show the page again."""
    pipeline.review_page(doc_id, page_no, text, ReviewState.APPROVED)
    st.session_state.pop("approve-asked", None)
    st.rerun()
st.title(":material/document_scanner: Scan Review")
_, scans = subject_documents(
    pipeline, "scan-subject", lambda d: d["kind"] == "scan",
    "No scanned documents in this subject. Scans are detected when you upload them.")

docs = {d["id"]: d for d in scans}
doc_id = st.selectbox("Scanned document", list(docs),
                      format_func=lambda i: f"{docs[i]['title']} ({docs[i]['pages_to_review']} to review)")
pages = pipeline.scan_pages(doc_id)
missing = [p for p in pages if p["review_state"] == ReviewState.PENDING and not p["text"]]
if missing:
    st.warning(f"{len(missing)} of {len(pages)} pages have no OCR draft yet.")
    if st.button("Make OCR drafts", type="primary"):
        bar = st.progress(0.0, text="Starting OCR")
        with shown_errors():
            pipeline.run_ocr(doc_id, progress=lambda f, m: bar.progress(f, text=m))
            st.rerun()

done = sum(p["review_state"] != ReviewState.PENDING for p in pages)
st.progress(done / len(pages), text=f"{done} of {len(pages)} pages reviewed")
if docs[doc_id]["status"] == DocStatus.READY:
    st.success("Every page is reviewed: this document is in the tutor's library.")
else:
    st.info("This document stays out of the tutor until every page is reviewed.")

for page in pages:
    with st.container(border=True):
        image_col, text_col = st.columns(2)
        image_col.image(page["image_path"], caption=f"Page {page['page_no']}")
        with text_col:
            state = page["review_state"]
            st.markdown(f"**Page {page['page_no']}** · {state}")
            if page["ocr_partial"]:
                st.warning("Partial OCR: the model stopped early; check the end of the page.")
            key = f"{doc_id}-{page['page_no']}"
            if state == ReviewState.PENDING:
                # The draft is part of the key: a keyed box keeps what the browser last held (an
                # empty box before OCR), so a new draft must be a new box to show up.
                text = st.text_area("Transcription", page["text"], height=300,
                                    key=f"text-{key}-{hash(page['text'])}")
                # Lines the OCR engine was unsure of and the learner has not changed yet.
                unsure = [line for line in page["unsure"] if line in text]
                if unsure:
                    st.caption(f":orange[:material/warning:] The reader was unsure of {len(unsure)} of these "
                               "lines: check each against the image on the left.")
                    st.markdown("\n".join(f"- :orange-background[{_escaped(line)}]" for line in unsure[:12])
                                + (f"\n- … and {len(unsure) - 12} more" if len(unsure) > 12 else ""))
            else:  # what was saved, from the library: a fresh widget, not the edit box's memory
                st.text_area("Transcription (approved)" if state == ReviewState.APPROVED else "Transcription",
                             page["text"], height=300, key=f"saved-{key}-{hash(page['text'])}",
                             disabled=True)
            if state == ReviewState.PENDING:
                approve, blank = st.columns(2)
                with shown_errors():
                    asked = st.session_state.get("approve-asked") == key
                    if approve.button("Approve", key=f"approve-{key}", type="primary"):
                        if unsure and not asked:  # a one-click approval of unchecked OCR text
                            st.session_state["approve-asked"] = key
                            st.rerun()
                        _approve(key, page["page_no"], text)
                    if asked and unsure:
                        st.warning(f"{len(unsure)} lines still read as the OCR engine was unsure of them. "
                                   "The tutor will learn from this text as it stands. Approve anyway?")
                        if st.button("Approve anyway", key=f"approve-anyway-{key}"):
                            _approve(key, page["page_no"], text)
                    if blank.button("Blank page", key=f"blank-{key}"):
                        pipeline.review_page(doc_id, page["page_no"], "", ReviewState.BLANK)
                        st.rerun()
            elif st.button("Edit again", key=f"reopen-{key}"):
                pipeline.reopen_page(doc_id, page["page_no"])
                st.rerun()
