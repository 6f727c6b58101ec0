"""The quiz gate: literal quotes, re-retrieval, a blind solve that never sees the key."""

import re

import pytest

from citetutor.errors import InputError
from citetutor.schemas import (AgreementVerdict, KeySupportVerdict, QuizBatch, QuizBlindAnswer,
                               QuizCandidate)
from tests.corpus import MIT, corpus_file
from tests.helpers import make_pipeline

KEY = "KEY-CANARY toward the centre"
RATIONALE = "RATIONALE-CANARY the notes say so"


@pytest.fixture
def pipe(tmp_path):
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("Mechanics")
    pipe.doc = pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", subject)
    return pipe


def _source(messages) -> tuple[str, str]:
    """First chunk ID in the prompt and a real sentence (with its line breaks) from it."""
    body = messages[-1]["content"]
    match = re.search(r"^\[([^\]]+)\] \(page \d+\)\n(.+?)(?=\n\n\[|\Z)", body, re.MULTILINE | re.DOTALL)
    text = match.group(2)
    return match.group(1), text[40:160]


def mcq(quote_ok=True, key_index=1):
    def build(messages):
        cid, quote = _source(messages)
        quote = quote.replace("\n", " ") if quote_ok else quote + " invented words"
        return QuizCandidate(kind="mcq", stem="In uniform circular motion, where does the acceleration point?",
                             options=["outward", KEY, "along the velocity", "nowhere"],
                             answer_index=key_index, answer_text=KEY, rationale=RATIONALE,
                             source_chunk_ids=[cid], quotes=[quote])
    return build


def batch(*builders):
    return lambda messages: QuizBatch(items=[b(messages) for b in builders])


def test_good_mcq_is_kept_and_solver_never_sees_the_key(pipe):
    pipe.models.drafter.enqueue(batch(mcq()))
    pipe.models.verifier.enqueue(QuizBlindAnswer(answerable=True, choice_index=1, answer_text="centre"),
                                 KeySupportVerdict(supported=True, reason="ok"))
    result = pipe.quiz(pipe.doc.doc_id, 1, 4, count=1)
    assert len(result.items) == 1 and result.rejected_count == 0
    blind_prompt = " ".join(m["content"] for m in pipe.models.verifier.history[0])
    assert "RATIONALE-CANARY" not in blind_prompt
    assert "answer_index" not in blind_prompt and "Key:" not in blind_prompt
    stored = pipe.store.query("SELECT count(*) FROM quiz_items")[0][0]
    assert stored == 1


def test_invented_quote_is_rejected_before_any_verifier_call(pipe):
    pipe.models.drafter.enqueue(batch(mcq(quote_ok=False)))
    result = pipe.quiz(pipe.doc.doc_id, 1, 4, count=1)
    assert result.items == [] and result.rejected == {"quote_not_literal": 1}
    assert pipe.models.verifier.history == []


def test_solver_choosing_another_option_rejects_the_item(pipe):
    pipe.models.drafter.enqueue(batch(mcq(), mcq()))
    pipe.models.verifier.enqueue(
        QuizBlindAnswer(answerable=True, choice_index=0, answer_text="outward"),
        QuizBlindAnswer(answerable=True, choice_index=1, answer_text="centre"),
        KeySupportVerdict(supported=False, reason="not stated"))
    result = pipe.quiz(pipe.doc.doc_id, 1, 4, count=2)
    assert result.items == []
    assert result.rejected == {"key_mismatch": 1, "key_unsupported": 1}


def test_short_answer_needs_semantic_agreement(pipe):
    def short(messages):
        item = mcq()(messages)
        return item.model_copy(update={"kind": "short", "options": [], "answer_index": None})
    pipe.models.drafter.enqueue(batch(short, short))
    pipe.models.verifier.enqueue(
        QuizBlindAnswer(answerable=True, answer_text="towards the middle"), AgreementVerdict(agrees=True, reason="same"),
        KeySupportVerdict(supported=True, reason="ok"),
        QuizBlindAnswer(answerable=True, answer_text="outward"), AgreementVerdict(agrees=False, reason="differs"))
    result = pipe.quiz(pipe.doc.doc_id, 1, 4, count=2)
    assert len(result.items) == 1 and result.rejected == {"answer_mismatch": 1}


def test_unknown_source_chunk_and_bad_mcq_are_rejected(pipe):
    def unknown(messages):
        return mcq()(messages).model_copy(update={"source_chunk_ids": ["zz-p1-c0"]})
    pipe.models.drafter.enqueue(batch(unknown, mcq(key_index=9)))
    result = pipe.quiz(pipe.doc.doc_id, 1, 4, count=2)
    assert result.rejected == {"unknown_chunk_id": 1, "schema_invalid": 1}


def test_page_range_is_checked(pipe):
    with pytest.raises(InputError, match="page range"):
        pipe.quiz(pipe.doc.doc_id, 5, 2)
    with pytest.raises(InputError, match="no text"):
        pipe.quiz(pipe.doc.doc_id, 500, 600)


def test_source_chunks_come_only_from_the_page_range(pipe):
    pipe.models.drafter.enqueue(QuizBatch(items=[]))
    pipe.quiz(pipe.doc.doc_id, 3, 4, count=1)
    pages = re.findall(r"\(page (\d+)\)", pipe.models.drafter.history[0][-1]["content"])
    assert pages and set(pages) <= {"3", "4"}
