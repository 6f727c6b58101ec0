"""A real browser on a real app: `streamlit run app.py` on loopback, driven by Playwright.

Debian's chromium is used (Playwright never downloads a browser); every model call goes over
HTTP to the loopback Ollama stand-in. Waits are bounded; nothing asserts on timings.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT_S = 60
UI_TIMEOUT_MS = 60_000


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_healthy(url: str, process: subprocess.Popen, log: Path) -> None:
    """Poll Streamlit's health endpoint until it says ok, the server dies, or time runs out."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"streamlit exited with {process.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.read().decode().strip() == "ok":
                    return
        except OSError:
            pass
        time.sleep(0.25)
    pytest.fail(f"streamlit was not healthy within {START_TIMEOUT_S} s:\n{log.read_text()}")


@contextmanager
def running_app(data_dir: Path, ollama_url: str, log: Path, runtime: str = "auto") -> Iterator[str]:
    """`streamlit run app.py` on a free loopback port; yields its base URL."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITETUTOR_")}
    env.update(CITETUTOR_DATA_DIR=str(data_dir), CITETUTOR_OLLAMA_HOST=ollama_url, CITETUTOR_RUNTIME=runtime)
    with log.open("w") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
             "--server.address", "127.0.0.1", "--server.headless", "true",
             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
            cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT)
    try:
        _wait_healthy(f"http://127.0.0.1:{port}/_stcore/health", process, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


def after_a_wait(seconds: float, reply: Callable[[dict], str]) -> Callable[[dict], str]:
    """A scripted reply that takes `seconds`: a window in which the learner watches the checks run."""
    def slow(body: dict) -> str:
        time.sleep(seconds)
        return reply(body)
    return slow


@contextmanager
def browser_page(playwright) -> Iterator:
    """A page in Debian's headless chromium with bounded waits; the browser closes after."""
    from playwright.sync_api import expect
    # expect() retries for 5 s by default; a rerun on a loaded 2-core machine (the whole suite
    # running) can take longer, and a bounded wait is not a timing assertion.
    expect.set_options(timeout=UI_TIMEOUT_MS // 2)
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
        page.set_default_timeout(UI_TIMEOUT_MS)
        yield page
    finally:
        browser.close()
