"""Every PDF in the broken corpus gives a clear error or a correct ingest, never a crash."""

import pytest

from citetutor.errors import CiteTutorError, PasswordRequired
from tests.corpus import CORPUS, MIT, corpus_file
from tests.helpers import make_pipeline

PASSWORDS = {
    "pdfjs__issue6010_1.pdf": "abc",
    "pypdf__r4-aes-user-password.pdf": "asdfzxcv",
    "pypdf__libreoffice-writer-password.pdf": "openpassword",
    "qpdf__enc-R2_V1_U-view_O-master.pdf": "view",
}
BROKEN = sorted(p.name for p in (CORPUS / "broken").glob("*.pdf")) or ["(corpus missing)"]


def _counts(pipe) -> tuple:
    return tuple(pipe.store.query(f"SELECT count(*) FROM {t}")[0][0]
                 for t in ("documents", "pages", "chunks", "embeddings"))


@pytest.mark.parametrize("name", BROKEN)
def test_broken_pdf_errors_clearly_or_ingests_whole(tmp_path, name):
    data = corpus_file("broken", name).read_bytes()
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("Bad input")
    try:
        result = pipe.upload(data, name, subject, password=PASSWORDS.get(name))
    except CiteTutorError as exc:
        message = str(exc)
        assert name in message, "the error names the file"
        assert any(w in message for w in ("re-export", "Re-export", "password", "pick", "nothing to study",
                                          "check", "split")), f"error says how to fix: {message}"
        assert _counts(pipe) == (0, 0, 0, 0), "nothing half-stored"
        assert not list((tmp_path / "files").rglob("*")), "no files or empty folders left behind"
        return
    doc = pipe.document(result.doc_id)
    pages, chunks, vectors = _counts(pipe)[1:]
    assert pages == doc["page_count"] == result.pages > 0
    assert chunks == vectors == result.chunks
    if result.kind == "text":
        assert chunks > 0 and doc["status"] == "ready"
    else:
        assert doc["status"] == "needs_review"


@pytest.mark.parametrize("name", sorted(PASSWORDS))
def test_encrypted_pdf_asks_for_password_then_opens(tmp_path, name):
    data = corpus_file("broken", name).read_bytes()
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("Locked")
    with pytest.raises(PasswordRequired, match="password"):
        pipe.upload(data, name, subject)
    with pytest.raises(PasswordRequired, match="not correct"):
        pipe.upload(data, name, subject, password="wrong-password")
    assert pipe.upload(data, name, subject, password=PASSWORDS[name]).chunks > 0


def test_arabic_presentation_forms_are_normalised_for_search(tmp_path):
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("Arabic")
    name = "pdfjs__ArabicCIDTrueType.pdf"
    result = pipe.upload(corpus_file("broken", name).read_bytes(), name, subject)
    text = pipe.store.query("SELECT text FROM chunks WHERE doc_id = ?", [result.doc_id])[0][0]
    assert not any(0xFB50 <= ord(ch) <= 0xFEFF for ch in text), "NFKC maps presentation forms"


def test_aes256_password_is_saslprepped_like_the_app_that_encrypted_it(tmp_path):
    import pymupdf

    from citetutor.pdf import saslprep
    typed = "Kraft\u00a0Ⅸ\u00adgrad"  # no-break space, Roman numeral nine, soft hyphen
    assert saslprep(typed) == "Kraft IXgrad"
    source = pymupdf.open(stream=corpus_file(*MIT).read_bytes(), filetype="pdf")
    locked = source.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw=saslprep(typed),
                            owner_pw="owner-" + saslprep(typed))
    pipe = make_pipeline(tmp_path)
    result = pipe.upload(locked, "locked.pdf", pipe.create_subject("S"), password=typed)
    assert result.chunks > 0
