"""A bounded stress run over loopback HTTP: threads racing uploads, deletes and questions.

4 threads share one library for 50 operations; a second process tries to open the same
library and is told it is in use. Afterwards no file is lost and no row or file is orphaned.
"""

import random
import subprocess
import sys
import threading
from pathlib import Path

from citetutor.config import Settings
from citetutor.errors import CiteTutorError
from citetutor.pipeline import Pipeline
from tests.corpus import MIT, SLIDES, corpus_file
from tests.test_pipeline_ollama_http import ROLES, blind_citing_first_sentence, draft_citing_first_sentence

PDFS = [corpus_file(*MIT).read_bytes(), corpus_file(*SLIDES).read_bytes(),
        (Path(__file__).resolve().parents[1] / "assets" / "mechanics-fixture.pdf").read_bytes()]
QUESTIONS = ["What is centripetal acceleration?", "What is a static array?", "What is the net force?"]


def any_reply(body: dict) -> str:
    """Whatever the gate asked for, by the schema it sent."""
    fields = body["format"].get("properties", {})
    if "claims" in fields:
        return draft_citing_first_sentence(body)
    return blind_citing_first_sentence(body)


def test_threads_racing_uploads_deletes_and_questions_lose_nothing(tmp_path, ollama_server):
    ollama_server.models |= set(ROLES)
    for _ in range(400):
        ollama_server.enqueue_chat(ROLES[0], any_reply)
        ollama_server.enqueue_chat(ROLES[1], any_reply)
    pipe = Pipeline(Settings(data_dir=tmp_path, ollama_host=ollama_server.url))
    subjects = [pipe.create_subject("A"), pipe.create_subject("B")]
    failures: list[BaseException] = []
    budget = iter(range(50))
    budget_lock = threading.Lock()

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        while True:
            with budget_lock:
                if next(budget, None) is None:
                    return
            subject = rng.choice(subjects)
            try:
                action = rng.choice(["upload", "upload", "delete", "ask"])
                if action == "upload":
                    pipe.upload(rng.choice(PDFS), f"notes-{rng.randint(0, 2)}.pdf", subject)
                elif action == "delete" and (docs := pipe.documents(subject)):
                    pipe.delete_document(rng.choice(docs)["id"])
                elif action == "ask":
                    pipe.ask(rng.choice(QUESTIONS), subject)
            except CiteTutorError:
                pass  # a clear, expected refusal (e.g. the document was just deleted)
            except BaseException as exc:  # noqa: BLE001 - anything else is a failure
                failures.append(exc)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    other = subprocess.run(
        [sys.executable, "-c", "from citetutor.store import Store\nfrom citetutor.errors import "
         f"LibraryUnavailable\ntry:\n    Store({str(pipe.settings.db_path)!r})\n"
         "except LibraryUnavailable as exc:\n    print(exc)"],
        capture_output=True, text=True, timeout=60)
    for thread in threads:
        thread.join()
    assert not failures, failures
    assert "already open in another window or process" in other.stdout, other.stderr

    docs = pipe.store.query("SELECT id, sha256 FROM documents")
    for _, sha in docs:
        assert (pipe.settings.files_dir / f"{sha}.pdf").is_file(), "a stored document lost its file"
    files = {p.name for p in pipe.settings.files_dir.iterdir()} if pipe.settings.files_dir.exists() else set()
    assert files == {f"{sha}.pdf" for _, sha in docs}, "no orphan files"
    for table, key in (("pages", "doc_id"), ("chunks", "doc_id")):
        assert not pipe.store.query(f"SELECT 1 FROM {table} WHERE {key} NOT IN (SELECT id FROM documents)")
    assert not pipe.store.query("SELECT 1 FROM embeddings WHERE chunk_id NOT IN (SELECT id FROM chunks)")
