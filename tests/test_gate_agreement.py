"""Blind agreement: two answers agree on what they add to the question, not on restating it."""

import numpy as np

from citetutor.gate import same_meaning
from tests.fakes import HashEmbedder

QUESTION = "In which direction does the velocity point for an object moving in a circle?"
BLIND = "The direction of the velocity is always tangent to the circle."


def test_an_answer_that_only_restates_the_question_does_not_agree():
    # A real case from the MIT eval: the drafter borrowed the angular velocity's direction.
    wrong = "The velocity points in the +k-direction for an object moving in a circle."
    assert not same_meaning(HashEmbedder(), BLIND, wrong, QUESTION)
    assert same_meaning(HashEmbedder(), BLIND, wrong), "without the question, shared words decide"


def test_an_answer_with_what_the_blind_solver_added_agrees():
    right = "For an object moving in a circle the velocity is tangent to the circle."
    assert same_meaning(HashEmbedder(), BLIND, right, QUESTION)


def test_a_near_paraphrase_in_other_words_agrees_by_meaning():
    class Fixed:
        def embed(self, texts):
            return np.array([[1.0, 0.0], [0.9, 0.436]])  # cosine 0.9
    assert same_meaning(Fixed(), "It goes round the loop.", "Circles about the centre.", QUESTION)


def test_the_topic_check_ignores_how_a_question_is_phrased():
    # A real hint question from the slides eval: "could" and "out" are not what it is about.
    import pytest

    from citetutor.gate import Rejected
    from citetutor.tutor import _guard_topic
    question = "How could I build a dynamic array out of a static array?"
    _guard_topic(question, "1) Create a static array with an initial capacity. 3) If adding another "
                           "element will exceed the capacity, then create a new static array with "
                           "twice the capacity and copy the original elements into it.")
    with pytest.raises(Rejected):
        _guard_topic(question, "Elements in A are referenced by their index.")
