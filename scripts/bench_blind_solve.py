"""Blind solve alongside drafting vs after it, through the loopback Ollama API server.

Every scripted model call sleeps the same time, so the ratio shows what running the blind
solve concurrently saves per answer: `PYTHONPATH=. .venv/bin/python scripts/bench_blind_solve.py`.
"""

import statistics
import sys
import tempfile
import time
from pathlib import Path

from citetutor.config import Settings
from citetutor.pipeline import Pipeline
from tests.fakes import judge_reply
from tests.helpers import as_json, blind_citing, quoting_draft
from tests.ollama_server import FakeOllama

CALL_S = float(sys.argv[1]) if len(sys.argv) > 1 else 0.4
FIXTURE = Path(__file__).resolve().parents[1] / "assets" / "mechanics-fixture.pdf"


def slow(reply):
    """A scripted reply that takes CALL_S seconds, like a model would."""
    def answer(body):
        time.sleep(CALL_S)
        return reply(body)
    return answer


def run(server: FakeOllama, parallel: bool, repeats: int = 5) -> list[float]:
    """Seconds per verified answer."""
    pipe = Pipeline(Settings(data_dir=Path(tempfile.mkdtemp()), ollama_host=server.url,
                             runtime="ollama", parallel_blind_solve=parallel))
    subject = pipe.create_subject("bench")
    pipe.upload(FIXTURE.read_bytes(), FIXTURE.name, subject)
    times = []
    for i in range(repeats):
        server.enqueue_chat("gemma3:4b", slow(as_json(quoting_draft("12 N"))))
        server.enqueue_chat("qwen2.5:3b", slow(as_json(blind_citing("12 N"))))
        started = time.perf_counter()
        result = pipe.ask(f"What net force pushes the 3.0 kg cart? ({i})", subject)
        assert result.status == "answered", result.reasons
        times.append(time.perf_counter() - started)
    return times


if __name__ == "__main__":
    server = FakeOllama({"gemma3:4b", "qwen2.5:3b", "nomic-embed-text"}).start()
    server.judge = slow(judge_reply)  # meaning checks take a model call each, like the rest
    try:
        both: dict[bool, list[float]] = {True: [], False: []}
        for parallel in (True, False, True, False):  # interleaved, so drift hits both
            both[parallel] += run(server, parallel)
        concurrent, serial = statistics.median(both[True]), statistics.median(both[False])
        print(f"concurrent {concurrent:.2f} s, serial {serial:.2f} s per answer "
              f"(ratio {concurrent / serial:.2f}; {CALL_S} s per model call)")
    finally:
        server.stop()
