"""Short-answer cards code makes from a sentence that defines a term: which sentences define
one (lines from the course slides the evals use), and what is asked and keyed."""

import pytest

from citetutor.definitions import definition_in, recurs


@pytest.mark.parametrize("sentence, term, definition", [
    ("Result Market power: A monopolist has the ability to influence market prices.",
     "market power", "A monopolist has the ability to influence market prices"),
    ("Licensing requirement = legal barrier to entry.", "licensing requirement", "legal barrier to entry"),
    ("A monopolist is a price maker. 6 / 38", "monopolist", "a price maker"),
    ("Marginal Revenue Price effect: As price decreases, existing customers pay less.",
     "price effect", "As price decreases, existing customers pay less"),
    ("– SSSS: four study presentations (i.e., four times reading the passage)",
     "SSSS", "four study presentations (i.e., four times reading the passage)"),
    ("Any radial inward acceleration is called centripetal acceleration.",
     "centripetal acceleration", "Any radial inward acceleration"),
    ("Deﬁnitions II Unit: A physical object at a particular point in time Treatment: An intervention",
     "unit", "A physical object at a particular point in time"),
    ("(unit in the last place) ●ULP: the value the least significant digit represents if it is 1",
     "ULP", "the value the least significant digit represents if it is 1"),
])
def test_a_defined_term_is_asked_for_and_keyed_by_the_notes_words(sentence, term, definition):
    found = definition_in(sentence)
    assert found is not None and (found.term, found.definition) == (term, definition)
    assert found.stem == f"Which term means “{definition}”?"


@pytest.mark.parametrize("sentence", [
    "Tendency for consolidation over time. Examples: Natural monopolies.",
    "Rationale: Minimize negative externalities or exploit economies of scale.",
    "Q: Is Google a monopolist? Why or why not?",
    "The Generation Effect READ Conditions: Synonym Unhappy – SAD Rhyme Lad – SAD",
    "Output effect = price effect HH⇒ price cut does not change revenue.",
    "Variable encoding: e.g., different encoding contexts; different ways of elaborating",
    "Bio 1M: Evolution by natural selection (complete) 1 Evolution",
    "Ex.: Average difference in military support among those thinking of Hitler versus not",
    "In essence: some non-zero effect sizes are not detectable by a study of a given sample size.",
    "The third law of thermodynamics states: The entropy of all perfect crystals is zero at zero kelvin.",
    "Circular Motion: Velocity and Angular Velocity We begin our description of circular motion.",
    "Bug: race condition: the result depends on the order of execution",
    "DoP effect: Hyde & Jenkins (1968) Subjects performed one of four tasks with a list of 24 words",
    "Entropy is 0 at T = 0.",
])
def test_labels_asides_formulas_and_citations_are_not_definitions(sentence):
    assert definition_in(sentence) is None


def test_a_term_is_asked_for_only_when_the_range_names_it_again():
    sentences = ["Canvas: New practice problems and discussion worksheets for the week.",
                 "Price effect: As price decreases, existing customers pay less.",
                 "Output effect > price effect, so a price cut increases revenue."]
    assert definition_in(sentences[0]) is not None and not recurs("canvas", sentences)
    assert recurs("price effect", sentences)
