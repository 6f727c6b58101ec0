"""The quiz gate: cited sentences, re-retrieval, a blind solve that never sees the key."""

import json
import re

import pytest

from citetutor.errors import InputError
from citetutor.schemas import KeySupportVerdict, QuizBlindAnswer, QuizCandidate
from tests.corpus import MIT, corpus_file
from tests.helpers import evidence_sentences, make_pipeline, sentence_with

STEM = "In uniform circular motion, where does the acceleration point?"
KEY = "directed radially inward (KEYCANARY)"
SUPPORTED = KeySupportVerdict(why="the sentence says so", supported=True)


@pytest.fixture
def pipe(tmp_path):
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("Mechanics")
    pipe.doc = pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", subject)
    return pipe


def mcq(key_index=1, key=KEY, word="inward"):
    """An MCQ whose keyed option cites the source sentence containing `word`."""
    def build(messages):
        number, _ = sentence_with(messages, word)
        options = ["outward", "along the velocity", "nowhere"]
        options.insert(min(key_index, 3), key)
        return QuizCandidate(stem=STEM, kind="mcq", options=options, answer_index=key_index,
                             answer_text=key, sentences=[number])
    return build


def short(answer="radially inward"):
    def build(messages):
        number, _ = sentence_with(messages, "inward")
        return QuizCandidate(stem=STEM, kind="short", answer_text=answer, sentences=[number])
    return build


def test_good_mcq_is_kept_with_its_quote_and_the_solver_never_sees_the_key(pipe):
    pipe.models.drafter.enqueue(mcq())
    pipe.models.verifier.enqueue(QuizBlindAnswer(answer_text="inward", choice_index=1, sentences=[1]),
                                 SUPPORTED)
    result = pipe.quiz(pipe.doc.doc_id, 1, 4, count=1)
    assert len(result.items) == 1 and result.rejected_count == 0
    item = result.items[0]
    _, quote = sentence_with(pipe.models.drafter.history[0], "inward")
    assert item.quotes == [quote] and item.key == KEY and item.pages
    blind_prompt = " ".join(m["content"] for m in pipe.models.verifier.history[0])
    assert "Proposed answer" not in blind_prompt and "answer_index" not in blind_prompt
    assert "KEYCANARY" in blind_prompt, "as one of the options, never marked as the key"
    assert f"Proposed answer: {KEY}" in pipe.models.verifier.history[1][-1]["content"]
    stored = json.loads(pipe.store.query("SELECT item_json FROM quiz_items")[0][0])
    assert stored["quotes"] == [quote] and stored["pages"] == item.pages


def test_key_not_in_its_cited_sentence_is_rejected_before_any_verifier_call(pipe):
    pipe.models.drafter.enqueue(mcq(key="photosynthesis makes sugar"))
    result = pipe.quiz(pipe.doc.doc_id, 1, 4, count=1)
    assert result.items == [] and result.rejected == {"uncovered_claim": 1}
    assert pipe.models.verifier.history == []


def test_solver_choosing_another_option_or_unsupported_key_rejects_the_item(pipe):
    pipe.models.drafter.enqueue(mcq(), mcq())
    pipe.models.verifier.enqueue(
        QuizBlindAnswer(answer_text="outward", choice_index=0, sentences=[2]),
        QuizBlindAnswer(answer_text="inward", choice_index=1, sentences=[1]),
        KeySupportVerdict(why="not stated", supported=False))
    result = pipe.quiz(pipe.doc.doc_id, 1, 4, count=2, kinds="mcq")
    assert result.items == []
    assert result.rejected == {"key_mismatch": 1, "key_unsupported": 1}


def test_short_answer_needs_the_same_meaning_from_the_blind_solver(pipe):
    pipe.models.drafter.enqueue(short(), short())
    pipe.models.verifier.enqueue(
        QuizBlindAnswer(answer_text="it points radially inward", sentences=[1]), SUPPORTED,
        QuizBlindAnswer(answer_text="photosynthesis", sentences=[1]))
    result = pipe.quiz(pipe.doc.doc_id, 1, 4, count=2, kinds="short")
    assert len(result.items) == 1 and result.rejected == {"answer_mismatch": 1}


