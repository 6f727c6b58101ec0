"""The tutor conversation per subject: turns kept in DuckDB, follow-ups read with their context."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass

from citetutor.checks import QUESTION_FRAME
from citetutor.evidence import stems
from citetutor.inputs import MAX_QUESTION_CHARS
from citetutor.store import Store
from citetutor.tutor import TutorAnswer, answer_from_fields

# Words that point back at the previous turn ("why is that?", "is it constant?").
POINTING_BACK = re.compile(r"\b(it|its|that|this|these|those|they|them|their|there)\b", re.IGNORECASE)
# Words a follow-up is made of that name no topic: the question frame, the pointers, "is".
NOT_A_TOPIC = QUESTION_FRAME | set(stems("it its that this these those they them their there is are was"))
HISTORY_LIMIT = 50


@dataclass
class Turn:
    """One question and what the tutor showed for it."""

    id: int
    question: str
    searched: str  # what retrieval was given: the question, or it with the previous one
    mode: str
    answer: TutorAnswer


def searched_question(question: str, previous: str | None) -> str:
    """A follow-up that names no topic of its own is searched together with the previous question."""
    if not previous:
        return question
    topic = set(stems(question)) - NOT_A_TOPIC
    short_and_pointing = POINTING_BACK.search(question) and len(topic) <= 2
    if not (short_and_pointing or not topic):
        return question
    room = MAX_QUESTION_CHARS - len(question) - 1  # the pair stays a question the tutor accepts
    return f"{previous[-room:]} {question}" if room > 0 else question


def history(store: Store, subject_id: int, limit: int = HISTORY_LIMIT) -> list[Turn]:
    """The subject's last turns, oldest first."""
    rows = store.query("SELECT id, question, searched, mode, answer_json FROM chat_turns "
                       "WHERE subject_id = ? ORDER BY id DESC LIMIT ?", [subject_id, limit])
    return [Turn(i, q, s, m, answer_from_fields(json.loads(a))) for i, q, s, m, a in reversed(rows)]


def record(store: Store, subject_id: int, question: str, searched: str, mode: str,
           answer: TutorAnswer) -> Turn:
    """Keep a turn (a trace-like write: retrieval caches stay warm)."""
    with store.transaction(library=False) as cur:
        row = cur.execute(
            "INSERT INTO chat_turns (id, subject_id, question, searched, mode, answer_json) "
            "VALUES (nextval('chat_turns_seq'), ?, ?, ?, ?, ?) RETURNING id",
            [subject_id, question, searched, mode, json.dumps(asdict(answer))]).fetchone()
        assert row is not None  # RETURNING always yields the new row
        turn_id = row[0]
    return Turn(turn_id, question, searched, mode, answer)


def clear(store: Store, subject_id: int) -> None:
    """Forget a subject's conversation."""
    store.execute("DELETE FROM chat_turns WHERE subject_id = ?", [subject_id], library=False)
