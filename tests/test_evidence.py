"""Numbered evidence sentences: splitting, ranking, and the spans and boxes code resolves."""

import json

from citetutor.evidence import (
    MAX_SENTENCE_CHARS,
    Sentence,
    evidence_block,
    number_evidence,
    sentence_boxes,
    sentence_spans,
)
from citetutor.retrieval import Hit
from tests.fakes import HashEmbedder


def pieces(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text)]


def test_sentences_end_at_full_stops_before_a_capital_or_digit():
    text = ("Velocity is always tangent to the moving circle. The acceleration points inward, to the "
            "centre.\n9.8 m/s^2 is the value of g near the ground.")
    assert pieces(text) == ["Velocity is always tangent to the moving circle.",
                            "The acceleration points inward, to the centre.",
                            "9.8 m/s^2 is the value of g near the ground."]


def test_short_fragments_join_the_sentence_before():
    assert pieces("Dynamic Array\nThe dynamic array can grow and shrink in size. Then more follows.") == [
        "Dynamic Array\nThe dynamic array can grow and shrink in size. Then more follows."]


def test_abbreviations_and_decimals_do_not_split():
    assert pieces("The value is 3.14 rad when e.g. the wheel turns once more.") == [
        "The value is 3.14 rad when e.g. the wheel turns once more."]


def test_an_abbreviation_before_a_capital_or_digit_does_not_end_the_sentence():
    """From the batteries lecture: cut after "(e.g.", neither piece said which technique gives
    the local picture, and the sentence holding the answer fell below the topic floor."""
    text = ("Local vs Average structure: the picture from crystallography is an average, while other "
            "techniques (e.g. NMR) give a more local picture. "
            "Data of Smith et al. (2021) agree with this local picture. "
            "The diagram is shown in Fig. 2.1 and the cipher follows the SPN approach (AES, cf. Fig. 2.3). "
            "Method of Agreement vs. Method of Difference, i.e. Mill's two methods of comparison. "
            "A new sentence starts here.")
    assert pieces(text) == [
        "Local vs Average structure: the picture from crystallography is an average, while other "
        "techniques (e.g. NMR) give a more local picture.",
        "Data of Smith et al. (2021) agree with this local picture.",
        "The diagram is shown in Fig. 2.1 and the cipher follows the SPN approach (AES, cf. Fig. 2.3).",
        "Method of Agreement vs. Method of Difference, i.e. Mill's two methods of comparison.",
        "A new sentence starts here."]


def test_slide_bullets_and_q_and_a_lines_start_sentences():
    text = ("Outline of the lecture on arrays and lists\n1) Storing and accessing sequential data\n"
            "2) Temporarily storing objects in a buffer\nQ: What is meant by being indexable?\n"
            "A: Each slot can be referenced with a number.")
    assert pieces(text) == ["Outline of the lecture on arrays and lists",
                            "1) Storing and accessing sequential data",
                            "2) Temporarily storing objects in a buffer",
                            "Q: What is meant by being indexable?\nA: Each slot can be referenced with a number."]


def test_a_sentence_that_points_back_keeps_its_predecessor():
    text = ("The speed of the object remains constant. This motion is known as uniform circular "
            "motion. A new idea starts with this sentence.")
    assert pieces(text)[0] == ("The speed of the object remains constant. This motion is known as "
                               "uniform circular motion.")


def test_a_sentence_pointing_back_after_an_opening_phrase_keeps_its_predecessor():
    """The law notes' nonfeasance sentence was never retrieved for "do I have to save a stranger
    who's drowning": only its second half, which says "it is not punishable" without saying what."""
    text = ("Nonfeasance refers to failing to provide a positive act (for example, not saving a dying "
            "person). In Ontario, it is not punishable, unless explicitly stated to be in statute. "
            "Malfeasance says that if a positive act was provided, but done negligently, the actor is liable.")
    assert pieces(text)[:2] == [
        "Nonfeasance refers to failing to provide a positive act (for example, not saving a dying person). "
        "In Ontario, it is not punishable, unless explicitly stated to be in statute.",
        "Malfeasance says that if a positive act was provided, but done negligently, the actor is liable."]
    settled = ("The judge apportions liability between the two parties. If they are unable to apportion it, "
               "it defaults to 50/50 though! Voluntary assumption of risk is another defence.")
    assert pieces(settled)[0].endswith("defaults to 50/50 though!")
    apart = "Strict liability is based on causation, not on blame. In Ontario, courts have kept the rule since 1990."
    assert len(pieces(apart)) == 2, "a sentence whose opening phrase leads to no pronoun stands alone"


