"""Library: subjects, uploads with progress, documents, delete."""

import streamlit as st

from citetutor.pipeline import DocStatus, PasswordRequired
from citetutor.ui.state import counted, get_pipeline, shown_errors, subject_picker, warn_missing_models

pipeline = get_pipeline()
st.title(":material/menu_book: Library")
if pipeline.runtime == "embedded":
    typical = pipeline.typical_seconds()
    pace = (f"a checked answer takes about {typical:.0f} s on this computer (the middle of your last "
            "questions)" if typical else "your first checked answers show how long one takes on this computer")
    st.info(
        "**Running offline** with the built-in models: uploads, the tutor, quizzes and scan reading all "
        f"work without a server or an account; {pace}. For larger models, install "
        "[Ollama](https://ollama.com), run `ollama pull gemma3:4b qwen2.5:3b nomic-embed-text "
        "glm-ocr:q8_0`, and restart CiteTutor: it picks Ollama automatically.",
        icon=":material/offline_bolt:")
warn_missing_models("embedder", "ocr")

with st.expander("New subject", expanded=not pipeline.subjects()):
    with st.form("new-subject", clear_on_submit=True):
        name = st.text_input("Subject name", placeholder="e.g. Classical Mechanics")
        if st.form_submit_button("Create subject"):
            with shown_errors():
                pipeline.create_subject(name)
                st.session_state["subject_name"] = name.strip()
                st.rerun()

subject = subject_picker(pipeline, key="library-subject")
if subject is None:
    st.stop()
subject_id = subject["id"]  # (narrowed here: add_pdf below is a closure)

st.subheader(f"Add PDFs to {subject['name']}")
with st.form("upload", clear_on_submit=True):
    files = st.file_uploader("PDF notes or chapters", type=["pdf"], accept_multiple_files=True)
    password = st.text_input("Password (only for protected PDFs)", type="password")
    submitted = st.form_submit_button("Add to library", type="primary")


def add_pdf(name: str, data: bytes, password: str | None) -> None:
    """Upload one PDF with progress; a locked one waits below for its password."""
    bar = st.progress(0.0, text=f"{name}: starting")
    locked = st.session_state.setdefault("locked-uploads", {})
    with shown_errors():
        try:
            result = pipeline.upload(data, name, subject_id, password,
                                     progress=lambda f, m: bar.progress(f, text=f"{name}: {m}"),
                                     draft_ocr=True)
        except PasswordRequired as exc:  # kept, so a retry needs only the password, not the file
            locked[name] = data
            st.warning(str(exc), icon=":material/lock:")
            return
        finally:
            bar.empty()
        locked.pop(name, None)
        if result.duplicate:
            st.info(f"'{name}' is already in this subject.")
        elif result.status == DocStatus.NEEDS_REVIEW:
            st.warning(f"'{name}' is a scan ({counted(result.pages, 'page')}): review its OCR on "
                       "the Scan Review page before the tutor can use it.")
            if result.ocr_problem:
                st.warning(f"No OCR drafts yet: {result.ocr_problem}. The scan is kept; Scan Review "
                           "can make the drafts once the model is available.")
        else:
            st.success(f"'{name}': {counted(result.pages, 'page')}, "
                       f"{counted(result.chunks, 'passage')} indexed.")


if submitted and files:
    for upload in files:
        add_pdf(upload.name, upload.getvalue(), password or None)

for name, data in list(st.session_state.get("locked-uploads", {}).items()):
    with st.form(f"unlock-{name}", clear_on_submit=True):
        st.markdown(f":material/lock: **{name}** is password-protected")
        retry = st.text_input("Its password", type="password", key=f"password-{name}")
        if st.form_submit_button("Unlock and add"):
            add_pdf(name, data, retry or None)
            if name not in st.session_state["locked-uploads"]:
                st.rerun()

st.subheader("Documents")
documents = pipeline.documents(subject["id"])
if not documents:
    st.caption("No documents yet.")
current_model = pipeline.embedder_name
for doc in documents:
    with st.container(border=True):
        left, right = st.columns([4, 1])
        status: dict[str, str] = {DocStatus.READY: ":green[ready]",
                  DocStatus.NEEDS_REVIEW: f":orange[{counted(doc['pages_to_review'], 'page')} to review]"}
        left.markdown(f"**{doc['title']}** — {counted(doc['page_count'], 'page')}, "
                      f"{counted(doc['chunks'], 'passage')} · "
                      f"{status.get(doc['status'], doc['status'])} · {doc['kind']}")
        if doc["embedding_model"] and doc["embedding_model"] != current_model and doc["chunks"]:
            left.warning(f"Embedded with {doc['embedding_model']}, not {current_model}.")
            if left.button("Re-embed", key=f"reembed-{doc['id']}"):
                with shown_errors(), st.spinner("Re-embedding…"):
                    pipeline.reembed(doc["id"])
                    st.rerun()
        if right.toggle("Delete", key=f"confirm-{doc['id']}"):
            if right.button("Confirm delete", key=f"delete-{doc['id']}", type="primary"):
                pipeline.delete_document(doc["id"])
                st.rerun()

with st.expander("Delete this subject"):
    st.write(f"Deletes '{subject['name']}' and its {len(documents)} documents.")
    if st.button("Delete subject", key="delete-subject"):
        pipeline.delete_subject(subject["id"])
        st.session_state.pop("subject_name", None)
        st.rerun()
