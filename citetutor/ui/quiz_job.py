"""A quiz made on a worker thread, so the learner answers the first kept question while the
rest are still being checked (a Streamlit rerun would otherwise stop the work)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from citetutor.errors import CiteTutorError
from citetutor.pipeline import Pipeline
from citetutor.quiz import QuizItem, QuizResult


@dataclass
class QuizJob:
    """One quiz request and what it has found so far; read by the page, written by the thread."""

    doc_id: str
    first: int
    last: int
    count: int
    kinds: str
    started: float = field(default_factory=time.monotonic)
    items: list[QuizItem] = field(default_factory=list)
    stage: str = "Starting"
    result: QuizResult | None = None
    error: str = ""
    finished: float | None = None

    @property
    def running(self) -> bool:
        """Whether the worker is still trying candidates."""
        return self.result is None and not self.error

    def seconds(self) -> float:
        """Time since the request, frozen when it finished."""
        return (self.finished or time.monotonic()) - self.started

    def start(self, pipeline: Pipeline) -> "QuizJob":
        """Run the quiz on a daemon thread (the page polls this object)."""
        threading.Thread(target=self._run, args=(pipeline,), daemon=True, name="quiz").start()
        return self

    def _run(self, pipeline: Pipeline) -> None:
        def on_stage(stage: str, number: int) -> None:
            verb = "Writing" if stage == "draft" else "Checking"
            self.stage = f"{verb} candidate {number}"

        try:
            self.result = pipeline.quiz(self.doc_id, self.first, self.last, self.count, self.kinds,
                                        on_stage, self.items.append)
        except CiteTutorError as exc:
            self.error = str(exc)
        except Exception as exc:  # noqa: BLE001 - shown on the page; the thread must not die silently
            self.error = f"Something went wrong while making questions ({type(exc).__name__}); try again."
        finally:
            self.finished = time.monotonic()
