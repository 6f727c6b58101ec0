"""Blind agreement: two answers agree on what they add to the question, not on restating it."""

import numpy as np
import pytest

from citetutor.checks import recited, same_meaning, states_answer
from citetutor.schemas import Claim, Draft
from tests.fakes import HashEmbedder
from tests.helpers import numbered

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


class _Close:
    """An embedder that puts any two texts at cosine 0.9, close enough to agree by meaning."""

    def embed(self, texts):
        return np.array([[1.0, 0.0], [0.9, 0.436]])


def test_a_near_paraphrase_in_other_words_agrees_by_meaning():
    assert same_meaning(_Close(), "It goes round the loop.", "Circles about the centre.", QUESTION)


def test_the_topic_check_ignores_how_a_question_is_phrased():
    # A real hint question from the slides eval: "could" and "out" are not what it is about.
    import pytest

    from citetutor.checks import Rejected, _guard_topic
    question = "How could I build a dynamic array out of a static array?"
    _guard_topic(question, numbered("1) Create a static array with an initial capacity. 3) If adding "
                                     "another element will exceed the capacity, then create a new "
                                     "static array with twice the capacity and copy the original "
                                     "elements into it."), 0.45)
    with pytest.raises(Rejected):
        _guard_topic(question, numbered("Elements in A are referenced by their index."), 0.45)


def test_a_sentence_close_in_meaning_is_on_topic_whatever_words_it_uses():
    import pytest

    from citetutor.checks import Rejected, _guard_topic
    question = "Why does it speed up?"
    close = numbered("The object accelerates because a net force acts on it.", cosine=0.62)
    _guard_topic(question, close, 0.45)  # no shared word: "speed up" is the notes' "accelerates"
    with pytest.raises(Rejected):
        _guard_topic(question, numbered("The object accelerates.", cosine=0.2), 0.45)


# The MIT eval's real case: the blind solver chose S1-S3 and answered "tangent"; the drafter,
# told "radius" was unfounded, cited S5 for it and kept S1 and S3.
VELOCITY = numbered(
    "In circular motion the direction of velocity and acceleration are not the same.",
    "Recall that the direction of the velocity is always tangent to the circle.",
    "Figure 6.4 Direction of the velocity for circular motion.",
    "The direction of the change of the velocity is towards the center of the circle.",
    "A particle is moving in a circle of radius R.")


def test_a_shared_citation_is_not_enough_the_judge_still_reads_the_claim():
    from citetutor.checks import agrees_with_blind
    from citetutor.meaning import judge_claim
    from citetutor.schemas import BlindSolve
    from tests.fakes import OverlapJudge
    blind = BlindSolve(answer="tangent to the circle", sentences=[1, 3])
    claim = "The velocity points in the direction of the radius of the circle."
    agrees_with_blind(HashEmbedder(), QUESTION, Draft(claims=[Claim(text=claim, sentences=[1, 3, 5])]),
                      blind)  # it rests on sentences the solver chose...
    judge = OverlapJudge(wrong=lambda s: "radius" in s)
    verdict = judge_claim(judge, VELOCITY, QUESTION, claim, [1, 3, 5])
    # ... but nothing for code to flip, so the judge is asked whether they state it at all.
    assert not verdict.holds and judge.calls and "Statement: " + claim in judge.calls[0]


def test_a_run_of_numbers_is_no_choice_so_only_the_same_answer_agrees():
    # The psychology eval's wrong answer: asked why thinking about meaning helps memory, the
    # drafter answered from the slide on variable encoding, and the 0.5B's S1-S3 let it pass.
    from citetutor.checks import agrees_with_blind
    from citetutor.schemas import BlindSolve, Claim, Draft
    radius = Draft(claims=[Claim(text="The velocity points along the radius of the circle.", sentences=[1, 2])])
    # Undecided by code: the meaning judge decides (tutor.verify_draft).
    assert not agrees_with_blind(HashEmbedder(), QUESTION, radius, BlindSolve(answer="tangent", sentences=[1, 2, 3]))
    assert agrees_with_blind(HashEmbedder(), QUESTION, radius, BlindSolve(answer="tangent", sentences=[2]))
    tangent = Draft(claims=[Claim(text="The velocity is tangent to the circle.", sentences=[2])])
    assert agrees_with_blind(HashEmbedder(), QUESTION, tangent, BlindSolve(answer="tangent", sentences=[1, 2, 3]))


