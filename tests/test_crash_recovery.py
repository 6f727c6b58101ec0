"""kill -9 at four points of an ingest, then a restart: the library is consistent."""

import subprocess
import sys
from pathlib import Path

import pytest

from tests.corpus import MIT, corpus_file
from tests.helpers import make_pipeline

ROOT = Path(__file__).resolve().parents[1]

# Runs in a child process: ingest MIT and SIGKILL itself at the named point.
CHILD = """
import os, signal, sys
sys.path.insert(0, {root!r})
from citetutor import index
from tests.helpers import make_pipeline
from pathlib import Path
point = {point!r}
die = lambda: os.kill(os.getpid(), signal.SIGKILL)
pipe = make_pipeline(Path({data!r}))
subject = pipe.create_subject("S")
pipe.upload(open({pdf!r}, "rb").read(), "first.pdf", subject)  # committed before the crash
if point == "transaction":  # after writing chunks and vectors, before COMMIT
    original = index.insert_chunks
    index.insert_chunks = lambda cur, *a: (original(cur, *a), die())
def progress(fraction, message):
    if (point == "reading" and message.startswith("Reading page 2")
            or point == "embedding" and message.startswith("Embedding")
            or point == "done" and message == "Done"):
        die()
pipe.upload(open({pdf2!r}, "rb").read(), "second.pdf", subject, progress=progress)
"""


@pytest.mark.parametrize("point", ["reading", "embedding", "transaction", "done"])
def test_kill_during_ingest_then_restart_leaves_a_consistent_library(tmp_path, point):
    pdf, pdf2 = corpus_file(*MIT), corpus_file("course", "fiset-static-and-dynamic-arrays-slides.pdf")
    script = CHILD.format(root=str(ROOT), point=point, data=str(tmp_path), pdf=str(pdf), pdf2=str(pdf2))
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                           cwd=ROOT)
    assert child.returncode == -9, child.stderr
    pipe = make_pipeline(tmp_path)  # the restart
    docs = pipe.store.query("SELECT id, sha256 FROM documents ORDER BY title")
    assert len(docs) == (2 if point == "done" else 1)
    for doc_id, sha in docs:
        assert (pipe.settings.files_dir / f"{sha}.pdf").is_file(), "every row has its original"
        chunks = pipe.store.query("SELECT count(*) FROM chunks WHERE doc_id = ?", [doc_id])[0][0]
        vectors = pipe.store.query("SELECT count(*) FROM embeddings e JOIN chunks c ON c.id = e.chunk_id "
                                   "WHERE c.doc_id = ?", [doc_id])[0][0]
        assert chunks == vectors > 0
    owned = {f"{sha}.pdf" for _, sha in docs}
    assert {p.name for p in pipe.settings.files_dir.iterdir()} == owned, "no orphan files"
    assert pipe.store.query("SELECT count(*) FROM pages WHERE doc_id NOT IN (SELECT id FROM documents)")[0][0] == 0
