"""Foils, question parts and the meaning judge's arithmetic, with scripted judges."""

import re

from citetutor.foils import (
    antonym_flips,
    exchanged,
    foils_of,
    number_flips,
    polarity_conflict,
    prefix_flips,
    swapped_back,
)
from citetutor.meaning import judge_claim
from citetutor.models.base import Choice
from citetutor.parts import closest_part, question_parts, uncovered_parts
from tests.fakes import HashEmbedder, OverlapJudge
from tests.helpers import numbered

SIGN = "Melting requires heat, so the entropy of transition is positive."


def test_foils_flip_one_word_each_and_the_sharpest_first():
    assert antonym_flips("Heat does not flow spontaneously from a cold body.")[0] == \
        "Heat does flow spontaneously from a cold body."
    assert "Melting requires heat, so the entropy of transition is negative." in foils_of(SIGN)
    assert foils_of("A monopolist is a price maker.")[0] == "A monopolist is a price taker."
    assert number_flips("Measure tails after 100 generations.") == ["Measure tails after 200 generations."]
    # A number that ends the sentence is flipped too, and exchanged for the sentence's other value.
    assert number_flips("Sony first sold them in 1991.") == ["Sony first sold them in 3982."]
    assert exchanged("The monopolist makes $24.", "Cost is $36 and profit is $24 at Q=6.") == [
        "The monopolist makes $36."]
    assert number_flips("Version 1.2.3 is out") == [], "a piece of a dotted number is not a number"
    assert foils_of("Photosynthesis uses light.") == []


def test_a_negation_with_the_typographic_apostrophe_is_taken_out_as_a_straight_one_is():
    # Slides mostly set "doesn’t": a claim copied from one was given no foil without its negation.
    assert antonym_flips("Entropy doesn’t change in a reversible cycle.")[0] == \
        "Entropy does change in a reversible cycle."
    assert antonym_flips("Entropy doesn't change in a reversible cycle.")[0] == \
        "Entropy does change in a reversible cycle."
    assert "A lock isn’t shared." not in antonym_flips("A lock isn’t shared."), "no foil repeats the claim"


def test_opposite_words_are_a_conflict_but_shared_ones_are_not():
    assert polarity_conflict("The change is positive.", "It comes out negative.")
    assert not polarity_conflict("It is positive, not negative.", "The change is positive.")
    assert not polarity_conflict("Heat flows from hot to cold.", "Not from cold to hot.")


class LeaningJudge:
    """A judge that gives "A" a head start of `lean` nats, as the 1.5B does, over a true view."""

    name = "test:leaning"

    def __init__(self, truth: str, lean: float):
        self.truth, self.lean = truth, lean

    def chat_json(self, messages, schema):
        raise AssertionError("scores from log-probabilities")

    def choice_logprobs(self, messages, prefix, options):
        task = messages[-1]["content"]
        a = task.split("\nA: ")[1].split("\n")[0]
        truth_at_a = a == self.truth
        return Choice([self.lean + (1.0 if truth_at_a else 0.0), 0.0 if truth_at_a else 1.0], self.name)


def test_averaging_both_orders_cancels_a_judge_leaning_to_one_letter():
    sentences = numbered("Melting a substance requires heat, so the entropy of transition is positive.")
    leaning = LeaningJudge(truth=SIGN, lean=2.0)  # "A" wins in both orders when read alone
    assert judge_claim(leaning, sentences, "Why?", SIGN, [1]).holds
    flipped = SIGN.replace("positive", "negative")
    verdict = judge_claim(leaning, sentences, "Why?", flipped, [1])
    assert not verdict.holds and verdict.foil == SIGN and verdict.asked == 2


def test_a_claim_in_other_words_is_asked_whether_it_is_stated_before_its_flip():
    judge = OverlapJudge()
    sentences = numbered("Melting a substance requires heat.")
    verdict = judge_claim(judge, sentences, "Why?", "Sunlight makes sugar in leaves.", [1], words_held=False)
    assert not verdict.holds and verdict.asked == 1 and "Statement: Sunlight" in judge.calls[0]


def test_a_multi_part_question_splits_where_a_new_question_starts():
    assert question_parts("Why are monopolies bad for society overall, and is there a deadweight loss?") \
        == ["Why are monopolies bad for society overall", "is there a deadweight loss?"]
    assert question_parts("If I work out every day, will my kids end up stronger? Why or why not?") \
        == ["If I work out every day, will my kids end up stronger? Why or why not?"]
    assert question_parts("When and where is a static array used?") == ["When and where is a static array used?"]


