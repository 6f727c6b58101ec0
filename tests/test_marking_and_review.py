"""Marking a learner's answer by meaning, not by a shared word, and the FSRS review deck."""

from datetime import timedelta

import pytest

from citetutor import review
from citetutor.marking import mark_short, same_term
from citetutor.schemas import QuizBlindAnswer
from tests.corpus import MIT, corpus_file
from tests.fakes import ContraryJudge, OverlapJudge
from tests.helpers import make_pipeline
from tests.test_quiz_gate import knowing_solver

QUOTE = "This type of motion is called central motion: the force points towards a fixed centre."


@pytest.mark.parametrize("answer", ["Central motion", "central motions", "centrl motion", "the central motion"])
def test_the_key_term_is_right_with_case_plural_article_and_a_slip(answer):
    assert same_term(answer, "Central motion")


@pytest.mark.parametrize("answer", ["Projectile motion", "Circular motion", "motion", "central",
                                    "central motion is not it at all no"])
def test_answers_sharing_a_word_with_the_key_are_not_the_key(answer):
    assert not same_term(answer, "Central motion")


def test_values_are_compared_as_numbers():
    assert same_term("90%", "90%") and same_term("1,000", "1000") and same_term("0.50", "0.5")
    assert not same_term("9%", "90%") and not same_term("19", "90")


def test_a_short_answer_in_other_words_goes_to_the_judge_and_a_wrong_one_is_marked_wrong():
    judge = OverlapJudge()
    assert mark_short(judge, "What is this motion called?", "central motion", [QUOTE], "Central motion").right
    assert not judge.calls, "the key's own term needs no judge"
    right = mark_short(judge, "Which way does the force point?", "towards a fixed centre", [QUOTE],
                       "it points at the fixed centre")
    assert right.right and judge.calls
    for wrong in ("Projectile motion", "Circular motion", "away from the centre"):
        assert not mark_short(ContraryJudge(), "What is this motion called?", "central motion", [QUOTE],
                              wrong).right, wrong
    assert not mark_short(judge, "What is this motion called?", "central motion", [QUOTE], " ").right


def test_check_answer_marks_a_cloze_by_its_term(tmp_path):
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("Mechanics")
    doc = pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", subject)
    pipe.models.judge.enqueue(knowing_solver(pipe))
    item = pipe.quiz(doc.doc_id, 1, 4, count=1, kinds="cloze").items[0]
    assert pipe.check_answer(item, item.key.upper()).right
    assert not pipe.check_answer(item, "photosynthesis").right


def test_kept_questions_join_the_deck_and_a_review_moves_their_schedule(tmp_path):
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("Mechanics")
    doc = pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", subject)
    pipe.models.judge.enqueue(knowing_solver(pipe), knowing_solver(pipe))
    items = pipe.quiz(doc.doc_id, 1, 4, count=2, kinds="cloze").items
    assert pipe.deck_counts(subject) == (2, 2)
    due = pipe.due_cards(subject)
    assert {d.item.id for d in due} == {i.id for i in items}
    assert due[0].item.candidate.stem == items[0].candidate.stem and due[0].item.quotes == items[0].quotes
    right_next = pipe.record_review(items[0].id, right=True)
    wrong_next = pipe.record_review(items[1].id, right=False)
    assert right_next > review.now() and wrong_next > review.now()
    assert pipe.deck_counts(subject) == (0, 2), "both answered cards wait for their next review"
    later = review.now() + timedelta(days=30)
    assert len(review.due(pipe.store, subject, later)) == 2, "and come back"
    # Reviewing again from its new state spaces the right one further out.
    again = review.record(pipe.store, items[0].id, True, right_next + timedelta(minutes=1))
    assert again - right_next > right_next - review.now()


def test_deleting_a_document_removes_its_cards(tmp_path):
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("Mechanics")
    doc = pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", subject)
    pipe.models.judge.enqueue(QuizBlindAnswer(answer_text="x", sentences=[1]), knowing_solver(pipe))
    pipe.quiz(doc.doc_id, 1, 4, count=1, kinds="cloze")
    assert pipe.deck_counts(subject)[1] == 1
    pipe.delete_document(doc.doc_id)
    assert pipe.deck_counts(subject) == (0, 0)


def test_the_same_card_kept_by_two_quizzes_is_in_the_deck_once(tmp_path):
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("Mechanics")
    doc = pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", subject)
    pipe.models.judge.enqueue(knowing_solver(pipe), knowing_solver(pipe))
    first = pipe.quiz(doc.doc_id, 1, 4, count=1, kinds="cloze").items[0]
    second = pipe.quiz(doc.doc_id, 1, 4, count=1, kinds="cloze").items[0]
    assert first.candidate.stem == second.candidate.stem and first.id != second.id
    assert pipe.deck_counts(subject) == (1, 1)
