"""Kept quiz items export as a CSV a spreadsheet reads and an Anki deck Anki can import."""

import csv
import io
import sqlite3
import zipfile

from citetutor.quiz import QuizItem
from citetutor.quiz_export import to_apkg, to_csv
from citetutor.schemas import QuizCandidate

ITEMS = [
    QuizItem("q1", QuizCandidate(stem="Where does the acceleration point?", kind="mcq",
                                 options=["inward", "outward", "along v"], answer_index=0,
                                 answer_text="inward", sentences=[1]), [2], ["…directed radially inward…"]),
    QuizItem("q2", QuizCandidate(stem="What is the period?", kind="short",
                                 answer_text="the time for one revolution", sentences=[3]), [9, 10], []),
]


def test_csv_has_one_row_per_item_with_page_and_quote():
    rows = list(csv.DictReader(io.StringIO(to_csv(ITEMS, "MIT ch. 6").decode("utf-8-sig"))))
    assert [r["answer"] for r in rows] == ["inward", "the time for one revolution"]
    assert rows[0]["options"] == "A. inward | B. outward | C. along v" and rows[0]["pages"] == "2"
    assert rows[0]["quote"] == "…directed radially inward…" and rows[1]["pages"] == "9, 10"


def test_apkg_is_an_anki_package_whose_notes_carry_page_and_quote(tmp_path):
    data = to_apkg(ITEMS, "MIT ch. 6")
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        assert "collection.anki2" in package.namelist()
        (tmp_path / "c.anki2").write_bytes(package.read("collection.anki2"))
    notes = sqlite3.connect(tmp_path / "c.anki2").execute("SELECT flds FROM notes").fetchall()
    fields = [n[0].split("\x1f") for n in notes]
    assert len(fields) == 2
    first = next(f for f in fields if f[0] == "Where does the acceleration point?")
    assert first[2] == "inward" and "p. 2" in first[3] and "radially inward" in first[3]


def test_a_short_answer_is_checked_by_what_it_adds_to_the_question(tmp_path):
    from tests.helpers import make_pipeline
    pipe = make_pipeline(tmp_path)
    item = ITEMS[1]
    assert pipe.check_answer(item, "the time of one full revolution").right
    assert not pipe.check_answer(item, "the period is the period").right  # restating the question
    assert not pipe.check_answer(item, "   ").right
