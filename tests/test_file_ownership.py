"""Originals belong to committed rows: races, aborted uploads and crashes lose no file."""

import threading

import pytest

from citetutor.pipeline import Pipeline
from tests.corpus import MIT, corpus_file
from tests.helpers import make_pipeline

PDF = corpus_file(*MIT).read_bytes()


class Stopped(BaseException):
    """Like Streamlit's StopException: not an Exception, raised inside a callback."""


def original_of(pipe, doc_id):
    sha = pipe.store.query("SELECT sha256 FROM documents WHERE id = ?", [doc_id])[0][0]
    return pipe.settings.files_dir / f"{sha}.pdf"


def test_the_same_pdf_uploaded_twice_at_once_is_stored_once_and_reported(tmp_path):
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("S")
    results, errors = [], []

    def upload():
        try:
            results.append(pipe.upload(PDF, "mit.pdf", subject))
        except BaseException as exc:  # noqa: BLE001 - the test reports any failure
            errors.append(exc)
    threads = [threading.Thread(target=upload) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and sorted(r.duplicate for r in results) == [False, True, True, True]
    assert pipe.store.query("SELECT count(*) FROM documents")[0][0] == 1
    assert original_of(pipe, results[0].doc_id).read_bytes() == PDF


def test_an_aborted_upload_keeps_the_file_another_subject_owns(tmp_path):
    pipe = make_pipeline(tmp_path)
    kept = pipe.upload(PDF, "mit.pdf", pipe.create_subject("A"))

    def stop(fraction, message):
        if "Embedding" in message:
            raise Stopped()
    with pytest.raises(Stopped):
        pipe.upload(PDF, "mit.pdf", pipe.create_subject("B"), progress=stop)
    assert original_of(pipe, kept.doc_id).read_bytes() == PDF
    assert pipe.store.query("SELECT count(*) FROM documents")[0][0] == 1


def test_an_aborted_first_upload_leaves_no_file(tmp_path):
    pipe = make_pipeline(tmp_path)
    with pytest.raises(Stopped):
        pipe.upload(PDF, "mit.pdf", pipe.create_subject("A"),
                    progress=lambda f, m: (_ for _ in ()).throw(Stopped()) if "Embedding" in m else None)
    assert not list(pipe.settings.files_dir.rglob("*"))


def test_start_up_sweeps_files_no_row_owns(tmp_path):
    pipe = make_pipeline(tmp_path)
    kept = pipe.upload(PDF, "mit.pdf", pipe.create_subject("A"))
    files = pipe.settings.files_dir
    (files / ("f" * 64 + ".pdf")).write_bytes(b"%PDF- left by a crash")
    (files / ("e" * 64)).mkdir()
    (files / ("e" * 64) / "p1.png").write_bytes(b"png")
    (files / ("d" * 64 + ".part")).write_bytes(b"half")
    pipe.store.close()
    again = Pipeline(pipe.settings, models=pipe.models)
    assert sorted(p.name for p in files.iterdir()) == [original_of(again, kept.doc_id).name]
