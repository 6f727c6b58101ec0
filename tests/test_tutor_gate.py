"""The answer gate with scripted Gemma/Qwen stand-ins over a real ingested PDF."""

from pathlib import Path

import pytest

from citetutor.config import NOT_ENOUGH_EVIDENCE
from citetutor.errors import InputError
from citetutor.schemas import BlindSolve, Claim, Draft, Quantity, SupportVerdict
from tests.corpus import MIT, corpus_file
from tests.helpers import make_pipeline

QUESTION = "What is the direction of the acceleration for uniform circular motion?"


@pytest.fixture
def pipe(tmp_path):
    pipe = make_pipeline(tmp_path)
    pipe.subject_id = pipe.create_subject("Mechanics")
    pipe.doc = pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", pipe.subject_id)
    return pipe


def _evidence_ids(messages) -> list[str]:
    """Chunk IDs exactly as the prompt presented them."""
    import re
    return re.findall(r"^\[([^\]]+)\] \(page", messages[-1]["content"], re.MULTILINE)


def good_draft(messages) -> Draft:
    first = _evidence_ids(messages)[0]
    return Draft(answer="It points toward the centre of the circle.",
                 claims=[Claim(text="The acceleration is directed radially inward.", chunk_ids=[first])])


BLIND = BlindSolve(answerable=True, answer="Radially inward, toward the centre.", chunk_ids=[])
PASS = SupportVerdict(relevant=True, agrees_with_blind=True, unsupported_claims=[], reason="ok")


def test_verified_answer_carries_citations_resolved_by_code(pipe):
    pipe.models.drafter.enqueue(good_draft)
    pipe.models.verifier.enqueue(BLIND, PASS)
    stages = []
    result = pipe.ask(QUESTION, pipe.subject_id, on_stage=lambda s, a: stages.append(s))
    assert result.status == "answered" and result.attempts == 1
    cite = result.citations[0]
    assert cite.doc_id == pipe.doc.doc_id and cite.page_no == int(cite.chunk_id.split("-p")[1].split("-")[0])
    assert stages[:3] == ["retrieve", "blind_solve", "draft"] and "support_check" in stages
    names = [s["name"] for s in result.spans]
    assert {"retrieve", "draft", "blind_solve", "support_check"} <= set(names)
    assert all(s["duration_ms"] >= 0 for s in result.spans)


def test_blind_solve_never_sees_the_draft_or_learner_notes(pipe):
    pipe.models.drafter.enqueue(good_draft)
    pipe.models.verifier.enqueue(BLIND, PASS)
    pipe.ask(QUESTION, pipe.subject_id, learner_notes="NOTES-CANARY explain like a pirate")
    blind_prompt = " ".join(m["content"] for m in pipe.models.verifier.history[0])
    assert "NOTES-CANARY" not in blind_prompt and "toward the centre of the circle" not in blind_prompt
    assert "NOTES-CANARY" in pipe.models.drafter.history[0][-1]["content"], "notes reach only the drafter"


def test_unknown_chunk_id_is_rejected_and_retried_with_reason(pipe):
    bad = Draft(answer="Inward.", claims=[Claim(text="Inward.", chunk_ids=["made-up-p99-c0"])])
    pipe.models.drafter.enqueue(bad, good_draft)
    pipe.models.verifier.enqueue(BLIND, PASS)
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "answered" and result.attempts == 2
    assert result.reasons == ["unknown_chunk_id"]
    retry_prompt = pipe.models.drafter.history[1][-1]["content"]
    assert "not in the evidence" in retry_prompt and "made-up-p99-c0" in retry_prompt
    assert len(pipe.models.verifier.history) == 2, "the rejected draft never reached the support check"


def test_three_failed_attempts_refuse_and_hide_every_draft(pipe):
    pipe.models.drafter.enqueue(good_draft, good_draft, good_draft)
    disagree = SupportVerdict(relevant=True, agrees_with_blind=False, unsupported_claims=[], reason="no")
    pipe.models.verifier.enqueue(BLIND, disagree, disagree, disagree)
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "refused" and result.text == NOT_ENOUGH_EVIDENCE
    assert result.attempts == 3 and result.reasons == ["blind_disagrees"] * 3
    assert result.citations == [] and "centre of the circle" not in result.text
    assert [s["name"] for s in result.spans].count("rejection") == 3


def test_unsupported_claim_and_schema_errors_are_rejections(pipe):
    pipe.models.drafter.enqueue("{not json", good_draft, good_draft)
    unsupported = SupportVerdict(relevant=True, agrees_with_blind=True, unsupported_claims=[0], reason="x")
    pipe.models.verifier.enqueue(BLIND, unsupported, PASS)
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "answered" and result.reasons == ["schema_invalid", "unsupported_claim"]


def test_question_without_support_is_refused_without_model_calls(pipe):
    result = pipe.ask("zyxwv qqqq blorft", pipe.subject_id)
    assert result.status == "refused" and result.text == NOT_ENOUGH_EVIDENCE
    assert pipe.models.drafter.history == [] and pipe.models.verifier.history == []


