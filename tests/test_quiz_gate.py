"""The quiz gate: cards whose key is the notes' own words, a blind solver that never sees the key
or its sentence, short answers judged against their sentences, and the count delivered."""

import json
import re

import pytest

from citetutor.errors import InputError
from citetutor.schemas import QuizBlindAnswer, QuizShort
from tests.corpus import MIT, corpus_file
from tests.fakes import ContraryJudge
from tests.helpers import evidence_sentences, make_pipeline

STEM = "In uniform circular motion, where does the acceleration point?"


@pytest.fixture
def pipe(tmp_path):
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("Mechanics")
    pipe.doc = pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", subject)
    return pipe


def _notes(pipe) -> str:
    return " ".join(" ".join(t.split()) for (t,) in pipe.store.query("SELECT text FROM chunks"))


def _blanked(messages) -> tuple[str, list[str]]:
    """The stem's sentence (with its blank) and the options, as the solver's prompt shows them."""
    task = messages[-1]["content"].split("Question: ", 1)[1].split("\nTask:", 1)[0]
    stem, *options = task.split("\n")
    stem = re.sub(r"^(Fill in the blank|Which completes the sentence\?):? ", "", stem)
    return stem, [re.sub(r"^\d+\. ", "", o) for o in options]


def knowing_solver(pipe, wrong: bool = False):
    """A solver that has read the notes (the test's knowledge, not the prompt's): it fills the
    blank from the chunk text, or, if `wrong`, with another word."""
    def solve(messages):
        stem, options = _blanked(messages)
        pattern = re.escape(stem).replace(re.escape("_____"), r"(\S+(?:\s\S+){0,2}?)").replace(r"\ ", r"\s+")
        found = re.search(pattern, _notes(pipe), re.IGNORECASE)
        assert found, f"the stem is not a sentence of the notes: {stem}"
        word = "photosynthesis" if wrong else found.group(1)
        index = next((i for i, o in enumerate(options) if o.lower() == word.lower()), None)
        return QuizBlindAnswer(answer_text=word, choice_index=index, sentences=[1])
    return solve


SEEN_KEYS: list[str] = []


def short(answer="", stem=STEM):
    """A short-answer draft citing the sentence it was asked about; its answer is that
    sentence's first words unless `answer` is given."""
    def build(messages):
        number = int(re.search(r"whose answer \[S(\d+)\] states", messages[-1]["content"]).group(1))
        text = dict(evidence_sentences(messages))[number]
        SEEN_KEYS.append(answer or " ".join(text.split()[:4]))
        return QuizShort(stem=stem, answer_text=SEEN_KEYS[-1], sentences=[number])
    return build


def agreeing_solver(messages):
    """A solver answering a short question with the words the drafter's key used."""
    return QuizBlindAnswer(answer_text=SEEN_KEYS[-1], sentences=[1])


def test_a_cloze_key_is_the_notes_own_words_and_the_solver_never_sees_its_sentence(pipe):
    pipe.models.judge.enqueue(knowing_solver(pipe))
    result = pipe.quiz(pipe.doc.doc_id, 1, 4, count=1, kinds="cloze")
    assert len(result.items) == 1 and result.rejected_count == 0
    item = result.items[0]
    assert item.candidate.kind == "cloze" and "_____" in item.candidate.stem
    sentence = item.quotes[0]
    assert item.candidate.stem.replace("Fill in the blank: ", "").replace("_____", item.key) == sentence
    solver_prompt = " ".join(m["content"] for m in pipe.models.judge.solver.history[0])
    assert sentence not in solver_prompt, "the solver must not read the sentence that holds the key"
    assert pipe.models.verifier.history == [], "no model wrote the key, so the judge solves it"
    assert pipe.models.drafter.history == [], "cloze cards are made by code"
    stored = json.loads(pipe.store.query("SELECT item_json FROM quiz_items")[0][0])
    assert stored["quotes"] == [sentence] and stored["pages"] == item.pages and json.loads(stored["boxes"][0])


