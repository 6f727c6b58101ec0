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