@pytest.mark.parametrize("claim", ["S1", "[S2].", "S1, S3"])
def test_a_claim_that_names_a_sentence_instead_of_stating_it_is_refused(claim):
    from citetutor.checks import Rejected, guard
    from citetutor.schemas import Claim, Draft
    evidence = numbered("Cohen's d: small 0.2, medium 0.5, large 0.8.", "Effects are mostly small.",
                         "Power is the true positive rate.", cosine=0.7)
    question = "What Cohen's d counts as a medium-sized effect?"
    with pytest.raises(Rejected) as refused:
        guard(question, Draft(claims=[Claim(text=claim, sentences=[1])]), evidence, 0.6, 0.45, "explain")
    assert refused.value.code == "uncovered_claim" and "names a sentence" in refused.value.detail
    guard(question, Draft(claims=[Claim(text="A medium effect is 0.5.", sentences=[1])]), evidence, 0.6, 0.45,
          "explain")


def test_answers_holding_opposite_words_disagree_whatever_they_share():
    import pytest

    from citetutor.checks import Rejected, agrees_with_blind
    from citetutor.schemas import BlindSolve, Claim, Draft
    blind = BlindSolve(answer="The entropy of transition is positive.", sentences=[3])
    flipped = Draft(claims=[Claim(text="The entropy of transition is negative.", sentences=[3])])
    with pytest.raises(Rejected, match="blind_disagrees"):
        agrees_with_blind(HashEmbedder(), "Why is melting entropy positive?", flipped, blind)


def test_yes_answers_a_yes_no_question_but_not_needs_its_sentence():
    from citetutor.checks import covers, new_words
    evidence = numbered("Array indexing is zero-based, meaning the first element is found in position zero.")
    question = "Is array indexing zero-based?"
    assert covers(new_words("Yes, array indexing is zero-based.", question), [1], evidence, 0.6)
    assert not covers(new_words("Yes, array indexing is not zero-based.", question), [1], evidence, 0.6)


def test_a_refusal_says_why_in_words_naming_the_pages_tried():
    from citetutor.tutor import Citation, TutorAnswer, refusal_reason
    nearby = [Citation("", "d", "Notes", p, "", "[]") for p in (3, 5)]

    def reason(*codes: str) -> str:
        return refusal_reason(TutorAnswer("refused", "", reasons=list(codes), nearby=nearby))
    assert reason("low_relevance") == ("Your notes don't seem to cover this question "
                                       "(the closest passages, pp. 3 and 5, are about something else).")
    assert reason("blind_unanswerable").startswith("The verifier read pp. 3 and 5")
    assert reason("deadline").startswith("Checking took longer than the time limit")
    # The attempts ended on a repeat: the rejection it repeated is the reason, not the repeat.
    assert reason("uncovered_claim", "repeated_draft") == reason("uncovered_claim")
    assert reason("uncovered_claim").startswith("Drafts could not be verified against pp. 3 and 5")


def test_a_sentence_states_an_answer_when_it_holds_what_the_answer_adds_to_the_question():
    question = "How many generations did the mouse tail experiment run before they measured the tails again?"
    sentence = "Measure natural tail length at the beginning of the experiment, and after 100 generations."
    assert states_answer(sentence, "100", question)
    assert not states_answer(sentence, "50", question)
    assert not states_answer(sentence, "100 years", question), "two new words, one held"
    # An answer that only restates the question is stated by every sentence that repeats it: by none.
    assert not states_answer("Adaptation is genetic change.", "adaptation",
                             "What's the difference between adapting and acclimating?")
    long_answer = "Heritable variation in traits and selection based on these traits"
    assert states_answer("Evolution will occur if there is: heritable variation in traits; selection "
                         "(differential reproductive success) based on these traits",
                         long_answer, "What needs to be true for natural selection to happen?")


