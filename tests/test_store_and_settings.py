"""Migrations apply once; settings read CITETUTOR_ env vars and reject unknown keys."""

import pytest
from pydantic import ValidationError

from citetutor import cli
from citetutor.config import Settings
from citetutor.store import MIGRATIONS, Store


def test_migrations_are_idempotent_across_restarts(tmp_path):
    path = tmp_path / "db.duckdb"
    first = Store(path)
    first.execute("INSERT INTO subjects (id, name) VALUES (1, 'kept')")
    first.close()
    again = Store(path)
    assert again.query("SELECT version FROM schema_version ORDER BY version") == [
        (n,) for n in range(1, len(MIGRATIONS) + 1)]
    assert again.query("SELECT name FROM subjects") == [("kept",)]


def test_a_version_1_library_upgrades_and_keeps_its_chunks(tmp_path):
    import duckdb

    path = tmp_path / "old.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute("CREATE TABLE schema_version (version INTEGER)")
    conn.execute(MIGRATIONS[0])
    conn.execute("INSERT INTO schema_version VALUES (1)")
    conn.execute("INSERT INTO chunks VALUES ('d-p1-c0', 'd', 1, 0, 'Old text.', 0, 9, '[[1, 2, 3, 4]]')")
    conn.close()
    store = Store(path)
    assert store.query("SELECT text, bboxes, word_boxes FROM chunks") == [
        ("Old text.", "[[1, 2, 3, 4]]", None)]


def test_failed_transaction_leaves_nothing(tmp_path):
    store = Store(tmp_path / "db.duckdb")
    with pytest.raises(RuntimeError):
        with store.transaction() as cur:
            cur.execute("INSERT INTO subjects (id, name) VALUES (1, 'half')")
            raise RuntimeError("crash mid-write")
    assert store.query("SELECT count(*) FROM subjects") == [(0,)]


def test_settings_from_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("CITETUTOR_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("CITETUTOR_MODELS__VERIFIER", "qwen2.5:7b")
    monkeypatch.setenv("CITETUTOR_LIMITS__TOP_K", "9")
    settings = Settings()
    assert settings.db_path == tmp_path / "citetutor.duckdb"
    assert (settings.models.verifier, settings.limits.top_k) == ("qwen2.5:7b", 9)
    with pytest.raises(ValidationError):
        Settings(limits={"top_kk": 3})


@pytest.fixture
def cli_env(monkeypatch, tmp_path, ollama_server, capsys):
    """CLI environment on tmp_path and the loopback server; ingests the fixture -> (exit code, output)."""
    ollama_server.models |= {"gemma3:4b", "qwen2.5:3b", "nomic-embed-text"}
    monkeypatch.setenv("CITETUTOR_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("CITETUTOR_OLLAMA_HOST", ollama_server.url)
    monkeypatch.setenv("CITETUTOR_RUNTIME", "ollama")
    fixture = cli.Path(__file__).resolve().parents[1] / "assets" / "mechanics-fixture.pdf"
    code = cli.main(["ingest", "--subject", "Mechanics", str(fixture)])
    return code, capsys.readouterr().out


def test_cli_ingest_and_health_over_http(cli_env, tmp_path, capsys):
    code, out = cli_env
    assert code == 0 and "text, ready, 3 pages" in out
    assert cli.main(["health"]) == 0
    out = capsys.readouterr().out
    assert "MISSING ocr" in out and "ollama pull glm-ocr:q8_0" in out
    assert cli.main(["ingest", "--subject", "Mechanics", str(tmp_path / "nope.pdf")]) == 1
    assert "No file at" in capsys.readouterr().err


def test_cli_eval_prints_the_table_on_a_fresh_library(cli_env, tmp_path, ollama_server, capsys):
    import json

    from tests.helpers import as_json, blind_citing, quoting_draft
    assert cli_env[0] == 0
    ollama_server.enqueue_chat("gemma3:4b", as_json(quoting_draft("12 N")))
    ollama_server.enqueue_chat("qwen2.5:3b", as_json(blind_citing("12 N")))
    fixture = cli.Path(__file__).resolve().parents[1] / "assets" / "mechanics-fixture.pdf"
    (tmp_path / "pdfs").mkdir()
    (tmp_path / "pdfs" / "notes.pdf").write_bytes(fixture.read_bytes())
    qset = tmp_path / "sets" / "fixture.json"
    qset.parent.mkdir()
    qset.write_text(json.dumps({"pdf": "../pdfs/notes.pdf", "subject": "Mechanics", "cases": [
        {"question": "What net force pushes the 3.0 kg cart?", "pages": [2], "must": ["12 ?n"]},
        {"question": "qqzx blorft", "refuse": "unrelated"}]}))
    assert cli.main(["eval", str(qset)]) == 0
    out = capsys.readouterr().out
    assert "| fixture | 1/1 | 0 | 0 | 0 | 0 | 1/1 | 0/0 |" in out, out
    assert "correct" in out and "refused" in out
    # The learner's own library is untouched: the eval ran in a scratch folder of the data dir.
    assert (tmp_path / "eval" / "citetutor.duckdb").exists()
    pipe = cli.Pipeline(cli.Settings())
    assert [s["name"] for s in pipe.subjects()] == ["Mechanics"]
    assert pipe.recent_requests() and all(r["kind"] == "ingest" for r in pipe.recent_requests())
    assert cli.main(["eval", str(qset), "--pdf", str(tmp_path / "missing.pdf")]) == 1
    assert "No PDF at" in capsys.readouterr().err


def test_cli_refuses_an_oversized_file_before_reading_it(cli_env, tmp_path, monkeypatch, capsys):
    huge = tmp_path / "huge.pdf"
    with open(huge, "wb") as f:
        f.truncate(201 * 1024 * 1024)  # sparse: no 201 MB written
    monkeypatch.setattr(cli.Path, "read_bytes", lambda self: pytest.fail("read the whole file"))
    assert cli.main(["ingest", "--subject", "Mechanics", str(huge)]) == 1
    assert "larger than 200 MB" in capsys.readouterr().err


def test_cli_bench_prints_both_paths_and_leaves_nothing_behind(cli_env, tmp_path, capsys):
    fixture = cli.Path(__file__).resolve().parents[1] / "assets" / "mechanics-fixture.pdf"
    code = cli.main(["bench", str(fixture), "--sizes", "300", "--previous-up-to", "300",
                     "--query", "net force on the cart"])
    out = capsys.readouterr().out
    assert code == 0 and "| 300 | current |" in out and "| 300 | previous |" in out
    assert not (tmp_path / "bench").exists(), "the bench's libraries are removed afterwards"
