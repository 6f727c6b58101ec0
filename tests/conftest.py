"""Shared pytest fixtures and markers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.ollama_server import FakeOllama


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers the suite uses."""
    config.addinivalue_line("markers", "slow: runs a real in-process model (seconds, not ms)")
    config.addinivalue_line("markers", "live: needs a real Ollama server; opt-in")


@pytest.fixture
def ollama_server() -> Iterator[FakeOllama]:
    """A real loopback server speaking Ollama's API; `.url` is its base URL."""
    server = FakeOllama().start()
    try:
        yield server
    finally:
        server.stop()
