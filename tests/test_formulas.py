"""A formula a claim writes out must be the one its cited sentence writes, not just its digits."""

import pytest

from citetutor.formulas import formulas_in, unstated_formulas

# The text layer of a slide giving R = 3^k - 2^(k+1) + 1: superscripts flattened, a minus sign.
BRUTE_FORCE = ("However, the total number of possible rules that must be evaluated is given by "
               "R = 3k −2k+1 + 1, (10.9) where k is the number of item categories.")
LIFT = ("lift({milk, diapers} ⇒{beer}) = n × count({milk, diapers, beer}) count({milk, diapers}) × "
        "count({beer}) = 5 × 2 3 × 3 = 10 9 .")


def test_a_formula_with_a_changed_term_is_not_stated_though_every_digit_is():
    claim = "Brute force must evaluate R = 3k - 2k^2 + 1 rules, where k is the number of item categories."
    assert unstated_formulas(claim, BRUTE_FORCE) == ["R = 3k - 2k^2 + 1"]


@pytest.mark.parametrize("claim", [
    "Brute force must evaluate R = 3^k - 2^(k+1) + 1 rules.",  # the superscripts written out
    "It must evaluate R = 3k − 2k+1 + 1 rules.",  # as the text layer reads
])
def test_the_same_formula_written_with_or_without_the_marks_a_text_layer_drops_is_stated(claim):
    assert unstated_formulas(claim, BRUTE_FORCE) == []


def test_fractions_and_times_signs_are_compared_as_the_page_flattens_them():
    assert unstated_formulas("The lift is 5 x 2 / (3 x 3) = 10/9.", LIFT) == []
    assert unstated_formulas("The lift is 5 x 2 / (3 x 3) = 10/8.", LIFT) == ["5 x 2 / (3 x 3) = 10/8"]


# The AI-for-medicine notes' text layer: each formula on lines of its own, the fraction bar lost.
SURVIVAL = ("We can re-write the survival and hazard functions as below S(t) = 1 −F(t) λ(t) = f(t) S(t)")


def test_a_formula_of_functions_is_compared_whole():
    """"S(t) = 1 - F(t) f(t) λ(t)" was shown for turning the cumulative hazard back into the
    survival curve: read as "= 1 -", its symbols strung together from two formulas went unchecked."""
    assert unstated_formulas("You can use S(t) = 1 - F(t) f(t) λ(t)", SURVIVAL) == ["S(t) = 1 - F(t) f(t) λ(t)"]
    assert unstated_formulas("The survival function is S(t) = 1 - F(t).", SURVIVAL) == []
    assert unstated_formulas("The hazard is λ(t) = f(t) / S(t).", SURVIVAL) == []


@pytest.mark.parametrize("prose", [
    "The confidence of the rule is 2/3.",
    "A is 1/4 of the items.",
    "Cohen's d of 0.5 is a medium effect.",
    "X and Y occur together in 2 of 5 transactions.",
])
def test_prose_with_numbers_writes_no_formula(prose):
    assert formulas_in(prose) == []


def test_the_tutor_refuses_a_claim_whose_formula_its_sentence_does_not_write():
    from citetutor.checks import Rejected, guard
    from citetutor.schemas import Claim, Draft
    from tests.helpers import numbered
    evidence = numbered(BRUTE_FORCE, "For ten item categories, R = 57002.", cosine=0.7)
    question = "How many rules would brute force have to check?"
    changed = Draft(claims=[Claim(text="It evaluates R = 3k - 2k^2 + 1 rules for k item categories.",
                                  sentences=[1])])
    with pytest.raises(Rejected) as refused:
        guard(question, changed, evidence, 0.4, 0.45, "explain")
    assert refused.value.code == "number_not_in_evidence" and "3k - 2k^2" in refused.value.detail
    stated = Draft(claims=[Claim(text="It evaluates R = 3^k - 2^(k+1) + 1 rules for k item categories.",
                                 sentences=[1])])
    guard(question, stated, evidence, 0.4, 0.45, "explain")