def test_a_wrong_fill_drops_the_card_and_the_next_sentence_replaces_it(pipe):
    pipe.models.judge.enqueue(knowing_solver(pipe, wrong=True), knowing_solver(pipe))
    result = pipe.quiz(pipe.doc.doc_id, 1, 4, count=1, kinds="cloze")
    assert len(result.items) == 1 and result.rejected == {"answer_mismatch": 1}
    assert result.tried == 2 and result.shortfall == ""


def test_multiple_choice_distractors_come_from_the_range_and_the_solver_must_pick_the_key(pipe):
    pipe.models.judge.enqueue(knowing_solver(pipe, wrong=True), knowing_solver(pipe))
    result = pipe.quiz(pipe.doc.doc_id, 1, 4, count=1, kinds="mcq")
    assert result.rejected == {"key_mismatch": 1} and len(result.items) == 1
    item = result.items[0].candidate
    assert len(item.options) == 4 and item.options[item.answer_index].lower() == result.items[0].key.lower()
    range_text = " ".join(" ".join(t.split()).lower() for (t,) in pipe.store.query(
        "SELECT text FROM chunks WHERE page_no BETWEEN 1 AND 4"))
    assert all(option.lower() in range_text for option in item.options), "distractors from the range"
    assert len({o.lower()[:5] for o in item.options}) == 4, "no distractor is a form of the key"


def test_a_short_answer_is_kept_when_the_solver_agrees_and_the_judge_finds_it_stated(pipe):
    pipe.models.drafter.enqueue(short())
    pipe.models.verifier.enqueue(agreeing_solver)
    result = pipe.quiz(pipe.doc.doc_id, 1, 4, count=1, kinds="short")
    assert len(result.items) == 1 and result.items[0].key == SEEN_KEYS[-1]
    assert result.items[0].quotes[0].startswith(SEEN_KEYS[-1])
    blind_prompt = " ".join(m["content"] for m in pipe.models.verifier.history[0])
    assert SEEN_KEYS[-1] not in blind_prompt.split("Question:")[1], "the key is never shown to the solver"
    drafted = pipe.models.drafter.history[0][-1]["content"]
    assert len(evidence_sentences(pipe.models.drafter.history[0])) <= 9, "its sentence and neighbours only"
    assert "states." in drafted
    assert pipe.models.judge.calls, "the key was judged against its sentence"


def test_a_short_answer_the_judge_does_not_find_stated_is_dropped(tmp_path):
    pipe = make_pipeline(tmp_path, judge=ContraryJudge())
    subject = pipe.create_subject("Mechanics")
    doc = pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", subject)
    pipe.models.drafter.enqueue(short())
    pipe.models.verifier.enqueue(agreeing_solver)
    result = pipe.quiz(doc.doc_id, 1, 4, count=1, kinds="short", budget_s=0)
    assert result.items == [] and result.rejected == {"key_unsupported": 1}


def test_a_stem_about_the_text_is_sent_back_once_with_the_reason(pipe):
    pipe.models.drafter.enqueue(short(stem="What is the main topic of the passage?"), short())
    pipe.models.verifier.enqueue(agreeing_solver)
    result = pipe.quiz(pipe.doc.doc_id, 1, 4, count=1, kinds="short")
    assert len(result.items) == 1 and result.items[0].candidate.stem == STEM
    retry = pipe.models.drafter.history[1][-1]["content"]
    assert "not about the text" in retry


@pytest.mark.parametrize("stem", ["economics", "Natural monopolies.", "Name it?"])
def test_a_stem_that_is_not_a_whole_question_is_sent_back_then_dropped(pipe, stem):
    pipe.models.drafter.enqueue(short(stem=stem), short(stem=stem))
    result = pipe.quiz(pipe.doc.doc_id, 1, 4, count=1, kinds="short", budget_s=0)
    assert result.items == [] and result.rejected == {"not_a_question": 1}
    assert "ending with a question mark" in pipe.models.drafter.history[1][-1]["content"]
    assert pipe.models.verifier.history == []