def test_blind_unanswerable_refuses(pipe):
    pipe.models.drafter.enqueue(good_draft)
    pipe.models.verifier.enqueue(BlindSolve(answerable=False, answer="", chunk_ids=[]))
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "refused" and result.reasons == ["blind_unanswerable"]


def test_value_and_unit_request_needs_quantity_in_cited_text(pipe):
    def with_quantity(value):
        def build(messages):
            draft = good_draft(messages)
            draft.quantity = Quantity(value=value, unit="m/s")
            return draft
        return build
    pipe.models.drafter.enqueue(good_draft, with_quantity("123456.789"), with_quantity("123456.789"))
    pipe.models.verifier.enqueue(BLIND)
    result = pipe.ask("Calculate the value of the speed in m/s", pipe.subject_id)
    assert result.status == "refused"
    assert result.reasons == ["quantity_missing", "quantity_not_in_evidence", "quantity_not_in_evidence"]


def test_serial_mode_gives_same_result(tmp_path):
    pipe = make_pipeline(tmp_path, parallel_blind_solve=False)
    subject = pipe.create_subject("Mechanics")
    pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", subject)
    pipe.models.drafter.enqueue(good_draft)
    pipe.models.verifier.enqueue(BLIND, PASS)
    assert pipe.ask(QUESTION, subject).status == "answered"


def test_empty_question_is_an_input_error(pipe):
    with pytest.raises(InputError, match="Type a question"):
        pipe.ask("   ", pipe.subject_id)


def test_requests_are_traced_with_outcome(pipe):
    pipe.models.drafter.enqueue(good_draft)
    pipe.models.verifier.enqueue(BLIND, PASS)
    result = pipe.ask(QUESTION, pipe.subject_id)
    row = [r for r in pipe.recent_requests() if r["id"] == result.request_id][0]
    assert (row["kind"], row["outcome"], row["attempts"]) == ("tutor", "answered", 1)
    assert len(pipe.request_spans(result.request_id)) == len(result.spans)


def test_worked_quantity_found_in_cited_text_passes(tmp_path):
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("Mechanics")
    fixture = Path(__file__).resolve().parents[1] / "assets" / "mechanics-fixture.pdf"
    pipe.upload(fixture.read_bytes(), "mechanics-fixture.pdf", subject)

    def draft(messages):
        ids = _evidence_ids(messages)
        cite = next(i for i in ids if "-p2-" in i)
        return Draft(answer="F = m a gives 12 N / 3.0 kg.", quantity=Quantity(value="4.0", unit="m/s^2"),
                     claims=[Claim(text="The cart accelerates at 4.0 m/s^2.", chunk_ids=[cite])])
    pipe.models.drafter.enqueue(draft)
    pipe.models.verifier.enqueue(BLIND, PASS)
    result = pipe.ask("Calculate the acceleration of the 3.0 kg cart pushed with 12 N", subject)
    assert result.status == "answered" and result.quantity == "4.0 m/s^2"
    assert result.citations[0].page_no == 2


def test_repeated_question_is_served_from_cache_without_model_calls(pipe):
    pipe.models.drafter.enqueue(good_draft)
    pipe.models.verifier.enqueue(BLIND, PASS)
    first = pipe.ask(QUESTION, pipe.subject_id)
    again = pipe.ask("  " + QUESTION.upper() + " ", pipe.subject_id)
    assert again.status == "answered" and again.text == first.text
    assert [c.chunk_id for c in again.citations] == [c.chunk_id for c in first.citations]
    assert len(pipe.models.drafter.history) == 1 and len(pipe.models.verifier.history) == 2
    assert [s["outcome"] for s in again.spans if s["name"] == "cache"] == ["hit"]
    # Different learner notes change the wording, so they must miss the cache.
    pipe.models.drafter.enqueue(good_draft)
    pipe.models.verifier.enqueue(BLIND, PASS)
    assert pipe.ask(QUESTION, pipe.subject_id, learner_notes="short please").status == "answered"
    assert len(pipe.models.drafter.history) == 2


def test_claim_not_stated_in_its_chunk_is_rejected_by_code(pipe):
    def invented(messages):
        return Draft(answer="Invented.", claims=[Claim(text="Photosynthesis converts sunlight into sugar",
                                                      chunk_ids=[_evidence_ids(messages)[0]])])
    pipe.models.drafter.enqueue(invented, good_draft)
    pipe.models.verifier.enqueue(BLIND, PASS)
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "answered" and result.reasons == ["unsupported_claim"]
    assert len(pipe.models.verifier.history) == 2, "the invented claim never reached the verifier"


def test_hint_for_a_value_question_needs_no_quantity(pipe):
    pipe.models.drafter.enqueue(good_draft)
    pipe.models.verifier.enqueue(BLIND, PASS)
    result = pipe.ask("Calculate the value of the speed in m/s", pipe.subject_id, mode="hint")
    assert result.status == "answered" and result.quantity is None
    assert "hint" in pipe.models.drafter.history[0][-1]["content"]
