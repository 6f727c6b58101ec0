"""Shared pytest fixtures and markers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.ollama_server import FakeOllama


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers the suite uses."""
    config.addinivalue_line("markers", "slow: runs a real in-process model (seconds, not ms)")
    config.addinivalue_line("markers", "live: needs a real Ollama server; opt-in")


@pytest.fixture(autouse=True)
def isolated_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """No CITETUTOR_* variable from the developer's shell reaches a test's Settings."""
    import os
    for name in [n for n in os.environ if n.startswith("CITETUTOR_")]:
        monkeypatch.delenv(name)


@pytest.fixture
def ollama_server() -> Iterator[FakeOllama]:
    """A real loopback server speaking Ollama's API; `.url` is its base URL."""
    server = FakeOllama().start()
    try:
        yield server
    finally:
        server.stop()
