"""Every way the library can fail to open says what to do; files are private to the learner."""

import os
import stat
import subprocess
import sys

import pytest

from citetutor.config import Settings
from citetutor.errors import LibraryUnavailable
from citetutor.store import Store
from tests.corpus import MIT, corpus_file
from tests.helpers import make_pipeline


def test_a_library_open_in_another_process_is_named_as_such(tmp_path):
    holder = Store(tmp_path / "lib.duckdb")  # this process holds the lock
    probe = ("from citetutor.store import Store\n"
             "from citetutor.errors import LibraryUnavailable\n"
             f"try:\n    Store({str(tmp_path / 'lib.duckdb')!r})\n"
             "except LibraryUnavailable as exc:\n    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                         cwd=os.getcwd())
    assert "already open in another window or process" in out.stdout, out.stderr
    holder.close()


@pytest.mark.parametrize("content", [b"not a database at all " * 100, b""])
def test_a_damaged_library_file_says_how_to_start_fresh(tmp_path, content):
    path = tmp_path / "lib.duckdb"
    path.write_bytes(content)
    if not content:
        good = Store(tmp_path / "good.duckdb")
        good.close()
        path.write_bytes((tmp_path / "good.duckdb").read_bytes()[:5000])  # truncated
    with pytest.raises(LibraryUnavailable, match="is damaged and cannot be read"):
        Store(path)


def test_a_data_dir_that_is_a_file_is_named(tmp_path):
    (tmp_path / "data").write_text("oops")
    with pytest.raises(LibraryUnavailable, match="is a file, not a folder"):
        Store(tmp_path / "data" / "citetutor.duckdb")


def test_tilde_in_the_data_dir_means_home(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CITETUTOR_DATA_DIR", "~/notes")
    assert Settings().data_dir == tmp_path / "notes"


def test_library_and_originals_are_private(tmp_path):
    pipe = make_pipeline(tmp_path / "lib")
    pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", pipe.create_subject("S"))
    paths = [tmp_path / "lib", pipe.settings.db_path, pipe.settings.files_dir,
             *pipe.settings.files_dir.rglob("*")]
    assert len(paths) > 3
    for path in paths:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode & 0o077 == 0, f"{path} is {oct(mode)}"