def test_a_sentence_naming_these_in_its_first_words_keeps_its_predecessor():
    """The OB notes' advice on escalation was retrieved as "Know these as you go along so you
    don't escalate commitment to a bad deal", never saying what "these" are."""
    text = ("Your BATNA, resistance point and target define the deal. Know these as you go along so "
            "you don't escalate commitment to a bad deal. Anchoring is another bias.")
    assert pieces(text)[0].endswith("escalate commitment to a bad deal.")
    apart = ("Sunk costs are permanent losses of resources from earlier decisions. We compare these "
             "costs to future gains.")
    assert len(pieces(apart)) == 2, "'these' before its noun names the noun, not the sentence before"
    far = ("Sunk costs are permanent losses of resources from earlier decisions. Managers in the "
           "largest and oldest firms often ignore them.")
    assert len(pieces(far)) == 2, "a pronoun past the first few words does not join"


def test_a_question_heading_keeps_the_answer_after_it():
    text = "When and where is a static Array used?\n1) Storing and accessing sequential data"
    assert pieces(text) == [text]


def test_long_runs_are_cut_at_line_breaks_and_every_span_is_exact():
    text = "\n".join(f"A = {i} and B = {i + 1} hold in row {i} of the table" for i in range(40))
    spans = sentence_spans(text)
    assert all(b - a <= MAX_SENTENCE_CHARS for a, b in spans)
    assert all(text[a:b] == text[a:b].strip() and text[a:b] for a, b in spans)
    assert all(text[a:b].endswith("table") for a, b in spans), "cut at line breaks"
    assert "".join(text[a:b] for a, b in spans).replace("\n", "") == text.replace("\n", "")


def _hit(chunk_id: str, text: str, word_boxes=None) -> Hit:
    return Hit(chunk_id, "doc", "Notes", 3, text, json.dumps([[0, 0, 500, 700]]),
               json.dumps(word_boxes) if word_boxes is not None else None)


def test_number_evidence_drops_overlap_repeats_and_puts_the_closest_first():
    period = "The period is the time the object takes for one whole orbit."
    a = _hit("doc-p3-c0", f"Centripetal acceleration points inward, toward the centre. {period}")
    b = _hit("doc-p3-c1", f"{period} Frequency is one over the period, measured in hertz.")
    sentences = number_evidence([a, b], "What is the period of an orbit?", HashEmbedder(), 12)
    texts = [s.text for s in sentences]
    assert len(texts) == len(set(texts)) == 3
    assert texts[0] == period
    assert [s.number for s in sentences] == [1, 2, 3]
    assert sentences[0].cosine >= sentences[-1].cosine
    assert number_evidence([a, b], "period", HashEmbedder(), 2)[1].number == 2


def test_a_sentence_an_overlapping_chunk_glued_words_onto_is_numbered_once():
    first = _hit("doc-p4-c0", "• Traits with good reproductive success become more common\n"
                 "Fitness\n• “Survival of the fittest” is not a very good name for this process")
    second = _hit("doc-p4-c1", "become more common\nFitness\n• “Survival of the fittest” is not a "
                  "very good name for this process\n• Fitness is average reproductive success, given traits")
    texts = [s.text for s in number_evidence([first, second], "fitness", HashEmbedder(), 12)]
    assert sum("Survival of the fittest" in t for t in texts) == 1
    assert any(t.startswith("• Fitness is average") for t in texts), "the rest of the chunk is kept"