def test_a_key_not_in_its_cited_sentence_is_dropped_before_any_solver_call(pipe):
    pipe.models.drafter.enqueue(short(answer="photosynthesis makes sugar"),
                                short(answer="photosynthesis makes sugar"))
    result = pipe.quiz(pipe.doc.doc_id, 1, 4, count=1, kinds="short", budget_s=0)
    assert result.items == [] and result.rejected == {"uncovered_claim": 1}
    assert pipe.models.verifier.history == []


def test_each_kept_item_is_handed_over_before_the_next_candidate_is_tried(pipe):
    events: list[str] = []
    pipe.models.judge.enqueue(knowing_solver(pipe), knowing_solver(pipe))
    pipe.quiz(pipe.doc.doc_id, 1, 4, count=2, kinds="cloze",
              on_stage=lambda stage, n: events.append(f"{stage} {n}"),
              on_item=lambda item: events.append("kept"))
    assert events == ["draft 1", "check 1", "kept", "draft 2", "check 2", "kept"]


def test_the_time_budget_stops_the_search_and_says_how_many_were_found(pipe):
    ticks = iter(range(0, 1000, 50))
    pipe.models.judge.enqueue(knowing_solver(pipe, wrong=True), knowing_solver(pipe))
    doc = pipe.document(pipe.doc.doc_id)
    from citetutor.quiz import make_quiz
    from citetutor.retrieval import Scope
    result = make_quiz(pipe.gate, pipe.doc.doc_id, Scope(doc["subject_id"], (pipe.doc.doc_id,), (1, 4)),
                       count=3, kinds="cloze", budget_s=60, clock=lambda: next(ticks))
    assert result.stopped == "budget" and len(result.items) == 1
    assert result.shortfall.startswith("Found 1 of 3") and "60 s budget" in result.shortfall


def test_mixed_kinds_start_with_multiple_choice_and_each_kind_is_tried(pipe):
    pipe.models.judge.enqueue(knowing_solver(pipe), knowing_solver(pipe))
    pipe.models.verifier.enqueue(agreeing_solver)
    # The scripted key is its sentence's first four words ("The motions of the" planets around
    # the sun), so the stem must not hold them: a key restating the stem is refused.
    pipe.models.drafter.enqueue(short(stem="What goes around the sun on a nearly circular path?"))
    result = pipe.quiz(pipe.doc.doc_id, 1, 4, count=3)
    assert [i.candidate.kind for i in result.items] == ["mcq", "cloze", "short"]


def test_page_range_is_checked(pipe):
    with pytest.raises(InputError, match="page range"):
        pipe.quiz(pipe.doc.doc_id, 5, 2)
    with pytest.raises(InputError, match="no text"):
        pipe.quiz(pipe.doc.doc_id, 500, 600)


def test_source_sentences_come_only_from_the_page_range(pipe):
    pipe.models.drafter.enqueue("{}", "{}")
    pipe.quiz(pipe.doc.doc_id, 3, 4, count=1, kinds="short", budget_s=0)
    sentences = evidence_sentences(pipe.models.drafter.history[0])
    assert 1 <= len(sentences) <= 40
    page_text = " ".join(" ".join(t.split()) for _, t in pipe.store.query(
        "SELECT page_no, text FROM chunks WHERE page_no BETWEEN 3 AND 4 AND doc_id = ?",
        [pipe.doc.doc_id]))
    assert all(text in re.sub(r"\s+", " ", page_text) for _, text in sentences)


@pytest.mark.parametrize("stem", ["What is the main topic of the passage?",
                                  "What does the sentence state about the definition of a state?",
                                  "What type of motion is described in [S15]?"])
def test_stems_about_the_text_itself_are_recognised(stem):
    from citetutor.quiz import _ABOUT_THE_TEXT
    assert _ABOUT_THE_TEXT.search(stem)
    assert not _ABOUT_THE_TEXT.search("Why is the entropy change positive when a solid melts?")