def test_a_claim_another_sentence_holds_far_better_than_its_own_is_mis_cited():
    from citetutor.checks import Rejected, guard
    from citetutor.schemas import Claim, Draft
    # The psychology eval's shown hint: S1 is slide 41 of a build, S2 slide 48 that completes it.
    heads = "Stimulus Sampling Theory & Spacing Massed Practice Spaced Practice"
    evidence = numbered(heads, heads + " More context features are bound to the item following "
                         "spaced practice.", cosine=0.7)
    question = "Hint please: why would spacing practice out give me more ways to remember something later?"
    claim = heads + " More context features are bound to the item following spaced practice."
    with pytest.raises(Rejected) as refused:
        guard(question, Draft(claims=[Claim(text=claim, sentences=[1])]), evidence, 0.4, 0.45, "hint")
    assert refused.value.code == "uncovered_claim" and "is what S2 says" in refused.value.detail
    # Cited where its words are, it passes the code checks.
    assert guard(question, Draft(claims=[Claim(text=claim, sentences=[1, 2])]), evidence, 0.4, 0.45, "hint") == []


class ScriptedVectors:
    """An embedder that gives each text the vector a test chose for it."""

    def __init__(self, vectors: dict[str, list[float]]):
        self.vectors = vectors

    def embed(self, texts):
        rows = np.array([self.vectors[t] for t in texts], dtype=np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


TAILS_QUESTION = "How many generations did the mouse tail experiment run before they measured the tails again?"
ACTIVITY = "Activity: what would be the key points of a mouse tail experiment like this one?"
MEASURE = "Measure natural tail length at the beginning of the experiment, and after 100 generations."


def test_a_claim_whose_added_words_its_sentence_holds_is_not_refused_as_closer_to_another():
    from citetutor.checks import guard
    # The flip test's right first draft: it restates the question, so MiniLM put it closer to
    # the activity slide that names the experiment than to the sentence that holds its 100.
    claim = "The mouse tail experiment ran for 100 generations before they measured the tails again."
    embedder = ScriptedVectors({claim: [1, 0], ACTIVITY: [0.9, 0.44], MEASURE: [0.5, 0.87]})
    evidence = numbered(ACTIVITY, MEASURE, cosine=0.6)
    draft = Draft(claims=[Claim(text=claim, sentences=[2])])
    assert guard(TAILS_QUESTION, draft, evidence, 0.4, 0.45, "explain", embedder) == []


def test_a_claim_with_words_its_sentence_lacks_is_refused_when_closer_to_another_sentence():
    from citetutor.checks import Rejected, guard
    chop = "Every generation stretch or chop off their poor little tails."
    claim = "The natural tail length was measured after 100 generations of chopping."
    embedder = ScriptedVectors({claim: [1, 0], chop: [0.9, 0.44], MEASURE: [0.5, 0.87]})
    evidence = numbered(chop, MEASURE, cosine=0.6)
    with pytest.raises(Rejected) as refused:
        guard(TAILS_QUESTION, Draft(claims=[Claim(text=claim, sentences=[2])]), evidence, 0.4, 0.45,
              "explain", embedder)
    assert refused.value.code == "uncovered_claim" and "is what S1 says" in refused.value.detail



DIGITS_QUESTION = "Roughly how many decimal digits can a double hold?"
BINARY = "For example, 0.1 decimal is 0.00011 binary; an exact 1 / 10 does not exist in binary."
FORMATS = ("Very small and very large numbers in the same expression. Double precision: 64 bits; "
           "≈15.95 decimal digits. 53-bit mantissa, 11-bit exponent – scientific applications.")


def test_a_claim_is_not_refused_as_closer_to_a_sentence_holding_none_of_its_words():
    from citetutor.checks import guard
    # The flip test's right first draft: MiniLM put it closer to the short sentence on 0.1 in
    # binary than to the long slide of bullets that states its 15.95 (written there as "≈").
    claim = "A double can hold approximately 15.95 decimal digits."
    embedder = ScriptedVectors({claim: [1, 0], BINARY: [0.9, 0.44], FORMATS: [0.5, 0.87]})
    evidence = numbered(BINARY, FORMATS, cosine=0.6)
    draft = Draft(claims=[Claim(text=claim, sentences=[2])])
    # "approximately" is not in the sentence, so the claim goes to the meaning judge.
    assert guard(DIGITS_QUESTION, draft, evidence, 0.4, 0.45, "explain", embedder) == [1]


@pytest.mark.parametrize("form, verb", [("ran", "run"), ("paid", "pay"), ("grew", "growing"),
                                        ("taught", "teach"), ("understood", "understand")])
def test_irregular_forms_meet_their_verb(form, verb):
    from citetutor.evidence import stem
    assert stem(form) == stem(verb)


def test_forms_that_are_other_words_stay_as_written():
    from citetutor.evidence import stem
    assert stem("left") != stem("leave") and stem("fed") != stem("feed") and stem("found") != stem("find")


def test_a_number_its_sentences_lack_is_refused_naming_the_sentence_that_states_it():
    from citetutor.checks import Rejected, guard
    from citetutor.schemas import Claim, Draft
    evidence = numbered("Roediger & Karpicke (2006) gave subjects a text passage to learn.",
                        "Test'after'12week'delay • Studying what you already know is ineffective.", cosine=0.6)
    question = "How long after learning did Roediger and Karpicke test people?"
    with pytest.raises(Rejected) as refused:
        later = Claim(text="Subjects learned a text passage, tested 12 weeks later.", sentences=[1])
        guard(question, Draft(claims=[later]), evidence, 0.4, 0.45, "explain")
    assert refused.value.code == "number_not_in_evidence"
    assert refused.value.detail.startswith("Claim 1 states 12. S2 says:"), "the drafter learns where 12 is"


@pytest.mark.parametrize("written, claim", [
    ("S3 states that some effects are not detectable.", "Some effects are not detectable."),
    ("S1 says: 'Small: 0.2; Medium: 0.5'", "Small: 0.2; Medium: 0.5"),
    ("S1 and S2 show that a medium effect is 0.5 [S2].", "A medium effect is 0.5."),
    ("A medium effect is 0.5 (S1).", "A medium effect is 0.5."),
    ("S1", "S1"),  # nothing but a label: left for the check that refuses it
    ("Haiti had to pay about 150 million Francs, as stated in S1.", "Haiti had to pay about 150 million Francs."),
    ("According to S2, a medium effect is 0.5.", "A medium effect is 0.5."),
    ("A medium effect is 0.5 as shown in S1 and S3", "A medium effect is 0.5"),
    # Pointers at the evidence as a whole, not by label: no fact, and their words are no cover.
    ("According to the evidence, LiCoO2 stores 274 mAh/g.", "LiCoO2 stores 274 mAh/g."),
    ("The notes state that the mean number was 17.", "The mean number was 17."),
    ("Meaning helps memory, as evidenced by the Generation Effect.", "Meaning helps memory."),
    ("Yes, experts thought a vaccine could be made, as evidenced by the statement 'Experts wrote "
     "that a vaccine could never be made.'", "Yes, experts thought a vaccine could be made"),
    ("A medium effect is 0.5, as stated in the notes.", "A medium effect is 0.5."),
    ("Evidence of selection is shown by the tails.", "Evidence of selection is shown by the tails."),
    ("As evidenced by.", "As evidenced by."),  # nothing else: left for the checks to refuse
])
def test_the_drafters_references_to_sentence_labels_are_taken_out_of_its_claims(written, claim):
    from citetutor.checks import unlabelled
    from citetutor.schemas import Claim, Draft
    assert unlabelled(Draft(claims=[Claim(text=written, sentences=[1])])).claims[0].text == claim


def test_a_claim_copied_word_for_word_is_verbatim_unless_cut_from_behind_a_negation():
    from citetutor.checks import verbatim
    from citetutor.schemas import Claim
    evidence = numbered("Circular Logic: No independent measure of depth other than subsequent memory performance.",
                        "Intentional encoding no better than incidental deep encoding for later memory.")
    assert verbatim(Claim(text="No independent measure of depth other than subsequent memory performance",
                          sentences=[1]), evidence)
    assert not verbatim(Claim(text="independent measure of depth other than subsequent memory performance",
                              sentences=[1]), evidence), "the sentence says there is none"
    assert not verbatim(Claim(text="better than incidental deep encoding for later memory", sentences=[2]), evidence)
    assert verbatim(Claim(text="Intentional encoding no better than incidental deep encoding", sentences=[2]), evidence)
    assert not verbatim(Claim(text="No independent measure of depth other than subsequent memory",
                              sentences=[2]), evidence), "word for word, but of an uncited sentence"
    assert not verbatim(Claim(text="No independent measure of depth", sentences=[1]), evidence), "too short"


def test_a_span_cut_from_behind_a_typographic_negation_is_not_verbatim():
    from citetutor.checks import verbatim
    from citetutor.schemas import Claim
    evidence = numbered("Starvation doesn’t leave the whole system stuck while other threads progress.")
    assert not verbatim(Claim(text="leave the whole system stuck while other threads progress", sentences=[1]),
                        evidence), "the sentence says it does not"
    assert verbatim(Claim(text="Starvation doesn’t leave the whole system stuck", sentences=[1]), evidence)


@pytest.mark.parametrize("answer, title", [
    ("Monopoly Conditions", True), ("Repetition and Spacing", True), ("First Survey Experiment", True),
    ("Yes", False), ("No", False), ("The variance increases.", False), ("S = k ln W", False),
    ("100 generations", False),
])
def test_a_blind_answer_that_is_a_slide_title_abstains(answer, title):
    from citetutor.checks import abstains
    assert abstains(answer) is title


def test_a_magnitude_in_the_plural_is_the_same_number():
    """Notes that wrote "150 millions Francs" refused a right "150 million Francs"."""
    from citetutor.checks import Rejected, guard
    from citetutor.schemas import Claim, Draft
    evidence = numbered("France imposes a large public debt on Haiti as the price for their freedom "
                        "(150 millions Francs or about 2% French GDP of the time)", cosine=0.6)
    question = "How much did Haiti have to pay France to get its independence accepted?"
    right = Claim(text="Haiti had to pay France 150 million Francs for its freedom.", sentences=[1])
    assert guard(question, Draft(claims=[right]), evidence, 0.4, 0.45, "explain") == []
    with pytest.raises(Rejected) as refused:
        wrong = Claim(text="Haiti had to pay France 150 billion Francs for its freedom.", sentences=[1])
        guard(question, Draft(claims=[wrong]), evidence, 0.4, 0.45, "explain")
    assert refused.value.code == "number_not_in_evidence"


def test_a_count_of_the_claims_own_list_from_one_sentence_needs_no_sentence_stating_it():
    """Asked how many kinds of monism there are, a right "two kinds of monism: materialism and
    idealism" was refused three times: the notes list the two, never writing the count."""
    from citetutor.checks import Rejected, guard
    from citetutor.schemas import Claim, Draft
    evidence = numbered("On the other hand, we have materialism and idealism, which are both a form of monism.",
                        "The first is dualism, which posits that the material and mental worlds are separated.",
                        "Wiley-Blackwell, Malden, MA, 1996.",
                        "The courts award special, general and punitive damages.", cosine=0.6)
    question = "How many kinds of monism do the notes talk about, and what are they?"
    for right in ("The notes talk about two kinds of monism: materialism and idealism.",
                  "There are 2 forms of monism, namely materialism and idealism.",
                  "Materialism and idealism are the two kinds of monism."):
        guard(question, Draft(claims=[Claim(text=right, sentences=[1])]), evidence, 0.4, 0.45, "explain")
    whole = Claim(text="There are three kinds of damages: special, general and punitive.", sentences=[4])
    guard("How many kinds of damages are there?", Draft(claims=[whole]), evidence, 0.4, 0.45, "explain")
    for wrong, cited in (("There are three kinds of monism: materialism and idealism.", [1]),  # not its list's length
                         # items of two sentences:
                         ("There are three kinds of monism: materialism, idealism and dualism.", [1, 2]),
                         ("We have two forms of monism.", [1]),  # no list to count
                         # part of a longer list: the notes name three
                         ("There are two kinds of damages: special and general.", [4]),
                         ("There are two kinds of damages: general and punitive.", [4])):
        with pytest.raises(Rejected) as refused:
            guard(question, Draft(claims=[Claim(text=wrong, sentences=cited)]), evidence, 0.4, 0.45, "explain")
        assert refused.value.code == "number_not_in_evidence", wrong


def test_a_number_the_question_states_is_not_the_claims_own():
    from citetutor.checks import guard
    from citetutor.schemas import Claim, Draft
    evidence = numbered("Courts use market definition to judge mergers between companies.", cosine=0.6)
    question = "What test do courts use nowadays to decide whether to let two companies merge?"
    claim = Claim(text="Courts use market definition to decide whether to let two companies merge.", sentences=[1])
    assert guard(question, Draft(claims=[claim]), evidence, 0.4, 0.45, "explain") == []


def test_a_sentence_naming_the_questions_topic_is_on_it_and_one_about_something_else_is_not():
    from citetutor.checks import Rejected, _guard_topic
    _guard_topic("What's the main problem people point out with the depth of processing idea?", numbered(
        "Difficulties for Depth-of-Processing Circular Logic: No independent measure of depth other than "
        "subsequent memory performance", cosine=0.38), 0.45)
    with pytest.raises(Rejected):  # a near-miss: the notes never mention sleep
        _guard_topic("How does sleep help lock memories in overnight?", numbered(
            "Testing improves memory retention over longer delays, not over shorter delays", cosine=0.42), 0.45)


def test_a_number_glued_to_its_unit_by_the_text_layer_still_holds_the_claim():
    """A slide read as "Test'after'12week'delay" states the 12 weeks of a right answer; before,
    "12week" was one word, so "12 weeks after learning" was refused as not in its sentence."""
    from citetutor.checks import guard
    from citetutor.evidence import stems
    from citetutor.schemas import Claim, Draft
    evidence = numbered("Test'after'12week'delay • Studying what you already know without testing is ineffective",
                        cosine=0.6)
    question = "How long after learning did Roediger and Karpicke test people?"
    claim = Draft(claims=[Claim(text="12 weeks after learning", sentences=[1])])
    assert guard(question, claim, evidence, 0.6, 0.45, "explain") == []
    assert stems("Test'after'12week'delay") == ["test", "after", "12", "week", "delay"]
    assert stems("WGS84 and 3rd") == ["wgs84", "3rd"], "letters before digits, or a short ending, stay one word"


def test_code_recites_a_claim_only_to_a_sentence_holding_every_word_it_adds():
    sentences = numbered("And most effects are small!", "Cohen's d: Small: 0.2; Medium: 0.5; Large: 0.8",
                         "Fitness means reproductive success", "If you exercise you will be stronger")
    question = "What Cohen's d counts as a medium-sized effect?"
    draft = Draft(claims=[Claim(text="A medium effect is d = 0.5.", sentences=[1])])
    assert recited(question, draft, sentences, 0.0).claims[0].sentences == [2]
    assert recited(question, draft, numbered(*(s.text for s in sentences), cosine=0.3), 0.45) == draft, \
        "a sentence not about the question is no source"
    # Words spread over two sentences are not joined into one source ("strong" from an example).
    mixed = Draft(claims=[Claim(text="Fitness means success and being stronger.", sentences=[3])])
    assert recited("Does fitness mean strength?", mixed, sentences, 0.0) == mixed
    # One shared word is a coincidence, not a source.
    lone = Draft(claims=[Claim(text="Medium.", sentences=[1])])
    assert recited("Which size is it?", lone, sentences, 0.0) == lone
    # ... unless it is a number: "$24" is no coincidence next to "... = $24".
    profit = Draft(claims=[Claim(text="The monopolist makes $24.", sentences=[1])])
    money = numbered("Fewer alternatives for consumers", "Profit = ($16 - $10) x 4 = $24.", cosine=0.6)
    assert recited("How much profit does the monopolist make?", profit, money, 0.45).claims[0].sentences == [2]


def test_the_same_value_or_the_blind_answers_words_agree_by_content_but_another_value_or_a_negation_does_not():
    from citetutor.checks import agrees_with_blind, same_content
    from citetutor.schemas import BlindSolve
    question = "What's the worst scale error on the Albers map of the lower 48 states?"
    solver = "1 1/4% on map of conterminous States with standard parallels of 29 1/2°N and 45 1/2°N"
    right = Draft(claims=[Claim(text="The worst scale error on the Albers map is 1 1/4%.", sentences=[4])])
    assert agrees_with_blind(HashEmbedder(), question, right, BlindSolve(answer=solver, sentences=[1, 2, 3]))
    for wrong in ("The worst scale error is 2 1/2%.", "The worst scale error is 29%."):
        assert not same_content(question, wrong, solver), wrong  # a digit of it, or a later number
    why = "Why randomly assign the treatment? Couldn't we just control for everything in a regression?"
    found = "Randomization eliminates confounding (Z) We don’t need to ‘control’ for anything"
    assert same_content(why, "Randomization eliminates confounding, so we don't need to control for anything.", found)
    negated = "Randomization does not eliminate confounding."
    assert not same_content(why, negated, "Randomization eliminates confounding")
    assert not same_content("Does fitness mean being strong?", "Yes, fitness means being strong.", "Yes")


SPLIT_BARS = "Did Hacking think split bars could ever exist?"


@pytest.mark.parametrize("reference, other", [
    # MiniLM put these at cosine 0.82, so a claim its own sentence contradicts "agreed".
    ("Hacking thought split bars could never exist, and it turned out that way.",
     "Yes, Hacking thought split bars could ever exist."),
    ("The entropy doesn’t change.", "The entropy changes."),
    ("Heat does not flow from a cold body to a hotter one.", "Heat flows from a cold body to a hotter one."),
])
def test_an_answer_denying_what_the_other_states_never_agrees(reference, other):
    assert not same_meaning(_Close(), reference, other, SPLIT_BARS)
    assert not same_meaning(_Close(), other, reference, SPLIT_BARS)


@pytest.mark.parametrize("reference, other", [
    # An alternative, a weaker claim, or a negation in another clause denies nothing the other says.
    ("Derivational affixes may or may not change the category of a word.",
     "Derivational affixes change the category of a word."),
    ("An unsafe state does not necessarily mean deadlock.", "An unsafe state can lead to deadlock."),
    ("Money is not the only cause, but inflation rises with it.", "Inflation rises with money."),
    ("It never rains there.", "It never rains there."),
])
def test_negations_that_deny_nothing_the_other_states_leave_meaning_to_decide(reference, other):
    assert same_meaning(_Close(), reference, other)


def test_with_no_blind_answer_to_weigh_against_each_claim_must_be_about_the_question():
    from citetutor.checks import Rejected, guard_each_claim_on_topic
    question = "How do I stop the same person's X-rays from ending up in both my training data and my test data?"
    from dataclasses import replace
    evidence = numbered("Patient overlap: if multiple data points belong to the same patient, split them by "
                        "patient.", "We use the imputation model fitted on the training set to impute the test set.",
                        cosine=0.46)
    evidence[1] = replace(evidence[1], cosine=0.37)
    split = Claim(text="We split data by patient.", sentences=[1])
    imputed = Claim(text="We use the imputation model fitted on the training set to impute the test set.",
                    sentences=[2])
    guard_each_claim_on_topic(question, [], Draft(claims=[split]), evidence, 0.45)
    with pytest.raises(Rejected) as refused:
        guard_each_claim_on_topic(question, [], Draft(claims=[imputed, split]), evidence, 0.45)
    assert refused.value.code == "off_question" and "Claim 1" in refused.value.detail
    # A multi-part question's claim need only be about its own part.
    parts = ["How do I stop the same person's X-rays from ending up in both sets?",
             "How is the test set imputed?"]
    guard_each_claim_on_topic(question, parts, Draft(claims=[imputed, split]), evidence, 0.45)


def test_a_negation_is_one_word_however_it_is_written():
    """A right "You cannot be sued ... while testifying in court" cited an Anti-SLAPP sentence and
    was told "cannot" was missing, with no pointer: "cannot" was a word of its own, and the
    sentence saying "defamation is not possible" in court was never named. "Can't" was read as
    "can", so a claim denying what its sentence affirms lost its "not"."""
    from citetutor.checks import Rejected, guard
    from citetutor.evidence import stems
    assert stems("you cannot, can't, won't or isn't") == ["can", "not", "can", "not", "will", "not", "not"]
    evidence = numbered(
        "Can either be slander (spoken) or libel (written).",
        "There are cases where defamation is not possible: • In court and legislation, defamation is not "
        "possible as the speaker has absolute privilege",
        "In summary, Anti-SLAPP laws help news organizations protect themselves from defamation lawsuits.",
        cosine=0.5)
    question = "Can I get sued for something I say while testifying in court?"
    claim = "You cannot be sued for something you say while testifying in court."
    with pytest.raises(Rejected) as refused:
        guard(question, Draft(claims=[Claim(text=claim, sentences=[3])]), evidence, 0.4, 0.45, "explain")
    assert "says cannot, which S3" in refused.value.detail and "Cite S2" in refused.value.detail
    assert guard(question, Draft(claims=[Claim(text=claim, sentences=[2])]), evidence, 0.4, 0.45, "explain") == []
    affirmed = numbered("A bank's customers can withdraw their deposits on demand.", cosine=0.5)
    denied = Draft(claims=[Claim(text="Customers can't withdraw deposits on demand.", sentences=[1])])
    assert guard("When can customers take their money out?", denied, affirmed, 0.6, 0.45, "explain") == [1], \
        "the denial its sentence lacks goes to the meaning judge"


def test_a_bare_yes_or_no_from_the_blind_solver_agrees_with_a_draft_giving_the_same_verdict():
    """The 0.5B answered "No" (citing S1-S3) to whether booby traps are allowed; weighed against
    "No, you cannot set up booby traps ...", the judge gave +0.20 nats and the right draft was
    refused. The verdict is its whole answer: the same verdict agrees, any other is left to the judge."""
    from citetutor.checks import agrees_with_blind
    from citetutor.schemas import BlindSolve
    question = "Am I allowed to set up booby traps to keep people from breaking into my property?"
    said_no = BlindSolve(answer="No", sentences=[1, 2, 3])
    draft = Draft(claims=[Claim(text="No, you cannot set up booby traps to keep people out.", sentences=[4])])
    assert agrees_with_blind(HashEmbedder(), question, draft, said_no)
    allowed = Draft(claims=[Claim(text="Yes, you can set up booby traps.", sentences=[4])])
    assert not agrees_with_blind(HashEmbedder(), question, allowed, said_no)
    no_verdict = Draft(claims=[Claim(text="Occupiers owe trespassers a duty of general humanity.", sentences=[4])])
    assert not agrees_with_blind(HashEmbedder(), question, no_verdict, said_no)
    longer = BlindSolve(answer="No, occupiers owe a duty", sentences=[1, 2, 3])
    assert not agrees_with_blind(HashEmbedder(), question, draft, longer), "only a bare verdict is its whole answer"


def test_a_cited_sentence_holding_none_of_a_claims_words_does_not_make_it_about_the_question():
    """ "The judge can only pick ONE defense ...", copied from a sentence below the topic floor, was
    shown for how blame is split when the judge cannot tell, carried by a sentence on strict
    liability cited beside it that shares none of its words."""
    from dataclasses import replace

    import pytest

    from citetutor.checks import Rejected, guard
    question = "If the judge can't work out how much each side was to blame, how does the blame get split?"
    copied, beside = numbered("The judge however can only pick ONE defense. This changes the decision, so the judge "
                              "decides how harsh to be!", "Strict Liability Liability is based on causation, "
                              "regardless of blame or motive.")
    evidence = [replace(copied, cosine=0.44), replace(beside, cosine=0.46)]
    claim = Claim(text="The judge can only pick ONE defense. This changes the decision, so the judge decides "
                       "how harsh to be!", sentences=[1, 2])
    with pytest.raises(Rejected) as refused:
        guard(question, Draft(claims=[claim]), evidence, 0.4, 0.45, "explain")
    assert refused.value.code == "off_question"
    # A claim in other words than all its sentences keeps them all for the topic check.
    paraphrase = Claim(text="Both parties carry equal fault.", sentences=[1, 2])
    assert guard(question, Draft(claims=[paraphrase]), evidence, 0.0, 0.45, "explain") == [1]


def test_a_short_word_and_its_plural_or_s_form_meet():
    """"Claim 1 says gets, which S3 do not say", asked "when does my boss get sued": a word of three
    letters kept its "-s" ("gets", "keys", "bits"), so it never met its own base."""
    from citetutor.checks import added_words
    from citetutor.evidence import stems
    assert stems("keys bits gets runs uses") == stems("key bit get run use")
    assert stems("this plus bias less") == ["plus", "bias", "less"], "an 's' of the word's own stays"
    assert added_words("Your boss gets sued by the victim.", "When does my boss get sued?") == {"victi"}
