"""Kept quiz items as files a learner keeps: CSV, and an Anki deck (.apkg) via genanki."""

from __future__ import annotations

import csv
import hashlib
import io
import tempfile
from pathlib import Path

from citetutor.quiz import QuizItem

CSV_FIELDS = ["question", "options", "answer", "pages", "quote", "source"]


def _row(item: QuizItem, source: str) -> dict[str, str]:
    """One item as flat text fields."""
    c = item.candidate
    options = " | ".join(f"{chr(65 + i)}. {o}" for i, o in enumerate(c.options)) if c.kind == "mcq" else ""
    return {"question": c.stem, "options": options, "answer": item.key,
            "pages": ", ".join(map(str, item.pages)), "quote": " … ".join(item.quotes), "source": source}


def to_csv(items: list[QuizItem], source: str) -> bytes:
    """A UTF-8 CSV (with BOM, so spreadsheet apps read the accents) of the items."""
    out = io.StringIO()
    writer = csv.DictWriter(out, CSV_FIELDS)
    writer.writeheader()
    writer.writerows(_row(item, source) for item in items)
    return ("\ufeff" + out.getvalue()).encode("utf-8")


def _stable_id(text: str) -> int:
    """A deck or model ID derived from text, so re-exports update rather than duplicate."""
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


def to_apkg(items: list[QuizItem], source: str) -> bytes:
    """An Anki deck: front the question (and options), back the answer, page and quote."""
    import genanki

    model = genanki.Model(
        _stable_id("citetutor-quiz-model-v1"), "CiteTutor question",
        fields=[{"name": n} for n in ("Question", "Options", "Answer", "Source")],
        templates=[{"name": "Card",
                    "qfmt": "{{Question}}<br><br>{{Options}}",
                    "afmt": "{{FrontSide}}<hr id=answer><b>{{Answer}}</b><br><br>{{Source}}"}])
    deck = genanki.Deck(_stable_id(f"citetutor-deck:{source}"), f"CiteTutor::{source}")
    for item in items:
        row = _row(item, source)
        quote = f"<blockquote>{row['quote']}</blockquote>" if row["quote"] else ""
        deck.add_note(genanki.Note(
            model=model, guid=genanki.guid_for(item.id),
            fields=[row["question"], row["options"].replace(" | ", "<br>"), row["answer"],
                    f"{source}, p. {row['pages']}{quote}"]))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "deck.apkg"
        genanki.Package(deck).write_to_file(str(path))
        return path.read_bytes()