def test_a_formula_key_is_sent_back_for_a_fact_in_words(pipe):
    pipe.models.drafter.enqueue(short(answer="Δr = 2r sin(Δθ / 2)",
                                      stem="What is the formula for the displacement vector?"), short())
    pipe.models.verifier.enqueue(agreeing_solver)
    result = pipe.quiz(pipe.doc.doc_id, 1, 4, count=1, kinds="short")
    assert len(result.items) == 1 and "=" not in result.items[0].key
    assert "not for a formula" in pipe.models.drafter.history[1][-1]["content"]


def test_the_last_places_go_to_kinds_not_yet_kept():
    from citetutor.quiz import QuizResult, _each_kind
    from citetutor.schemas import QuizCandidate
    result = QuizResult(asked=3)
    plan = [("cloze", 1), ("cloze", 2), ("mcq", 3), ("cloze", 4), ("short", 5), ("mcq", 6), ("cloze", 7)]
    order = []
    for kind, focus in _each_kind(iter(plan), result, 3, ("cloze", "mcq", "short")):
        order.append(focus)
        if focus == 1:  # one cloze kept: two places left, two kinds missing
            kept = QuizCandidate(kind=kind, stem="s", answer_text="k", sentences=[1])
            result.items.append(type("Kept", (), {"candidate": kept})())
    # Every try while places are tight uses patience (the first cloze too); once three are
    # spent, the clozes put off come back first.
    assert order == [1, 3, 5, 2, 4, 6, 7]


@pytest.mark.parametrize("key, formula", [("Δr = 2r sin(Δθ / 2)", True), ("√(a² + b²)", True),
                                          ("24", False), ("90%", False), ("$24", False),
                                          ("centripetal acceleration", False)])
def test_equations_are_formula_keys_and_values_are_not(key, formula):
    from citetutor.quiz import _formula
    assert _formula(key) is formula


def defining_solver(answer: str = ""):
    """A solver that names the term the evidence says a meaning is called, or answers `answer`;
    it fails the test if the evidence lacks the defining sentence."""
    def solve(messages):
        sentence = next(t for _, t in evidence_sentences(messages) if "is called centripetal" in t)
        return QuizBlindAnswer(answer_text=answer or sentence.split(" is called ")[1].rstrip("."), sentences=[1])
    return solve


def test_a_sentence_that_defines_a_term_becomes_a_short_answer_keyed_by_its_definition(pipe):
    pipe.models.judge.enqueue(defining_solver())
    result = pipe.quiz(pipe.doc.doc_id, 9, 12, count=1, kinds="short")
    assert len(result.items) == 1
    item = result.items[0]
    assert item.candidate.stem == "Which term means “Any radial inward acceleration”?"
    assert item.key == "centripetal acceleration" and item.pages == [10]
    assert pipe.models.drafter.history == [], "code made the card; no model drafted its key"
    question = pipe.models.judge.solver.history[0][-1]["content"].split("Question:")[1].split("\n")[0]
    assert item.key not in question, "the solver is never shown the key"


def test_a_definition_the_solver_answers_otherwise_is_dropped(pipe):
    pipe.models.judge.enqueue(defining_solver("tangential acceleration"))
    result = pipe.quiz(pipe.doc.doc_id, 9, 12, count=1, kinds="short", budget_s=0)
    assert result.items == [] and result.rejected == {"answer_mismatch": 1}


def test_a_table_of_contents_line_is_never_a_card_source():
    # The tutor's rule for a contents line (checks.contents_line) is the quiz's too, dots spaced
    # as LaTeX sets them ("Learning Goals . . . . 1") or not.
    from citetutor.quiz import _mostly_words
    prose = "The period T is the time the object takes to complete one full circle of its path."
    assert _mostly_words(prose)
    assert not _mostly_words("6.4 Period and Frequency for Uniform Circular Motion and its uses ........ 7")
    assert not _mostly_words("Learning Goals of this chapter on circular motion and gravity and orbits . . . . . 1")
