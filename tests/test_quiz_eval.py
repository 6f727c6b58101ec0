"""The quiz eval's report: kept items counted against the reader's verdicts, per PDF."""

from citetutor.devtools.quizeval import RangeReport, range_lines, table, verdict_key
from citetutor.quiz import QuizItem
from citetutor.schemas import QuizCandidate


def _item(stem: str, key: str, kind: str = "cloze") -> QuizItem:
    return QuizItem(stem[:8], QuizCandidate(stem=stem, kind=kind, answer_text=key, sentences=[1]), [2],
                    [stem.replace("_____", key)])


def test_wrong_keys_come_from_the_readers_verdicts_and_unjudged_items_are_counted():
    right, wrong, unjudged = (_item("A _____ is a thing.", "term"), _item("B _____ is.", "other"),
                              _item("What is C?", "c", "short"))
    report = RangeReport("notes.pdf", 1, 4, 5, [right, wrong, unjudged], [12.0, 30.0, 41.0], 60.0,
                         {"answer_mismatch": 2}, "Found 3 of 5 after trying 6 candidates: ...",
                         tutor_question="Why?", tutor_s=25.0)
    verdicts = {verdict_key("notes.pdf", right): {"key_right": True},
                verdict_key("notes.pdf", wrong): {"key_right": False, "note": "the sentence says else"}}
    row = table([report], verdicts).splitlines()[2]
    assert row == "| notes.pdf | 1 | 3/5 | 0 | 2 / 0 / 1 | 1 | 1 | 12 s | 20 s | 25 s |"
    lines = range_lines(report, verdicts)
    assert "3/5 kept, first after 12 s" in lines and "2 answer_mismatch" in lines
    assert "reader: not yet judged" in lines and "the sentence says else" in lines
    assert "one gated tutor answer on these pages: 25 s (Why?)" in lines


def test_a_range_with_nothing_kept_reports_dashes_not_an_error():
    report = RangeReport("slides.pdf", 5, 7, 5, seconds=18.0, shortfall="Found 0 of 5 ...")
    assert table([report], {}).splitlines()[2] == "| slides.pdf | 1 | 0/5 | 1 | 0 / 0 / 0 | 0 | 0 | - | - | - |"
