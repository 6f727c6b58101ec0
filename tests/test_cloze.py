"""Blanks and distractors made by code from a page range's own sentences."""

from citetutor.cloze import BLANK, blank_in, distractors, range_terms
from citetutor.quiz import QuizResult, _first_fast

RANGE = [
    "Natural selection acts on heritable variation within a population of organisms.",
    "Heritable variation is the raw material of natural selection in every population.",
    "Sources of Monopoly Power Economies of scale lower the average cost of large firms.",
    "Sources of Monopoly Power Licensing lets governments create a monopoly by law.",
    "Sources of Monopoly Power Patents give inventors exclusive rights for 20 years.",
    "Angular Velocity We choose a cylindrical coordinate system for every rotating body.",
    "ALCOA owned 90% of the global bauxite supply in the early years of the century.",
    "12 / 38 A firm with market power sets the price above marginal cost.",
    "Adaptation by natural selection takes many generations of heritable variation.",
    "A market share of 90% made the bauxite supplier a monopoly for decades.",
]


def test_the_blank_is_a_recurring_term_of_the_sentence_and_every_occurrence_is_blanked():
    terms = range_terms(RANGE)
    card = blank_in(RANGE[1], terms, set())
    assert card.key.lower() in ("heritable variation", "natural selection")
    assert card.key.lower() not in card.stem.lower() and card.stem.count(BLANK) >= 1
    assert card.stem.replace(BLANK, card.key) == RANGE[1]


def test_a_word_the_range_names_in_the_plural_recurs_when_nothing_else_in_its_sentence_does():
    # The arrays slides: "element" once, "elements" in two other sentences.
    slides = ["Elements in A are referenced by their index.",
              "There is no other way to access elements in an array.",
              "Array indexing is zero-based, meaning the first element is found in position zero."]
    assert blank_in(slides[2], range_terms(slides), set()).key == "element"
    assert blank_in(slides[2], range_terms(slides), {"element"}) is None


def test_a_value_is_blanked_only_when_the_range_states_it_twice_and_never_a_slide_counter():
    terms = range_terms(RANGE)
    assert blank_in(RANGE[6], terms, set()).key == "90%"
    card = blank_in(RANGE[7], terms, set())
    assert card is None or card.key not in ("12", "38")
    once = blank_in(RANGE[4], terms, set())
    assert once is None or once.key != "20", "20 years is stated once: only its own sentence knows it"


def test_slide_titles_and_run_in_headings_are_never_blanked():
    terms = range_terms(RANGE)
    for sentence in RANGE[2:6]:
        card = blank_in(sentence, terms, set())
        if card is not None:
            assert card.key.lower() not in ("sources", "monopoly power", "angular velocity", "angular")


def test_a_chapter_title_run_into_its_epigraph_is_not_blanked():
    """A card the reader judged bad: "Chapter 6 Central _____ And the seasons they go round"."""
    sentence = "Chapter 6 Central Motion And the seasons they go round and round in the circle game"
    terms = range_terms([sentence, "Central motion is motion about a centre.", "Circular motion is central motion."])
    card = blank_in(sentence, terms, set())
    assert card is None or card.key.lower() not in ("motion", "central motion", "central")


def test_keys_already_used_are_not_blanked_again():
    terms = range_terms(RANGE)
    first = blank_in(RANGE[0], terms, set())
    second = blank_in(RANGE[0], terms, {first.key.lower()})
    assert second is None or second.key.lower() != first.key.lower()


def test_distractors_are_range_terms_of_the_same_shape_and_none_is_a_form_of_the_key():
    terms = range_terms(RANGE * 2)
    card = blank_in(RANGE[0], terms, set())
    wrong = distractors(card, terms, seed="s")
    assert len(wrong) == 3 and len(set(wrong)) == 3
    assert all(len(w.split()) == len(card.key.split()) for w in wrong)
    assert not any(w.lower()[:5] in card.key.lower() for w in wrong)
    assert distractors(card, terms, seed="s") == wrong, "the same card gets the same options"
    value = blank_in(RANGE[6], terms, set())
    assert distractors(value, terms, seed="s") == [], "too few other values: no multiple choice"


def test_only_multiple_choice_is_tried_until_a_first_card_is_kept():
    plan = [("short", 1), ("cloze", 2), ("mcq", 3), ("short", 4), ("mcq", 5)]
    result, seen = QuizResult(), []
    for kind, focus in _first_fast(plan, result, "mcq"):
        seen.append((kind, focus))
        if focus == 3:
            result.items.append("kept")
    assert seen == [("mcq", 3), ("short", 1), ("cloze", 2), ("short", 4), ("mcq", 5)]