def test_a_part_no_sentence_is_close_to_is_reported_as_not_covered():
    sentences = numbered("A monopoly creates a deadweight loss because it produces too little.")
    parts = ["why is there a deadweight loss from a monopoly", "who painted the mona lisa"]
    assert uncovered_parts(HashEmbedder(), parts, sentences, 0.5) == ["who painted the mona lisa"]
    assert uncovered_parts(HashEmbedder(), parts[:1], sentences, 0.5) == []


def test_a_yes_or_no_answer_flips_with_its_statement():
    claim = "Yes, fitness in biology does mean being strong and surviving."
    assert foils_of(claim)[0] == "No, fitness in biology does not mean being strong and surviving."
    assert antonym_flips("No, heat does not flow by itself from cold to hot.")[0] == \
        "Yes, heat does flow by itself from cold to hot."
    # With no word to flip, a "Yes" is denied whole (the eval showed this one as verified).
    assert foils_of("Yes, fitness in biology means being strong and surviving") == [
        "No, it is not true that fitness in biology means being strong and surviving"]
    assert foils_of("No, fitness means reproductive success") == []


def test_a_claim_that_beats_its_flip_by_a_hair_does_not_hold():
    sentences = numbered("Fitness is defined as average reproductive success.")
    claim = "Fitness is defined as average reproductive success."

    class Hair(LeaningJudge):
        def choice_logprobs(self, messages, prefix, options):
            a = messages[-1]["content"].split("\nA: ")[1].split("\n")[0]
            return Choice([0.1, 0.0] if a == claim else [0.0, 0.1], self.name)

    close = judge_claim(Hair(claim, 0.0), sentences, "What is fitness?", claim.replace("is", "is not", 1), [1])
    assert close.flipped is not None and close.flipped < 0
    verdict = judge_claim(Hair(claim, 0.0), sentences, "What is fitness?", claim, [1])
    assert verdict.flipped == 0.1 and not verdict.holds  # won, but by 0.1 nats


ACCLIMATION = "Acclimation is the ability of organisms to respond directly to their environment"
ADAPTING = "What's the difference between adapting and acclimating?"
ADAPTATION = "Adaptation is genetic change that increases the fitness of organisms"


def test_a_question_word_put_in_place_of_the_sentences_own_word_gets_that_word_back_as_its_foil():
    swapped = ACCLIMATION.replace("Acclimation", "Adaptation")
    assert swapped_back(swapped, [ACCLIMATION], ADAPTING) == [ACCLIMATION]
    assert swapped_back(ACCLIMATION, [ACCLIMATION], ADAPTING) == [], "the sentence's own subject"
    assert swapped_back("Organisms respond to the environment", [ACCLIMATION], ADAPTING) == [], "no run copied"
    object_swap = "Acclimation is the ability of organisms to respond directly to their offspring"
    assert swapped_back(object_swap, [ACCLIMATION], "Does acclimation change offspring?") == [ACCLIMATION]
    # Cited beside the sentence that names it, the question's word is still not the copied sentence's.
    assert swapped_back(swapped, [ADAPTATION, ACCLIMATION], ADAPTING) == [ACCLIMATION]


MICE = "The mouse tail experiment ran for 100 generations before the tails were measured again"
BIRDS = "Beak depth in finches was measured after the drought"


def test_a_word_borrowed_from_another_sentence_beside_a_copied_run_gets_the_sentences_word_back():
    question = "How long did the tail experiment run?"
    swapped = MICE.replace("mouse", "finches")  # the neighbouring sentence's subject
    assert swapped_back(swapped, [MICE], question, [MICE, BIRDS]) == [MICE]
    assert swapped_back(swapped, [MICE], question) == [], "without the evidence, only the question's words"
    assert swapped_back(MICE.replace("mouse", "rodent"), [MICE], question, [MICE, BIRDS]) == [], \
        "a word of the model's own is a paraphrase, not a borrowed subject"
    assert swapped_back(MICE, [MICE], question, [MICE, BIRDS]) == []
    # A neighbour cited beside the sentence is still another sentence: its word is borrowed.
    assert swapped_back(swapped, [BIRDS, MICE], question, [MICE, BIRDS]) == [MICE]


