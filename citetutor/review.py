"""The review deck: kept quiz questions come back when FSRS (the scheduler Anki uses) says
they are due; a right answer spaces the next review out, a miss brings it back soon."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone

from fsrs import Card, Rating, Scheduler

from citetutor.quiz import QuizItem, item_from_json
from citetutor.store import Store

_SCHEDULER = Scheduler()  # FSRS defaults: 90% desired retention, 1 and 10 minute learning steps


@dataclass
class DueCard:
    """A question due for review, with the document it came from."""

    item: QuizItem
    doc_id: str
    due: datetime
    reviews: int


def now() -> datetime:
    """The current time as FSRS wants it (aware, UTC)."""
    return datetime.now(timezone.utc)


def add(store: Store, item: QuizItem, subject_id: int, doc_id: str, at: datetime | None = None) -> None:
    """Put a kept question into its subject's deck, due at once, unless the deck already holds
    the same question about the same document (a second quiz on the same pages finds it again)."""
    card = Card(due=at or now())
    store.execute("INSERT INTO review_cards (item_id, subject_id, doc_id, card_json, due) "
                  "SELECT ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM review_cards r JOIN quiz_items q "
                  "ON q.id = r.item_id WHERE r.doc_id = ? AND json_extract_string(q.item_json, '$.stem') = ?) "
                  "ON CONFLICT DO NOTHING",
                  [item.id, subject_id, doc_id, card.to_json(), card.due, doc_id, item.candidate.stem],
                  library=False)


def due(store: Store, subject_id: int, at: datetime | None = None, limit: int = 20) -> list[DueCard]:
    """The subject's questions due by `at`, the longest overdue first."""
    rows = store.query(
        "SELECT r.item_id, q.item_json, r.doc_id, r.due, r.reviews FROM review_cards r "
        "JOIN quiz_items q ON q.id = r.item_id WHERE r.subject_id = ? AND r.due <= ? "
        "ORDER BY r.due LIMIT ?", [subject_id, at or now(), limit])
    return [DueCard(item_from_json(item_id, item_json), doc_id, when, reviews)
            for item_id, item_json, doc_id, when, reviews in rows]


def record(store: Store, item_id: str, right: bool, at: datetime | None = None) -> datetime:
    """Schedule the card after an answer (right: Good, wrong: Again); returns the next due time."""
    found = store.query("SELECT card_json FROM review_cards WHERE item_id = ?", [item_id])
    if not found:
        raise KeyError(item_id)
    card, _ = _SCHEDULER.review_card(Card.from_json(found[0][0]), Rating.Good if right else Rating.Again,
                                     at or now())
    store.execute("UPDATE review_cards SET card_json = ?, due = ?, reviews = reviews + 1, last_right = ? "
                  "WHERE item_id = ?", [card.to_json(), card.due, right, item_id], library=False)
    return card.due


def counts(store: Store, subject_id: int, at: datetime | None = None) -> tuple[int, int]:
    """(due now, in the deck) for a subject."""
    row = store.query("SELECT count(*) FILTER (WHERE due <= ?), count(*) FROM review_cards "
                      "WHERE subject_id = ?", [at or now(), subject_id])[0]
    return int(row[0]), int(row[1])


def next_due(store: Store, item_id: str) -> datetime:
    """When a card is due next."""
    return store.query("SELECT due FROM review_cards WHERE item_id = ?", [item_id])[0][0]


def card_state(store: Store, item_id: str) -> dict:
    """The stored FSRS card (stability, difficulty, state), for the page's schedule line."""
    return json.loads(store.query("SELECT card_json FROM review_cards WHERE item_id = ?", [item_id])[0][0])
