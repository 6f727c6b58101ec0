"""Limits on what a learner hands in, each with a message that says what to do; nothing stored."""

import pymupdf
import pytest

from citetutor.cli import main
from citetutor.errors import InputError, PdfError
from tests.corpus import MIT, corpus_file
from tests.helpers import make_pipeline


@pytest.fixture
def pipe(tmp_path):
    pipe = make_pipeline(tmp_path)
    pipe.subject = pipe.create_subject("Mechanics")
    return pipe


def test_a_question_over_2000_characters_is_refused_before_any_model_runs(pipe):
    with pytest.raises(InputError, match="10,000 characters long; ask in at most 2,000"):
        pipe.ask("why " * 2500, pipe.subject)
    with pytest.raises(InputError, match="at most 2,000"):
        pipe.chat("x" * 2001, pipe.subject)
    assert pipe.models.drafter.history == [] and pipe.chat_history(pipe.subject) == []


@pytest.mark.parametrize("call", ["question", "subject", "password", "notes"])
def test_text_that_is_not_valid_unicode_is_refused_in_words(pipe, call):
    broken = "why does it \ud800 speed up"  # a lone surrogate, as a bad paste or terminal gives
    with pytest.raises(InputError, match="not valid text"):
        if call == "question":
            pipe.ask(broken, pipe.subject)
        elif call == "subject":
            pipe.create_subject(broken)
        elif call == "password":
            pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", pipe.subject, password=broken)
        else:
            pipe.ask("why?", pipe.subject, learner_notes=broken)
    assert pipe.store.query("SELECT count(*) FROM documents")[0][0] == 0


def test_the_cli_says_so_for_a_subject_name_in_another_encoding(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CITETUTOR_DATA_DIR", str(tmp_path))
    latin1_name = b"Math\xe9matiques".decode("utf-8", "surrogateescape")  # as argv arrives
    code = main(["ingest", str(corpus_file(*MIT)), "--subject", latin1_name])
    err = capsys.readouterr().err
    assert code == 1 and "not valid text" in err and "Traceback" not in err


def _bomb(tmp_path, inflated_mb: int) -> bytes:
    """A one-page PDF whose content stream is ~50 kB packed and `inflated_mb` MB unpacked."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "A page of notes")
    xref = page.get_contents()[0]
    doc.update_stream(xref, b"BT /F1 12 Tf 72 720 Td (x) Tj ET\n" + b" " * (inflated_mb << 20), compress=True)
    return doc.tobytes()


def test_a_page_that_unpacks_to_too_much_is_refused_before_it_is_read(pipe, tmp_path):
    bomb = _bomb(tmp_path, 40)
    assert len(bomb) < 200_000
    with pytest.raises(PdfError, match="Page 1 of 'bomb.pdf' unpacks to more than 32 MB"):
        pipe.upload(bomb, "bomb.pdf", pipe.subject)
    assert pipe.store.query("SELECT count(*) FROM documents")[0][0] == 0