def _refusal_through_the_gate(tmp_path, question: str, sentences, wrong: str, uncovered: list[int],
                              right: str, wrong_cites: tuple[int, ...] = (1,)) -> str:
    """The code `check_meaning` refuses the `wrong` claim with; `right`, cited to S1, must pass."""
    from citetutor.checks import Rejected
    from citetutor.schemas import Claim, Draft
    from citetutor.tutor import check_meaning
    from tests.helpers import make_pipeline
    pipe = make_pipeline(tmp_path)
    with pipe.gate.tracer.request("tutor", 1, question) as trace:
        check_meaning(pipe.gate, trace, question, sentences, Draft(claims=[Claim(text=right, sentences=[1])]),
                      [], 1, lambda *_: None)
        try:
            check_meaning(pipe.gate, trace, question, sentences,
                          Draft(claims=[Claim(text=wrong, sentences=list(wrong_cites))]), uncovered, 1, lambda *_: None)
        except Rejected as rejected:
            return rejected.code
    raise AssertionError(f"shown: {wrong}")


def test_the_gate_refuses_a_claim_that_gives_one_sentences_finding_another_sentences_subject(tmp_path):
    code = _refusal_through_the_gate(tmp_path, "How long did the tail experiment run?",
                                     numbered(MICE + ".", BIRDS + "."),
                                     MICE.replace("mouse", "finches") + ".", [1], MICE + ".")
    assert code == "uncovered_claim"


def test_a_swapped_subject_with_nothing_to_flip_is_judged_against_the_sentence_and_loses():
    sentences = numbered(ACCLIMATION + ".")
    verdict = judge_claim(OverlapJudge(), sentences, ADAPTING, ACCLIMATION.replace("Acclimation", "Adaptation"), [1])
    assert verdict.foil == ACCLIMATION and not verdict.holds
    assert judge_claim(OverlapJudge(), sentences, ADAPTING, ACCLIMATION, [1]).holds


def test_the_gate_sends_a_claim_with_a_swapped_back_foil_to_the_judge(tmp_path):
    code = _refusal_through_the_gate(tmp_path, ADAPTING, numbered(ACCLIMATION + ".", ADAPTATION + "."),
                                     ACCLIMATION.replace("Acclimation", "Adaptation") + ".", [],
                                     ACCLIMATION + ".", wrong_cites=(1, 2))
    assert code == "unsupported_claim"


SURVEY_NOTES = numbered(
    "Sampling error shrinks as samples grow.",
    "A bigger sample gives smaller standard errors.",
    "Random assignment balances groups on average.",
    "Surveys ask questions of a sample.",
    "Standard errors measure how estimates vary.",
)


def test_a_multi_part_question_far_from_every_sentence_as_a_whole_is_judged_by_its_closest_part():
    embedder = HashEmbedder()
    question = "Who was the first king of Norway, and what does random assignment balance?"
    vectors = embedder.embed([question, *(s.text for s in SURVEY_NOTES)])
    whole = float((vectors[1:] @ vectors[0]).max())
    assert closest_part(embedder, question_parts(question), SURVEY_NOTES) > whole + 0.1
    assert closest_part(embedder, [question], SURVEY_NOTES) == 0.0, "a one-part question has no parts to try"


class RestatingJudge:
    """A judge that scores whole statements: each word the quoted sentences hold is likelier.

    It also has `choice_logprobs`, which must go unused: a judge that can read statements whole
    is asked that way, with no letters to lean towards."""

    name = "test:restating"

    def __init__(self):
        self.read: list[list[str]] = []

    def chat_json(self, messages, schema):
        raise AssertionError("scores from log-probabilities")

    def choice_logprobs(self, messages, prefix, options):
        if options[0].strip() == "Yes":
            return Choice([0.0, -2.0], self.name)
        raise AssertionError("a statement judge reads statements, not letters")

    def statement_logprobs(self, messages, statements):
        quoted = set(re.findall(r"\w+", messages[-1]["content"].split('says: "')[-1].split('"')[0].lower()))
        self.read.append(statements)
        return Choice([-3.0 * sum(w not in quoted for w in re.findall(r"\w+", s.lower()))
                       for s in statements], self.name)


