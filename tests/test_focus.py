"""A retry writes from the sentences the judge found answer the question, not from all twelve."""

from citetutor.focus import answering_sentences, focus
from citetutor.parts import closest_part, question_parts
from citetutor.schemas import Claim, Draft
from tests.fakes import HashEmbedder, OverlapJudge
from tests.helpers import blind_citing, evidence_sentences, numbered, quoting_draft, sentence_with
from tests.test_tutor_gate import QUESTION, pipe  # noqa: F401  (the gate fixture over a real PDF)

NOTES = numbered(
    "Sampling error shrinks as samples grow.",  # closest in meaning, but no answer to the question
    "A bigger sample gives smaller standard errors.",
    "Random assignment balances groups on average.",
    "Surveys ask questions of a sample.",
    "Standard errors measure how estimates vary.",
)


def _cosines(*values: float):
    return [s.__class__(s.number, s.hit, s.start, s.end, c) for s, c in zip(NOTES, values)]


def test_the_judge_ranks_the_closest_sentences_by_whether_they_answer():
    sentences = _cosines(0.9, 0.6, 0.5, 0.4, 0.3)
    ranked = answering_sentences(OverlapJudge(), HashEmbedder(), sentences,
                                 "Does a bigger sample give smaller standard errors?")
    assert [p.sentence.number for p in ranked[0]][:1] == [2]
    assert len(ranked[0]) == 4, "only the four sentences closest in meaning are asked about"
    assert 5 not in [p.sentence.number for p in ranked[0]]
    assert [s.number for s in focus(ranked, 1)] == [2]


def test_each_part_of_a_multi_part_question_gets_its_own_sentence_in_evidence_order():
    question = "What does random assignment balance, and how does a bigger sample change standard errors?"
    parts = question_parts(question)
    assert len(parts) == 2
    ranked = answering_sentences(OverlapJudge(), HashEmbedder(), _cosines(0.5, 0.5, 0.5, 0.5, 0.5),
                                 question, parts)
    assert len(ranked) == 2
    assert [s.number for s in focus(ranked, 1)] == [2, 3], "one per part, in the order they stand"


def test_a_multi_part_question_far_from_every_sentence_as_a_whole_is_judged_by_its_closest_part():
    embedder = HashEmbedder()
    question = "Who was the first king of Norway, and what does random assignment balance?"
    vectors = embedder.embed([question, *(s.text for s in NOTES)])
    whole = float((vectors[1:] @ vectors[0]).max())
    assert closest_part(embedder, question_parts(question), NOTES) > whole + 0.1
    assert closest_part(embedder, [question], NOTES) == 0.0, "a one-part question has no parts to try"


def test_a_retry_reads_only_the_sentence_the_judge_found_answers(pipe):  # noqa: F811
    def unfounded(messages):  # the drafter's own knowledge, citing a real sentence
        return Draft(claims=[Claim(text="Pirates sail the seven seas eastward.", sentences=[1])])
    pipe.models.drafter.enqueue(unfounded, quoting_draft())
    pipe.models.verifier.enqueue(blind_citing())
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "answered" and result.attempts == 2
    first, retry = pipe.models.drafter.history[0], pipe.models.drafter.history[1]
    assert len(evidence_sentences(first)) > 1
    inward, _ = sentence_with(first, "inward")
    assert [n for n, _ in evidence_sentences(retry)] == [inward]
    asked = [c for c in pipe.models.judge.calls if "answer this:" in c]
    assert 1 <= len(asked) <= 4, "the judge was asked about the closest sentences, once each"
    for judged in pipe.models.judge.history:  # the judge reads the first draft's evidence prefix
        assert judged[1]["content"].split("Task:")[0] == first[1]["content"].split("Task:")[0]


def test_the_first_attempt_reads_all_the_evidence_and_asks_the_judge_nothing(pipe):  # noqa: F811
    pipe.models.drafter.enqueue(quoting_draft())
    pipe.models.verifier.enqueue(blind_citing())
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "answered" and result.attempts == 1
    assert not [c for c in pipe.models.judge.calls if "answer this:" in c]
    assert "focus" not in [s["name"] for s in result.spans]
