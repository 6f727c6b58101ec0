"""Snapshots a student can restore: a truncated or garbled library is one clear message with a
way back, in the CLI and on every page, and the damaged file is kept."""

import os
import stat
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from citetutor import backups
from citetutor.cli import main
from citetutor.errors import LibraryDamaged
from tests.corpus import MIT, SLIDES, corpus_file
from tests.helpers import make_pipeline


def _library_with_snapshots(tmp_path):
    """Two uploads (two snapshots), then the library closed."""
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("Mechanics")
    pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", subject)
    pipe.upload(corpus_file(*SLIDES).read_bytes(), "arrays.pdf", subject)
    pipe.upload(corpus_file(*SLIDES).read_bytes(), "arrays.pdf", subject)  # a duplicate: no snapshot
    pipe.store.close()
    return pipe.settings


DAMAGE = {"truncated": lambda data: data[: len(data) // 2],
          "garbled": lambda data: data[:4096] + bytes(reversed(data[4096:40960])) + data[40960:]}


@pytest.mark.parametrize("how", DAMAGE)
def test_a_damaged_library_names_its_snapshot_and_restore_brings_everything_back(tmp_path, how):
    settings = _library_with_snapshots(tmp_path)
    shots = backups.snapshots(settings.data_dir)
    assert len(shots) == 2, "one per upload that changed the library"
    assert all(stat.S_IMODE(os.stat(s).st_mode) == 0o600 for s in shots)
    original = settings.db_path.read_bytes()
    settings.db_path.write_bytes(DAMAGE[how](original))
    with pytest.raises(LibraryDamaged, match="is damaged and cannot be read. A snapshot from") as raised:
        make_pipeline(tmp_path)
    assert raised.value.snapshot == shots[0]
    from citetutor.pipeline import restore_library
    said = restore_library(settings)
    assert "Restored your library from the snapshot of" in said and "damaged file is kept" in said
    kept = [p for p in settings.data_dir.iterdir() if ".damaged-" in p.name]
    assert len(kept) == 1 and kept[0].read_bytes() == DAMAGE[how](original), "nothing deleted"
    pipe = make_pipeline(tmp_path)
    assert sorted(d["title"] for d in pipe.documents()) == ["arrays", "mit"]
    assert pipe.store.query("SELECT count(*) FROM embeddings")[0][0] > 0


def test_only_the_last_few_snapshots_are_kept(tmp_path):
    pipe = make_pipeline(tmp_path)
    for _ in range(backups.KEEP + 2):
        backups.take(pipe.store, pipe.settings.data_dir)
    assert len(backups.snapshots(pipe.settings.data_dir)) == backups.KEEP
    assert not [p for p in backups.folder(pipe.settings.data_dir).iterdir() if "partial" in p.name]


def test_the_cli_restores_without_a_traceback(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CITETUTOR_DATA_DIR", str(tmp_path))
    settings = _library_with_snapshots(tmp_path)
    settings.db_path.write_bytes(DAMAGE["truncated"](settings.db_path.read_bytes()))
    assert main(["health"]) == 1
    err = capsys.readouterr().err
    assert "python -m citetutor restore" in err and "Traceback" not in err
    assert main(["restore"]) == 0 and "Restored your library" in capsys.readouterr().out


def test_every_page_says_so_and_offers_the_restore(tmp_path, monkeypatch):
    monkeypatch.setenv("CITETUTOR_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("CITETUTOR_RUNTIME", "embedded")
    settings = _library_with_snapshots(tmp_path)
    settings.db_path.write_bytes(DAMAGE["truncated"](settings.db_path.read_bytes()))
    import streamlit as st
    st.cache_resource.clear()
    for page in ("pages/tutor.py", "pages/quiz.py", "pages/traces.py"):
        at = AppTest.from_file(str(Path(__file__).parent.parent / "app.py"), default_timeout=60).run()
        at.switch_page(page).run()
        assert any("is damaged and cannot be read" in e.value for e in at.error), page
        assert [b for b in at.button if b.label == "Restore the snapshot"], page
    next(b for b in at.button if b.label == "Restore the snapshot").click().run()
    assert any("Restored your library" in s.value for s in at.success)
    st.cache_resource.clear()