def test_a_statement_judge_holds_a_claim_only_when_it_is_likelier_than_every_flip():
    sentences = numbered("Melting a substance requires heat, so the entropy of transition is positive.")
    judge = RestatingJudge()
    verdict = judge_claim(judge, sentences, "Why?", SIGN, [1])
    assert verdict.holds and verdict.flipped == 3.0 and verdict.asked == 1
    assert judge.read[0][0] == SIGN and len(judge.read[0]) > 2, "the claim and several of its flips, in one call"
    flipped = SIGN.replace("positive", "negative")
    wrong = judge_claim(judge, sentences, "Why?", flipped, [1])
    assert not wrong.holds and wrong.foil == SIGN and wrong.flipped == -3.0


MAP = "But it does not show the correct distance between San Diego and Seattle."


class AffirmativeJudge(RestatingJudge):
    """Reads whole statements finding "not" unlikely whatever the sentences say, as the 1.5B
    did; asked "does S state this?", it answers by whether the statement denies what S denies."""

    def statement_logprobs(self, messages, statements):
        scored = super().statement_logprobs(messages, statements).logprobs
        return Choice([score - 4.0 * (" not " in s) for score, s in zip(scored, statements)], self.name)

    def choice_logprobs(self, messages, prefix, options):
        task = messages[-1]["content"]
        said, statement = task.split('says: "')[-1].split('"')[0], task.split("Statement: ")[-1].split("\n")[0]
        denies = " not " in statement or statement.startswith("No,")
        return Choice([0.5, -0.5] if denies == (" not " in said) else [-0.5, 0.5], self.name)


def test_a_yes_that_restates_the_question_must_be_stated_more_firmly_than_the_no():
    sentences = numbered(MAP)
    question = "Is the distance between San Diego and Seattle right on this map?"
    judge = AffirmativeJudge()
    wrong = "Yes, the distance between San Diego and Seattle is correct."
    verdict = judge_claim(judge, sentences, question, wrong, [1])
    assert verdict.foil == "No, it is not true that the distance between San Diego and Seattle is correct."
    assert not verdict.holds and verdict.flipped == -2.0
    right = "No, the distance between San Diego and Seattle is not correct."
    assert not judge_claim(judge, sentences, question, right, [1]).holds, \
        "read whole, the right answer still loses to the lean (only a reason to refuse is added)"
    shown = judge_claim(judge, numbered("It shows the correct distance between Washington and Seattle."), question,
                        "Yes, the distance between Washington and Seattle is correct.", [1])
    assert shown.holds and shown.asked == 3, "a right Yes: read whole once, then each answer asked"
    # A claim that is no yes/no answer is not asked again.
    plain = judge_claim(judge, numbered("Melting a substance requires heat, so the entropy of transition is positive."),
                        "Why?", SIGN, [1])
    assert plain.holds and plain.asked == 1


class YesToAllJudge(RestatingJudge):
    """Says "Yes" to whatever statement it is asked about, as the 1.5B mostly does, and picks
    the claim ("1.3 times") over its flips."""

    def choice_logprobs(self, messages, prefix, options):
        if options[0].strip() == "Yes":
            return Choice([0.5, -0.5], self.name)
        first = re.search(r"(?m)^A: (.*)$", messages[-1]["content"]).group(1)
        return Choice([0.0, -2.0] if "1.3 times" in first else [-2.0, 0.0], self.name)


def test_a_claim_in_other_words_found_stated_no_more_firmly_than_its_denial_is_refused():
    sentences = numbered("The airmass is 2 at an altitude of 30 degrees.")
    claim = "At 30 degrees up the light goes through 1.3 times more air."
    judge = YesToAllJudge()
    verdict = judge_claim(judge, sentences, "How much more air at 30 degrees?", claim, [1], words_held=False,
                          against_denial=True)
    assert verdict.foil == "It is not true that at 30 degrees up the light goes through 1.3 times more air."
    assert not verdict.holds and verdict.flipped == 0.0
    # Without `against_denial` (a learner's answer marked against a quiz key) only the claim is asked.
    assert judge_claim(YesToAllJudge(), sentences, "How much more air at 30 degrees?", claim, [1],
                       words_held=False).holds


class LetterOnlyAfterStatedJudge(RestatingJudge):
    """A statement judge whose A/B letters are recorded: a claim in other words must be read there."""

    def __init__(self):
        super().__init__()
        self.letters = 0

    def choice_logprobs(self, messages, prefix, options):
        if options[0].strip() == "Yes":
            return Choice([0.0, -2.0], self.name)
        self.letters += 1
        return Choice([-0.1, -0.2] if self.letters == 1 else [-0.2, -0.1], self.name)


