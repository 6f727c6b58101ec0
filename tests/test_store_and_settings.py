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
    assert again.query("SELECT version FROM schema_version") == [(len(MIGRATIONS),)]
    assert again.query("SELECT name FROM subjects") == [("kept",)]


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
    monkeypatch.setenv("CITETUTOR_LIMITS__TOP_K", "6")
    settings = Settings()
    assert settings.db_path == tmp_path / "citetutor.duckdb"
    assert (settings.models.verifier, settings.limits.top_k) == ("qwen2.5:7b", 6)
    with pytest.raises(ValidationError):
        Settings(limits={"top_kk": 3})


@pytest.fixture
def cli_env(monkeypatch, tmp_path, ollama_server, capsys):
    """CLI environment on tmp_path and the loopback server; ingests the fixture -> (exit code, output)."""
    ollama_server.models |= {"gemma3:4b", "qwen2.5:3b", "nomic-embed-text"}
    monkeypatch.setenv("CITETUTOR_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("CITETUTOR_OLLAMA_HOST", ollama_server.url)
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


def test_cli_eval_scores_answers_and_refusals(cli_env, tmp_path, ollama_server, capsys):
    import json
    import re

    from citetutor.schemas import BlindSolve, Claim, Draft, SupportVerdict
    assert cli_env[0] == 0

    def draft(body):
        ids = re.findall(r"^\[([^\]]+)\] \(page 2\)", body["messages"][-1]["content"], re.MULTILINE)
        return Draft(answer="4.0 m/s^2", claims=[Claim(text="a 3.0 kg cart pushed with a net force of 12 N",
                                                      chunk_ids=ids[:1])]).model_dump_json()
    ollama_server.enqueue_chat("gemma3:4b", draft)
    ollama_server.enqueue_chat("qwen2.5:3b", BlindSolve(answerable=True, answer="4.0", chunk_ids=[]).model_dump_json())
    ollama_server.enqueue_chat("qwen2.5:3b", SupportVerdict(relevant=True, agrees_with_blind=True,
                                                            unsupported_claims=[], reason="ok").model_dump_json())
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps([{"question": "What net force pushes the 3.0 kg cart?", "pages": [2]},
                                 {"question": "qqzx blorft", "refuse": True}]))
    assert cli.main(["eval", "--subject", "Mechanics", str(cases)]) == 0
    assert capsys.readouterr().out.startswith("2/2 correct")
