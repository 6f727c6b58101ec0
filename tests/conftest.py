"""Shared pytest fixtures and markers."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

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


@pytest.fixture
def sync_playwright():
    """Playwright's sync API, or a skip when it or Debian's chromium is missing."""
    from tests.browser import CHROMIUM

    if not Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is None:
        pytest.skip(f"{CHROMIUM} not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed (pip install playwright)")
    return sync_playwright