def test_a_claim_in_other_words_than_its_sentences_is_not_read_as_their_restatement():
    sentences = numbered("Melting a substance requires heat, so the entropy of transition is positive.")
    judge = LetterOnlyAfterStatedJudge()
    verdict = judge_claim(judge, sentences, "Why?", SIGN, [1], words_held=False)
    assert judge.read == [] and judge.letters == 2, "asked whether stated, then A/B in both orders"
    assert verdict.stated == 2.0 and verdict.flipped is not None and abs(verdict.flipped - 0.1) < 1e-9
    assert not verdict.holds, "a 0.1-nat A/B preference is below MIN_FLIP_MARGIN"


BALL = "When the cell is depolarized, the subunit gets attracted to the inside of the cell and blocks the channel."


def test_a_word_is_flipped_to_its_opposite_prefixed_twin_only_where_the_cited_sentences_use_it():
    wrong = "The ball blocks the channel when the membrane is hyperpolarized."
    assert prefix_flips(wrong, BALL) == ["The ball blocks the channel when the membrane is depolarized."]
    assert prefix_flips(wrong, "The channel opens.") == [], "no coinage the sentences never use"
    assert prefix_flips("A telephone list has overcoverage.", "Undercoverage: not everyone has a telephone.") == [
        "A telephone list has undercoverage."]
    assert prefix_flips("Include every unit.", "Units are listed.") == []


def test_a_claim_with_the_opposite_prefix_of_its_sentences_word_loses_to_its_twin():
    sentences = numbered(BALL)
    wrong = "The subunit blocks the channel when the cell is hyperpolarized."
    verdict = judge_claim(RestatingJudge(), sentences, "When does the ball block the channel?", wrong, [1])
    assert verdict.foil == wrong.replace("hyperpolarized", "depolarized") and not verdict.holds
    right = judge_claim(RestatingJudge(), sentences, "When does the ball block the channel?",
                        wrong.replace("hyperpolarized", "depolarized"), [1])
    assert right.holds


def test_the_flip_test_makes_a_prefix_twin_from_the_evidence_as_its_own_kind():
    from citetutor.devtools.fliptest import KINDS, flips
    sentences = numbered(BALL, "In order to unblock the channel, the cell needs to be hyperpolarized.")
    made = flips("The subunit blocks the channel when the cell is depolarized.", sentences, [1])
    assert "prefix" in KINDS
    assert made["prefix"] == "The subunit blocks the channel when the cell is hyperpolarized."


def test_the_flip_test_counts_a_typographic_negation_taken_out_as_a_negation_flip():
    from citetutor.devtools.fliptest import flips
    sentences = numbered("Entropy doesn’t change in a reversible cycle.")
    made = flips("Entropy doesn’t change in a reversible cycle.", sentences, [1])
    assert made["negation"] == "Entropy does change in a reversible cycle."


def test_an_exchange_swaps_both_words_of_an_opposite_pair_or_a_value_for_the_sentences_other_one():
    assert exchanged("Speak more on hard points and less on easy ones.", "") == [
        "Speak less on hard points and more on easy ones."]
    sentence = "The impact of a speaker is 90% delivery and 10% content."
    assert exchanged("90% of the impact comes from the content.", sentence) == [
        "10% of the impact comes from the content."]
    assert exchanged("The monopolist makes $24 of profit.", "Revenue $60, cost $36, profit $24 at Q=6") == [
        "The monopolist makes $36 of profit."], "a value with the same label, not the nearest number"
    assert exchanged("The impact is 90% delivery and 10% content.", sentence) == [], \
        "no other value of the sentence to put in"
    assert exchanged("It is hot, and it is not cold.", "") == ["It is cold, and it is not hot."]
    assert exchanged("The gas is hot and the gas is not dense.", "") == [], "one word of a pair, or an auxiliary"


class TableJudge:
    """A judge that finds every claim stated and picks, of two statements, the one scored higher."""

    name = "test:table"

    def __init__(self, scores: dict[str, float]):
        self.scores, self.choices = scores, 0

    def chat_json(self, messages, schema):
        raise AssertionError("scores from log-probabilities")

    def choice_logprobs(self, messages, prefix, options):
        if options[0].strip() == "Yes":
            return Choice([0.0, -2.0], self.name)
        self.choices += 1
        task = messages[-1]["content"]
        a, b = task.split("\nA: ")[1].split("\n")[0], task.split("\nB: ")[1].split("\n")[0]
        return Choice([self.scores.get(a, 0.0), self.scores.get(b, 0.0)], self.name)