def test_unknown_sentence_and_bad_mcq_are_rejected(pipe):
    def unknown(messages):
        return mcq()(messages).model_copy(update={"sentences": [99]})
    pipe.models.drafter.enqueue(unknown, mcq(key_index=9))
    result = pipe.quiz(pipe.doc.doc_id, 1, 4, count=2, kinds="mcq")
    assert result.rejected == {"unknown_sentence": 1, "schema_invalid": 1}


def test_page_range_is_checked(pipe):
    with pytest.raises(InputError, match="page range"):
        pipe.quiz(pipe.doc.doc_id, 5, 2)
    with pytest.raises(InputError, match="no text"):
        pipe.quiz(pipe.doc.doc_id, 500, 600)


def test_one_candidate_per_call_each_about_its_own_sentence(pipe):
    pipe.models.drafter.enqueue("{not json", short(), mcq())  # mixed: mcq, short, mcq
    pipe.models.verifier.enqueue(QuizBlindAnswer(answer_text="radially inward", sentences=[1]), SUPPORTED,
                                 QuizBlindAnswer(answer_text="inward", choice_index=1, sentences=[1]),
                                 SUPPORTED)
    result = pipe.quiz(pipe.doc.doc_id, 1, 4, count=3)
    assert len(result.items) == 2, "a malformed candidate is dropped, the others still come"
    assert result.rejected == {"schema_invalid": 1}
    asks = [m[-1]["content"].rsplit("\n", 1)[1] for m in pipe.models.drafter.history]
    assert len(set(asks)) == 3 and all(re.fullmatch(r"Write one .+ question whose answer \[S\d+\] states\.", a)
                                       for a in asks)
    assert "multiple-choice" in asks[0] and "short-answer" in asks[1], "mixed kinds alternate"
    prefix = pipe.models.drafter.history[0][-1]["content"].rsplit("\n", 1)[0]
    assert all(m[-1]["content"].startswith(prefix) for m in pipe.models.drafter.history), "shared prefix"


def test_source_sentences_come_only_from_the_page_range(pipe):
    pipe.models.drafter.enqueue("{}")
    pipe.quiz(pipe.doc.doc_id, 3, 4, count=1)
    sentences = evidence_sentences(pipe.models.drafter.history[0])
    assert 1 <= len(sentences) <= 24
    page_text = " ".join(" ".join(t.split()) for _, t in pipe.store.query(
        "SELECT page_no, text FROM chunks WHERE page_no BETWEEN 3 AND 4 AND doc_id = ?",
        [pipe.doc.doc_id]))
    assert all(text in re.sub(r"\s+", " ", page_text) for _, text in sentences)


def test_the_blind_solver_reads_evidence_found_again_from_the_stem_alone(pipe):
    def unrelated_stem(messages):
        number, _ = sentence_with(messages, "inward")
        return QuizCandidate(stem="zyxwv qqqq blorft?", kind="short", answer_text="radially inward",
                             sentences=[number])
    pipe.models.drafter.enqueue(unrelated_stem)
    result = pipe.quiz(pipe.doc.doc_id, 1, 4, count=1, kinds="short")
    assert result.rejected == {"blind_unanswerable": 1} and not result.items
    assert pipe.models.verifier.history == [], "nothing matches the stem, so no solver call"


def test_progress_names_each_question_as_it_is_drafted_then_checked(pipe):
    pipe.models.drafter.enqueue(mcq(), short())
    pipe.models.verifier.enqueue(QuizBlindAnswer(answer_text="inward", choice_index=1, sentences=[1]),
                                 SUPPORTED, QuizBlindAnswer(answer_text="radially inward", sentences=[1]),
                                 SUPPORTED)
    seen: list[tuple[str, int]] = []
    pipe.quiz(pipe.doc.doc_id, 1, 4, count=2, on_stage=lambda stage, n: seen.append((stage, n)))
    assert seen == [("draft", 1), ("draft", 2), ("check", 1), ("check", 2)]