def test_a_slide_build_keeps_its_fullest_page():
    # Psychology slides 41 and 48: one build, page 41 only the headings; the eval cited it for
    # what page 48 adds. The fuller sentence takes the place of the one it holds.
    build = "Stimulus Sampling Theory & Spacing\nMassed Practice\nSpaced Practice"
    heads, full = _hit("doc-p41-c0", build), _hit("doc-p48-c0", build + "\nMore context features are "
                                                   "bound to the item following spaced practice.")
    sentences = number_evidence([heads, full], "spacing", HashEmbedder(), 12)
    assert [(s.hit.id, s.text[-8:]) for s in sentences] == [("doc-p48-c0", "ractice.")]


def test_evidence_block_numbers_sentences_without_pages():
    hit = _hit("doc-p3-c0", "Velocity is tangent.\nIt never points inward at all.")
    block = evidence_block([Sentence(1, hit, 0, len(hit.text))])
    assert block == "[S1] Velocity is tangent. It never points inward at all."


def test_a_bullet_carries_its_slide_heading_into_the_evidence():
    # The biology slide whose "Examples" bullet lists examples of historical constraints: read
    # without its heading, the drafter gave the blind spot as an example of a vestigial trait.
    text = ("Tradeoffs\n• Much of adaptation is the result of compromise\n"
            "Historical constraints\n• Evolution proceeds by small steps\n"
            "– What is possible is guided by what has gone before\n"
            "• Examples\n– Vestigial traits\n– Blind spot in the vertebrate eye\n")
    hit = _hit("doc-p8-c0", text)
    sentences = [Sentence(n, hit, a, b) for n, (a, b) in enumerate(sentence_spans(text), start=1)]
    examples = next(s for s in sentences if s.text.startswith("• Examples"))
    assert examples.heading == "Historical constraints"
    assert f"[{examples.label}] (Historical constraints) • Examples" in evidence_block(sentences)
    # A heading opens its own bullets' sentence, never ends the bullet before it.
    assert [s.text[:22] for s in sentences[:2]] == ["Tradeoffs • Much of ad", "Historical constraints"]
    prose = _hit("doc-p1-c0", "Entropy\nThe entropy of a perfect crystal is zero at 0 K.")
    assert Sentence(1, prose, 8, len(prose.text)).heading == "", "only a bullet sits under a heading"


def test_sentence_boxes_come_from_its_own_words_only():
    text = "First line here. Second sentence sits on the next line."
    words = [[0, 5, 10, 100, 40, 110], [6, 10, 45, 100, 80, 110], [11, 16, 85, 100, 120, 110],
             [17, 23, 10, 120, 60, 130], [24, 32, 65, 120, 120, 130], [33, 37, 125, 120, 150, 130],
             [38, 40, 10, 140, 30, 150], [41, 44, 35, 140, 60, 150], [45, 49, 65, 140, 90, 150],
             [50, 55, 95, 140, 130, 150]]
    hit = _hit("doc-p3-c0", text, words)
    second = Sentence(2, hit, 17, len(text))
    assert sentence_boxes(second) == [[10, 120, 150, 130], [10, 140, 130, 150]]
    assert sentence_boxes(Sentence(1, hit, 0, 16)) == [[10, 100, 120, 110]]


def test_chunks_stored_before_word_boxes_fall_back_to_chunk_lines():
    hit = _hit("doc-p3-c0", "Old library sentence.")
    assert sentence_boxes(Sentence(1, hit, 0, len(hit.text))) == [[0, 0, 500, 700]]


def test_a_line_ending_in_a_colon_keeps_the_list_it_announces():
    text = ("• Evolution by natural selection will occur if there is:\n– Heritable variation in traits\n"
            "– Selection based on these traits\n• Logical consequence of all the steps above, in short")
    assert pieces(text) == [
        "• Evolution by natural selection will occur if there is:\n– Heritable variation in traits\n"
        "– Selection based on these traits",
        "• Logical consequence of all the steps above, in short"]