def test_a_claim_that_beats_its_flip_but_loses_to_its_exchange_does_not_hold():
    sentences = numbered("Listeners keep more of the delivery and less of the content.")
    claim = "An audience keeps more of the content and less of the delivery."
    truth = "An audience keeps less of the content and more of the delivery."
    judge = TableJudge({claim: 1.0, truth: 3.0})  # every one-word flip scores 0
    verdict = judge_claim(judge, sentences, "What sticks?", claim, [1], words_held=False)
    assert not verdict.holds and verdict.foil == truth and judge.choices == 4, \
        "the flip's choice, in both orders, then the exchange's"
    right = judge_claim(TableJudge({truth: 1.0}), sentences, "What sticks?", truth, [1], words_held=False)
    assert right.holds and right.asked == 5, "stated, then both choices won"


def test_a_value_the_question_gives_is_a_premise_and_never_exchanged():
    sentence = "At 30 degrees altitude the airmass is 2 , at 90 degrees it is 1 , overhead."
    claim = "At 30 degrees up the light goes through an airmass of 2 , twice as much."
    assert exchanged(claim, sentence, "If my target is 30 degrees up, how much air?") == [
        "At 30 degrees up the light goes through an airmass of 1 , twice as much."]


def test_the_flip_test_makes_an_exchange_of_two_terms_as_its_own_kind():
    from citetutor.devtools.fliptest import KINDS, flips
    sentences = numbered("Go slower on complex content and faster on simple points.")
    made = flips("Go faster on complex content and slower on simple points.", sentences, [1])
    assert "exchange" in KINDS
    assert made["exchange"] == "Go slower on complex content and faster on simple points."


def test_a_claim_copied_in_order_from_its_sentence_keeps_its_pairing_and_gets_no_exchange():
    from citetutor.meaning import claim_foils
    sentence = "Chapter 6 Central Motion, section 6.1: the impact is 90% delivery and 10% content."
    assert claim_foils("Chapter 6 Central Motion", [sentence], "Which chapter?", [sentence])[2] == []
    assert claim_foils("Content is 90% of the impact.", [sentence], "How much?", [sentence])[2] == [
        "Content is 10% of the impact."], "the same value in another order is exchanged"


def test_a_claim_picking_the_other_of_the_questions_alternatives_is_judged_against_it_and_loses(tmp_path):
    from citetutor.foils import alternatives, other_alternative
    question = "What's the difference between CBOW and skip-gram, and which one did the example use?"
    assert alternatives(question) == [("CBOW", "skip-gram")]
    either = "Is that qualitative or quantitative, and what's the catch?"
    assert alternatives(either) == [("qualitative", "quantitative")]
    assert alternatives("Why do researchers sample whole schools or towns instead?") == [], "no choice asked"
    assert other_alternative("England has a comparative advantage in cloth.",
                             "What's the difference between absolute advantage and comparative advantage, "
                             "and which one does England have?") == ["England has an absolute advantage in cloth."]
    sentences = numbered("The example trained word2vec with type cbow.", "Skip-gram predicts the context given a word.")
    # Every word of the wrong pick is in S1 or the question, in no run of S1 long enough to swap back.
    code = _refusal_through_the_gate(tmp_path, question, sentences, "The skip-gram type trained the example word2vec.",
                                     [], "The example trained word2vec with type cbow.")
    assert code == "unsupported_claim"


def test_a_claim_giving_both_alternatives_meets_them_exchanged():
    """"Speed up when you're presenting complex content and slow down when you're presenting
    straightforward points" was shown where the notes say "slower pace on more complex content;
    faster on more straightforward points": every word was the question's or the sentence's, and
    no foil paired the two the other way round."""
    from citetutor.foils import alternatives, other_alternative
    question = "When should I speed up and when should I slow down while I'm talking?"
    assert alternatives(question) == [("speed up", "slow down")]
    claim = "Speed up when you present complex content and slow down on straightforward points."
    assert other_alternative(claim, question) == [
        "Slow down when you present complex content and speed up on straightforward points."]
    assert alternatives("When is a bigger group better, and when do you want fewer people?") == [], \
        "two different questions, nothing asked twice"
    assert other_alternative("CBOW predicts a word from its context; skip-gram predicts the context.",
                             "What's the difference between CBOW and skip-gram, and which one did the example use?"
                             ) == ["Skip-gram predicts a word from its context; CBOW predicts the context."]
