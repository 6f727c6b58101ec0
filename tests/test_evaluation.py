"""The eval grades what a student is shown by content: key facts present, wrong statements absent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citetutor.devtools.evaluation import (
    CORRECT,
    INCOMPLETE,
    WRONG,
    Case,
    Outcome,
    Report,
    load_set,
    table,
)
from citetutor.errors import InputError
from citetutor.states import DocStatus

EVALS = Path(__file__).resolve().parent.parent / "evals"
SIGN = Case("Why is the entropy change positive when you melt something?", (2,),
            must=("heat|enthalp", "positive|increase"), must_not=("negative",))


def test_a_flipped_sign_on_the_right_page_is_graded_wrong_not_correct():
    assert SIGN.grade("Melting needs heat, so the entropy of transition is negative.", [2]) == WRONG


def test_a_paraphrase_that_states_the_key_facts_is_correct():
    assert SIGN.grade("Melting takes in heat (a positive enthalpy), so entropy goes up.", [2]) == CORRECT


def test_an_answer_missing_a_key_fact_is_incomplete_and_one_citing_only_other_pages_is_wrong():
    assert SIGN.grade("Melting requires heat.", [2]) == INCOMPLETE
    assert SIGN.grade("Melting needs heat, so its entropy change is positive.", [4]) == WRONG


def test_negative_lookbehind_keys_tell_a_negation_from_its_flip():
    case = Case("If I work out every day, will my kids end up stronger?", (7,),
                must=(r"\bno\b|\bnot\b|n't", "acclimat|children"),
                must_not=(r"(?<!not )(?<!n't )make your children stronger",))
    assert case.grade("No: exercise will not make your children stronger (acclimation).", [7]) == CORRECT
    assert case.grade("Exercise will make your children stronger, not weaker.", [7]) == WRONG


def test_the_table_counts_content_verdicts_and_quotes():
    report = Report("s", [Outcome(SIGN, "answered", [2], 10.0, [], "Heat in, entropy positive."),
                          Outcome(SIGN, "answered", [2], 12.0, [], "It is negative.", form="quote"),
                          Outcome(SIGN, "refused", [], 30.0, ["uncovered_claim"], ""),
                          Outcome(Case("Poem?", refuse="unrelated"), "refused", [], 0.1, [], "")],
                    draft_only_seconds=[6.0])
    row = table([report]).splitlines()[-1]
    assert row.startswith("| s | 1/3 | 1 | 0 | 1 | 1 | 1/1 | 0/0 | 12.0 s | 2.00× |")


def test_every_shipped_set_has_a_key_for_every_supported_question():
    for path in EVALS.glob("*.json"):
        raw = json.loads(path.read_text())
        supported = [c for c in raw["cases"] if not c.get("refuse")]
        assert supported and all(c.get("must") for c in supported), path.name
        assert sum(c.get("mode") == "hint" for c in supported) >= 2, path.name


def test_a_missing_or_different_pdf_says_where_to_get_the_right_one(tmp_path):
    raw = json.loads((EVALS / "uo-ec201-16-monopoly-slides.json").read_text())
    (tmp_path / "set.json").write_text(json.dumps(raw))
    with pytest.raises(InputError, match="kyleraze/EC201_Microeconomics"):
        load_set(tmp_path / "set.json")
    (tmp_path / "pdfs").mkdir()
    (tmp_path / raw["pdf"]).write_bytes(b"%PDF-1.4 another file")
    with pytest.raises(InputError, match="SHA-256 differs"):
        load_set(tmp_path / "set.json")


def test_a_broken_key_pattern_is_refused_when_the_set_is_read(tmp_path):
    raw = {"pdf": "x.pdf", "cases": [{"question": "q", "pages": [1], "must": ["(unclosed"]}]}
    (tmp_path / "set.json").write_text(json.dumps(raw))
    with pytest.raises(InputError, match="Cannot read the question set"):
        load_set(tmp_path / "set.json")


def test_every_set_is_read_before_the_first_question_is_asked(tmp_path):
    from argparse import Namespace

    from citetutor.cli import _load_sets
    shared = EVALS / "fiset-static-and-dynamic-arrays-slides.json"
    with pytest.raises(InputError, match="Cannot read the question set"):
        _load_sets(Namespace(sets=[str(shared), str(tmp_path / "missing.json")], pdf=None))


def test_a_flip_longer_than_a_drafter_may_write_is_skipped_not_a_crash():
    from citetutor.devtools.fliptest import _with_first_claim
    from citetutor.schemas import Claim, Draft
    draft = Draft(claims=[Claim(text="x" * 235 + " is a", sentences=[1])])
    assert _with_first_claim(draft, "x" * 235 + " is not a") is None
    assert _with_first_claim(draft, "short and fine").claims[0].text == "short and fine"


def test_the_relevance_floor_table_counts_who_would_reach_the_models_and_missed_keys():
    from citetutor.devtools.relevance import Closeness, floor_table
    rows = [Closeness("s", "supported", "q1", 0.62, True), Closeness("s", "supported", "q2", 0.38, False),
            Closeness("s", "near-miss", "n1", 0.41, False), Closeness("s", "unrelated", "u1", 0.12, False)]
    lines = floor_table(rows, current=0.5, floors=(0.35, 0.4)).splitlines()
    assert "| 0.35 | 2/2 | 1/1 | 0/1 |" in lines
    assert "| 0.40 | 1/2 | 1/1 | 0/1 |" in lines
    assert "| 0.50 (current) | 1/2 | 0/1 | 0/1 |" in lines
    assert lines[-1].startswith("Supported questions whose key sentence retrieval did not bring: 1/2")


def test_the_relevance_command_measures_a_set_as_the_tutor_does(tmp_path):
    import pymupdf

    from citetutor.devtools.evaluation import Case, QuestionSet
    from citetutor.devtools.relevance import measure_set
    from tests.helpers import make_pipeline
    pdf = tmp_path / "notes.pdf"
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Entropy of melting is positive because heat flows in.")
    doc.new_page().insert_text((72, 72), "A monopolist sets marginal revenue equal to marginal cost.")
    doc.save(pdf)
    qset = QuestionSet("notes", pdf, "Notes", (
        Case("Why is the entropy of melting positive?", (1,), must=("positive",)),
        Case("Why is the entropy of melting positive?", (2,), must=("positive",)),
        Case("Write a poem about cats.", refuse="unrelated")))
    rows = measure_set(make_pipeline(tmp_path / "lib"), qset)
    assert [r.key_in_evidence for r in rows] == [True, False, False]
    assert rows[0].cosine > rows[2].cosine


def test_a_set_whose_pdf_is_read_as_a_scan_is_refused_not_scored_as_refusals(tmp_path):
    from citetutor.devtools.evaluation import QuestionSet, ingest_set
    from tests.corpus import HANDWRITTEN, corpus_file
    from tests.helpers import make_pipeline
    qset = QuestionSet("scan", corpus_file(*HANDWRITTEN), "E&M", (Case("What is energy?", (1,), must=("work",)),))
    with pytest.raises(InputError, match="read as a scan"):
        ingest_set(make_pipeline(tmp_path), qset)


def test_a_deck_with_a_few_scanned_pages_is_reviewed_as_a_learner_would_then_runs(tmp_path):
    """Slides that show a paper's page as a picture are held for review; the eval accepts the
    OCR draft of each such page, as a learner on Scan Review would, and the deck opens."""
    import pymupdf

    from citetutor.devtools.evaluation import QuestionSet, ingest_set
    from tests.corpus import HANDWRITTEN, corpus_file
    from tests.fakes import ScriptedOcr
    from tests.helpers import make_pipeline
    deck = tmp_path / "deck.pdf"
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "The basic reproduction number is the average number of secondary cases.")
    scanned = pymupdf.open(corpus_file(*HANDWRITTEN))
    doc.insert_pdf(scanned, from_page=0, to_page=0)
    doc.save(deck)
    pipe = make_pipeline(tmp_path / "lib", ocr=ScriptedOcr("A contribution to the theory of epidemics."))
    subject = ingest_set(pipe, QuestionSet("deck", deck, "Epi", (Case("What is R0?", (1,), must=("secondary",)),)))
    [listed] = pipe.documents(subject)
    assert listed["status"] == DocStatus.READY
    assert [p["review_state"] for p in pipe.scan_pages(listed["id"])] == ["approved"]
