"""The answer gate with scripted drafter/verifier stand-ins over a real ingested PDF."""

import json
from pathlib import Path

import pytest

from citetutor import prompts
from citetutor.checks import asks_for_value, new_words
from citetutor.config import NOT_ENOUGH_EVIDENCE
from citetutor.errors import InputError
from citetutor.evidence import stems
from citetutor.models.base import Choice
from citetutor.quotes import asks, doubled
from citetutor.schemas import BLIND_ANSWER_CHARS, BlindSolve, Claim, Draft
from tests.corpus import MIT, corpus_file
from tests.fakes import ContraryJudge, OverlapJudge
from tests.helpers import (
    blind_citing,
    claiming,
    copying_nothing,
    evidence_sentences,
    make_pipeline,
    page_of,
    quoting_draft,
    sentence_with,
)

QUESTION = "What is the direction of the acceleration for uniform circular motion?"


@pytest.fixture
def pipe(tmp_path):
    pipe = make_pipeline(tmp_path)
    pipe.subject_id = pipe.create_subject("Mechanics")
    pipe.doc = pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", pipe.subject_id)
    return pipe


def test_verified_answer_cites_sentences_resolved_by_code(pipe):
    pipe.models.drafter.enqueue(quoting_draft())
    pipe.models.verifier.enqueue(blind_citing())
    stages = []
    result = pipe.ask(QUESTION, pipe.subject_id, on_stage=lambda s, a: stages.append(s))
    assert result.status == "answered" and result.attempts == 1
    cite = result.citations[0]
    _, quoted = sentence_with(pipe.models.drafter.history[0], "inward")
    assert cite.doc_id == pipe.doc.doc_id and cite.text == quoted
    assert cite.page_no == page_of(pipe.store, quoted)
    assert result.text == quoted[:240].strip() and result.claims[0][1] == ["S" + str(
        sentence_with(pipe.models.drafter.history[0], "inward")[0])]
    # A claim copied word for word from its sentence has nothing for the meaning judge to decide.
    assert stages[:3] == ["retrieve", "blind_solve", "draft"] and "support_check" not in stages
    assert {"retrieve", "draft", "blind_solve"} <= {s["name"] for s in result.spans}


def test_highlight_boxes_cover_only_the_cited_sentence(pipe):
    pipe.models.drafter.enqueue(quoting_draft())
    pipe.models.verifier.enqueue(blind_citing())
    cite = pipe.ask(QUESTION, pipe.subject_id).citations[0]
    chunk_boxes = json.loads(pipe.store.query("SELECT bboxes FROM chunks WHERE id = ?", [cite.chunk_id])[0][0])
    boxes = json.loads(cite.bboxes)
    assert 1 <= len(boxes) <= 5 < len(chunk_boxes), "a sentence spans a few lines, not the chunk's"
    top, bottom = min(b[1] for b in boxes), max(b[3] for b in boxes)
    assert bottom - top < 90, "the boxes sit together on the page"


def test_evidence_is_numbered_sentences_with_pages(pipe):
    pipe.models.drafter.enqueue(quoting_draft())
    pipe.models.verifier.enqueue(blind_citing())
    pipe.ask(QUESTION, pipe.subject_id)
    sentences = evidence_sentences(pipe.models.drafter.history[0])
    assert [n for n, _ in sentences] == list(range(1, len(sentences) + 1))
    assert 3 <= len(sentences) <= pipe.settings.limits.evidence_sentences
    assert len({t for _, t in sentences}) == len(sentences), "chunk overlaps are not repeated"
    assert "(p." not in pipe.models.drafter.history[0][-1]["content"], "pages are resolved by code"


def test_blind_solve_never_sees_the_draft_or_learner_notes(pipe):
    pipe.models.drafter.enqueue(quoting_draft())
    pipe.models.verifier.enqueue(blind_citing())
    pipe.ask(QUESTION, pipe.subject_id, learner_notes="NOTES-CANARY explain like a pirate")
    blind_prompt = " ".join(m["content"] for m in pipe.models.verifier.history[0])
    assert "NOTES-CANARY" not in blind_prompt and "claims" not in blind_prompt
    assert "NOTES-CANARY" in pipe.models.drafter.history[0][-1]["content"], "notes reach only the drafter"


def test_the_judge_reads_the_drafts_prompt_up_to_its_task_so_the_kv_cache_is_reused(pipe):
    pipe.models.drafter.enqueue(quoting_draft(reworded=True))
    pipe.models.verifier.enqueue(blind_citing())
    pipe.ask(QUESTION, pipe.subject_id)
    draft = pipe.models.drafter.history[0]
    assert pipe.models.judge.history, "a reworded claim with a flippable word is judged"
    for judged in pipe.models.judge.history:
        assert judged[:-1] == draft[:-1], "every turn before the task, as the drafter read it"
        task_start = draft[-1]["content"].index("Task:")
        assert judged[-1]["content"][:task_start] == draft[-1]["content"][:task_start]


def test_unknown_sentence_is_rejected_and_retried_with_reason(pipe):
    pipe.models.drafter.enqueue(Draft(claims=[Claim(text="Inward.", sentences=[99])]), quoting_draft())
    pipe.models.verifier.enqueue(blind_citing())
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "answered" and result.attempts == 2
    assert result.reasons == ["unknown_sentence"]
    retry_prompt = pipe.models.drafter.history[1][-1]["content"]
    assert "not in the evidence" in retry_prompt and "S99" in retry_prompt
    assert not any("A: Inward." in t or "B: Inward." in t or "Statement: Inward." in t
                   for t in pipe.models.judge.calls), "the rejected draft never reached the judge"


def test_a_claim_cited_to_a_neighbour_of_the_sentence_holding_all_its_words_is_cited_there(pipe):
    def neighbour_cited(messages):
        _, text = sentence_with(messages, "inward")
        other = next(n for n, t in evidence_sentences(messages) if "inward" not in t.lower())
        return Draft(claims=[Claim(text=text[:240], sentences=[other])])
    pipe.models.drafter.enqueue(neighbour_cited)
    pipe.models.verifier.enqueue(blind_citing())
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "answered" and result.attempts == 1 and result.reasons == []
    inward, text = sentence_with(pipe.models.drafter.history[0], "inward")
    assert result.claims[0][1] == [f"S{inward}"] and result.citations[0].text == text


def test_claim_partly_in_another_sentence_is_rejected_naming_the_sentence_with_its_words(pipe):
    def wrong_sentence(messages):
        _, text = sentence_with(messages, "inward")
        other = next(n for n, t in evidence_sentences(messages) if "inward" not in t.lower())
        # One word no sentence holds: code cannot re-cite it, only point at its source.
        return Draft(claims=[Claim(text=text[:200] + " Photosynthesis.", sentences=[other])])
    pipe.models.drafter.enqueue(wrong_sentence, quoting_draft())
    pipe.models.verifier.enqueue(blind_citing())
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "answered" and result.reasons == ["uncovered_claim"]
    inward, text = sentence_with(pipe.models.drafter.history[0], "inward")
    assert f"S{inward} says" in pipe.models.drafter.history[1][-1]["content"]
    assert result.claims[0][1] == [f"S{inward}"], "the drafter's own corrected citation"


def test_answer_with_words_from_nowhere_is_rejected_by_code(pipe):
    def invented(messages):
        number, text = sentence_with(messages, "inward")
        return Draft(claims=[Claim(text=text[:120], sentences=[number]),
                             Claim(text="Photosynthesis converts sunlight into sugar.", sentences=[number])])
    pipe.models.drafter.enqueue(invented, invented, invented)
    pipe.models.verifier.enqueue(blind_citing())
    result = pipe.ask(QUESTION, pipe.subject_id)
    # The same draft again would be rejected again: the gate asks instead for the notes' own
    # sentences, and of that copy keeps only what is word for word a sentence.
    assert result.reasons == ["uncovered_claim", "repeated_draft"]
    assert len(pipe.models.drafter.history) == 3
    assert pipe.models.drafter.history[2][-1]["content"].endswith(prompts.DRAFT_COPY)
    assert len(pipe.models.verifier.history) == 1, "no invented sentence reached the verifier"
    # Shown: the whole sentence the copy was cut from, in the notes' words, as a quote.
    _, sentence = sentence_with(pipe.models.drafter.history[0], "inward")
    assert result.form == "quote" and result.text == sentence and "Photosynthesis" not in result.text


def test_a_copy_in_its_own_words_after_a_repeat_is_never_shown(pipe):
    made_up = claiming("Circular motion always points towards the middle of the circle.")
    pipe.models.drafter.enqueue(made_up, made_up, claiming("Photosynthesis converts sunlight into sugar."))
    pipe.models.verifier.enqueue(BlindSolve(answer="Photosynthesis converts sunlight into sugar.", sentences=[7]))
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert len(pipe.models.drafter.history) == 3 and result.status == "refused"
    assert result.reasons[-1] == "repeated_draft"


def test_a_hint_is_not_copied_out_after_a_repeat(pipe):
    made_up = claiming("Think about photosynthesis and sunlight.")
    pipe.models.drafter.enqueue(made_up, made_up)
    pipe.models.verifier.enqueue(blind_citing())
    result = pipe.ask(QUESTION, pipe.subject_id, mode="hint")
    assert len(pipe.models.drafter.history) == 2, "no copy request: it would give the answer away"
    assert result.reasons == ["uncovered_claim", "repeated_draft"]


def test_a_copied_sentence_needs_a_blind_answer_to_agree_with(pipe):
    made_up = claiming("Photosynthesis converts sunlight into sugar.")
    pipe.models.drafter.enqueue(made_up, made_up, quoting_draft())
    # A slide title copied as the blind "answer": the solver found no answer.
    pipe.models.verifier.enqueue(BlindSolve(answer="Uniform Circular Motion", sentences=[1, 2, 3]))
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert len(pipe.models.drafter.history) == 3 and result.status == "refused"


def test_number_not_in_cited_sentence_is_rejected(pipe):
    def padded(messages):
        number, text = sentence_with(messages, "inward")
        return Draft(claims=[Claim(text=text[:200] + " It is 42 m/s.", sentences=[number])])
    pipe.models.drafter.enqueue(padded, quoting_draft())
    pipe.models.verifier.enqueue(blind_citing())
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "answered" and result.reasons == ["number_not_in_evidence"]


def test_three_rejected_drafts_are_never_shown_and_the_agreed_sentence_is_quoted(tmp_path):
    pipe = _pipe_with(tmp_path, ContraryJudge())
    pipe.models.drafter.enqueue(*(quoting_draft(drop_words=n, reworded=True) for n in range(3)), copying_nothing)
    pipe.models.verifier.enqueue(blind_citing())
    result = pipe.ask(QUESTION, pipe.subject_id)
    number, sentence = sentence_with(pipe.models.drafter.history[0], "inward")
    assert result.attempts == 3 and result.reasons == ["unsupported_claim"] * 3
    # No model wording passed; drafter and blind solver both chose this sentence: it is shown
    # verbatim, labelled as the notes' own words, with its page and lines.
    assert result.status == "answered" and result.form == "quote" and result.text == sentence
    assert result.claims == [(sentence, [f"S{number}"])]
    assert [c.page_no for c in result.citations] == [page_of(pipe.store, sentence)]
    assert [s["name"] for s in result.spans].count("rejection") == 3


# The 0.5B solver's habit: a run of numbers, S1-S3 (the head of the ranking) or S2-S4,
# whatever the question. A drafter citing one of them has not agreed with anything.
@pytest.mark.parametrize("cited, picked, answer", [(2, [1, 2, 3], "It points inward."),
                                                   (3, [2, 3, 4], "Regulating options")])
def test_a_blind_pick_of_a_run_of_numbers_is_no_agreement_to_quote(tmp_path, cited, picked, answer):
    def cite(messages):  # a drafter citing a sentence the blind solver "picked" too
        return Draft(claims=[Claim(text=dict(evidence_sentences(messages))[cited][:200], sentences=[cited])])
    pipe = _pipe_with(tmp_path, ContraryJudge())
    pipe.models.drafter.enqueue(cite, cite, cite)
    pipe.models.verifier.enqueue(BlindSolve(answer=answer, sentences=picked))
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "refused" and result.citations == []


def test_a_blind_answer_the_drafters_sentence_states_is_agreement_to_quote(tmp_path):
    # The 0.5B's habit: it cites S1-S3 whatever it read, but copies its answer from the
    # sentence that holds it. That sentence, cited by the drafter too, is quoted.
    def blind_from_inward(messages):
        _, text = sentence_with(messages, "inward")
        return BlindSolve(answer=text[:150], sentences=[1, 2, 3])
    pipe = _pipe_with(tmp_path, ContraryJudge())
    pipe.models.drafter.enqueue(*(quoting_draft(drop_words=n, reworded=True) for n in range(3)), copying_nothing)
    pipe.models.verifier.enqueue(blind_from_inward)
    result = pipe.ask(QUESTION, pipe.subject_id)
    _, sentence = sentence_with(pipe.models.drafter.history[0], "inward")
    assert result.status == "answered" and result.form == "quote" and result.text == sentence


def test_a_blind_answer_that_only_restates_the_question_is_no_agreement(tmp_path):
    pipe = _pipe_with(tmp_path, ContraryJudge())
    pipe.models.drafter.enqueue(*(quoting_draft(drop_words=n, reworded=True) for n in range(3)), copying_nothing)
    pipe.models.verifier.enqueue(
        BlindSolve(answer="The direction of the acceleration for uniform circular motion.", sentences=[1, 2, 3]))
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "refused" and result.citations == []


def test_the_drafter_hears_of_learner_notes_only_when_there_are_some(pipe):
    pipe.models.drafter.enqueue(quoting_draft(), quoting_draft())
    pipe.models.verifier.enqueue(blind_citing(), blind_citing())
    pipe.ask(QUESTION, pipe.subject_id)
    assert all("learner notes" not in m["content"].lower() for m in pipe.models.drafter.history[0])


def test_a_sentence_the_drafter_only_padded_its_citation_with_is_not_quoted(tmp_path):
    # The claim rests on the "inward" sentence; the other one it cites holds none of its words.
    # The blind solver copied that other sentence: no agreement on what the answer rests on.
    def other(messages):  # the first sentence holding none of what the claim adds to the question
        _, text = sentence_with(messages, "inward")
        return next((n, t) for n, t in evidence_sentences(messages)
                    if not new_words(text[:200], QUESTION) & set(stems(t)))
    def padded(messages):
        number, text = sentence_with(messages, "inward")
        return Draft(claims=[Claim(text=text[:200], sentences=[number, other(messages)[0]])])
    def blind_copies_other(messages):
        return BlindSolve(answer=other(messages)[1][:150], sentences=[1, 2, 3])
    pipe = _pipe_with(tmp_path, ContraryJudge())
    pipe.models.drafter.enqueue(padded, padded, padded)
    pipe.models.verifier.enqueue(blind_copies_other)
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "refused", result.text


def test_a_sentence_both_models_point_at_but_read_differently_is_not_quoted(tmp_path):
    # The blind solver copies the "inward" sentence; the drafter's claim rests on it (it holds
    # "inward") but says something else: two readings of one sentence are no agreement.
    def blind_from_inward(messages):
        _, text = sentence_with(messages, "inward")
        return BlindSolve(answer=text[:150], sentences=[1, 2, 3])
    other_reading = claiming("Something unrelated happens inward at twice the speed.")
    pipe = _pipe_with(tmp_path, ContraryJudge())
    pipe.models.drafter.enqueue(other_reading, other_reading, other_reading)  # the third: asked to copy
    pipe.models.verifier.enqueue(blind_from_inward)
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "refused" and result.citations == []


def test_a_claim_copying_a_doubled_text_layer_is_rejected_and_retried(pipe):
    """Words twice over are two text boxes laid together: a claim that copies them is redrafted."""
    def copied(messages):
        number, text = sentence_with(messages, "inward")
        words = text.split()
        return Draft(claims=[Claim(text=" ".join(words[:4] + words[1:4] + words[4:12]), sentences=[number])])
    pipe.models.drafter.enqueue(copied, quoting_draft())
    pipe.models.verifier.enqueue(blind_citing())
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "answered" and result.reasons == ["uncovered_claim"]
    assert "twice over" in pipe.models.drafter.history[1][-1]["content"]


def test_a_question_in_the_notes_is_never_quoted_as_an_answer():
    assert asks("Transfer Appropriate Processing Is deep encoding always better?")
    assert asks("Q: Can a tax eliminate deadweight loss from the monopoly? 37 / 38")
    assert not asks("Output effect < price effect, so a price cut decreases revenue.")


def test_a_sentence_whose_text_layer_doubled_its_words_is_never_quoted():
    assert doubled("Monopolist produces inefficient level of output level of output HH( i.e., where P = MC.")
    assert not doubled("Output effect < price effect HH price cut decreases revenue.")
    assert not doubled("The period T is the time to go around once, and the time to go around once is T.")


def test_a_title_printed_twice_word_by_word_is_never_quoted_and_the_next_copied_sentence_is():
    from citetutor.quotes import copied_quote
    from tests.helpers import numbered
    title = "The The Case Case for for Free Free Trade: Trade: 2 2 Theories Theories of of Free Free Trade Trade"
    assert doubled(title)
    assert not doubled("T1 T1 T2 T2 T3 T3"), "figure labels"
    assert not doubled("fs = final_size_eq(S, S0 = S0, I0 = I0, R_0 = R_0)"), "code"
    assert not doubled("What it had had in the the past was not enough."), "two words twice is English or a typo"
    evidence = numbered(title, "Government policies that reduce imports compromise efficiency.", cosine=0.6)
    copy = Draft(claims=[Claim(text=title, sentences=[1]), Claim(text=evidence[1].text, sentences=[2])])
    chosen = copied_quote(copy, evidence, 1, 0.5)
    assert chosen is not None and [c.text for c in chosen.claims] == [evidence[1].text]


def test_without_a_sentence_both_models_chose_the_tutor_refuses(tmp_path):
    pipe = _pipe_with(tmp_path, ContraryJudge())
    pipe.models.drafter.enqueue(*(quoting_draft(drop_words=n, reworded=True) for n in range(3)), copying_nothing)
    pipe.models.verifier.enqueue(blind_citing("tangent"))
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "refused" and result.text == NOT_ENOUGH_EVIDENCE and result.citations == []


def test_a_flipped_word_whose_opposite_the_sentence_holds_is_rejected(pipe):
    def flipped(messages):  # every word is in the cited sentence but the one it flips
        number, _ = sentence_with(messages, "inward")
        claim = "There is a non-zero component of the acceleration directed radially outward."
        return Draft(claims=[Claim(text=claim, sentences=[number])])
    pipe.models.drafter.enqueue(flipped, quoting_draft())
    pipe.models.verifier.enqueue(blind_citing())
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "answered" and result.reasons == ["uncovered_claim"]
    assert "outward" not in result.text
    # The judge compared the claim with its code-made foil (the sentence's own word) both ways.
    choices = [t for t in pipe.models.judge.calls if "Which statement" in t]
    assert choices[0].split("B: ")[1].startswith(
        "There is a non-zero component of the acceleration directed radially inward.")


def test_an_unsupported_claim_is_retried_with_the_sentences_it_misread_named(tmp_path):
    first = {}
    def misread(messages):
        number, text = sentence_with(messages, "inward")
        first["claim"] = "Uniform circular motion needs no force at all."
        return Draft(claims=[Claim(text=first["claim"], sentences=[number])])
    pipe = _pipe_with(tmp_path, OverlapJudge(wrong=lambda s: s == first.get("claim")))
    pipe.models.drafter.enqueue(misread, quoting_draft())
    pipe.models.verifier.enqueue(blind_citing())
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "answered" and result.reasons == ["uncovered_claim"]
    number, _ = sentence_with(pipe.models.drafter.history[0], "inward")
    retry = pipe.models.drafter.history[1][-1]["content"]
    named = f"which S{number} do not say" in retry or f"not what S{number} say" in retry
    assert named, "code names the sentence the claim is not in"


def test_a_paraphrase_the_judge_finds_stated_is_shown_though_its_words_differ(tmp_path):
    claim = "It always points towards the center of the circle."  # "always", "points": not in S
    judge = OverlapJudge()

    def agreeing(messages, prefix, options):  # "Yes" but to its denial, and the claim whichever letter it has
        task = messages[-1]["content"]
        judge.calls.append(task)
        stated = options[0] == " Yes" and "Statement: It is not true that" not in task
        return Choice([0.0, -3.0] if stated or f"A: {claim}" in task else [-3.0, 0.0], judge.name)
    judge.choice_logprobs = agreeing  # type: ignore[method-assign]
    pipe = _pipe_with(tmp_path, judge)
    pipe.models.drafter.enqueue(claiming(claim))
    pipe.models.verifier.enqueue(blind_citing())
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "answered" and result.form == "checked" and result.attempts == 1
    assert any(f"Statement: {claim}" in t for t in judge.calls), "words differ: asked if stated"
    assert any("Statement: It is not true that it always points" in t for t in judge.calls), \
        "and asked about its denial"


def test_schema_errors_are_rejections(pipe):
    pipe.models.drafter.enqueue("{not json", quoting_draft())
    pipe.models.verifier.enqueue(blind_citing())
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "answered" and result.reasons == ["schema_invalid"]


def _pipe_with(tmp_path, judge):
    pipe = make_pipeline(tmp_path, judge=judge)
    pipe.subject_id = pipe.create_subject("Mechanics")
    pipe.doc = pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", pipe.subject_id)
    return pipe


def test_a_blind_answer_the_judge_finds_the_evidences_answer_refuses_a_draft_in_other_words(tmp_path):
    # Draft and blind solve share no sentence and no wording: the judge weighs the two answers
    # against the evidence, and here it finds the blind solver's the evidence's answer.
    judge = OverlapJudge(wrong=lambda statement: "inward" in statement.lower())
    pipe = _pipe_with(tmp_path, judge)

    def elsewhere(messages):
        number, text = next(s for s in evidence_sentences(messages) if "inward" not in s[1].lower())
        return BlindSolve(answer=text[:150], sentences=[number])
    pipe.models.drafter.enqueue(*(quoting_draft(drop_words=n, reworded=True) for n in range(3)), copying_nothing)
    pipe.models.verifier.enqueue(elsewhere)
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "refused" and result.reasons == ["blind_disagrees"] * 3
    asked = [t for t in judge.calls if "Two answers" in t]
    assert len(asked) == 6, "each draft weighed in both orders"
    assert any(t.index("A: ") < t.index("inward") < t.index("B: ") for t in asked)  # draft first...
    assert any(t.index("B: ") < t.index("inward") for t in asked)  # ... and second


def test_a_blind_answer_the_evidence_does_not_give_no_longer_refuses_a_quoted_draft(pipe):
    # The 0.5B answered "2T + W = 0" to when the virial mass is wrong, and the right draft was
    # refused for not sharing its words; the judge finds the draft's the evidence's answer.
    def elsewhere(messages):
        number, _ = next(s for s in evidence_sentences(messages) if "inward" not in s[1].lower())
        return BlindSolve(answer="Photosynthesis.", sentences=[number])
    pipe.models.drafter.enqueue(quoting_draft())
    pipe.models.verifier.enqueue(elsewhere)
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "answered" and result.form == "checked" and result.reasons == []
    judged = [s for s in result.spans if s["name"] == "support_check"]
    assert judged and judged[0]["outcome"] == "ok"


@pytest.mark.parametrize("answer", ["", "None of the sentences say."])
def test_blind_solve_that_finds_no_sentence_refuses(pipe, answer):
    pipe.models.drafter.enqueue(quoting_draft())
    pipe.models.verifier.enqueue(BlindSolve(answer=answer, sentences=[]))
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "refused" and result.reasons == ["blind_unanswerable"]


def test_a_blind_solve_cut_off_before_citing_any_sentence_found_no_answer_and_refuses_nothing(tmp_path):
    # Philosophy notes, asked how many kinds of monism there are: the 0.5B listed "S1, S2, S3, …"
    # until its length limit and cited nothing. It did not find the question unanswerable; it
    # found no answer at all, so the judge reads each claim, as after a copied slide title.
    labels = ", ".join(f"S{n}" for n in range(1, 40))[:BLIND_ANSWER_CHARS]
    pipe = _pipe_with(tmp_path, OverlapJudge())
    pipe.models.drafter.enqueue(quoting_draft(reworded=True))
    pipe.models.verifier.enqueue(BlindSolve(answer=labels, sentences=[]))
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "answered" and result.reasons == []
    assert any("Statement: " in call for call in pipe.models.judge.calls)


def test_question_without_support_is_refused_without_model_calls(pipe):
    result = pipe.ask("zyxwv qqqq blorft", pipe.subject_id)
    assert result.status == "refused" and result.text == NOT_ENOUGH_EVIDENCE
    assert pipe.models.drafter.history == [] and pipe.models.verifier.history == []


def test_serial_mode_waits_for_the_blind_solve_before_drafting(tmp_path):
    order = []
    pipe = make_pipeline(tmp_path, parallel_blind_solve=False)
    subject = pipe.create_subject("Mechanics")
    pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", subject)
    pipe.models.drafter.enqueue(lambda m: order.append("draft") or quoting_draft()(m))
    pipe.models.verifier.enqueue(lambda m: order.append("blind") or blind_citing()(m))
    assert pipe.ask(QUESTION, subject).status == "answered"
    assert order == ["blind", "draft"]


def test_empty_question_is_an_input_error(pipe):
    with pytest.raises(InputError, match="Type a question"):
        pipe.ask("   ", pipe.subject_id)


def test_requests_are_traced_with_outcome(pipe):
    pipe.models.drafter.enqueue(quoting_draft())
    pipe.models.verifier.enqueue(blind_citing())
    result = pipe.ask(QUESTION, pipe.subject_id)
    row = [r for r in pipe.recent_requests() if r["id"] == result.request_id][0]
    assert (row["kind"], row["outcome"], row["attempts"]) == ("tutor", "answered", 1)
    assert len(pipe.request_spans(result.request_id)) == len(result.spans)


def test_value_request_needs_the_value_from_a_cited_sentence(tmp_path):
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("Mechanics")
    fixture = Path(__file__).resolve().parents[1] / "assets" / "mechanics-fixture.pdf"
    pipe.upload(fixture.read_bytes(), "mechanics-fixture.pdf", subject)
    question = "Calculate the acceleration of the 3.0 kg cart pushed with 12 N"

    def no_value(messages):
        number, _ = sentence_with(messages, "4.0")
        return Draft(claims=[Claim(text="The cart accelerates.", sentences=[number])])
    pipe.models.drafter.enqueue(no_value, quoting_draft("4.0"))
    pipe.models.verifier.enqueue(blind_citing("4.0"))
    result = pipe.ask(question, subject)
    assert result.status == "answered" and result.reasons == ["quantity_not_in_evidence"]
    assert "4.0" in result.text and result.citations[0].page_no == 2


@pytest.mark.parametrize("question, value", [
    ("If the key only correlates at 0.1, how many traces do I need?", True),
    ("By how much does the Chinese remainder trick cut the work?", True),
    ("How do you actually measure how much power the chip is drawing?", False),
    ("How does a monopolist decide how much to produce and what price to charge?", False),
])
def test_a_question_about_how_a_value_is_found_out_does_not_ask_for_the_value(question, value):
    assert asks_for_value(question) is value


def test_hint_for_a_value_question_needs_no_value(pipe):
    pipe.models.drafter.enqueue(quoting_draft("acceleration"))
    pipe.models.verifier.enqueue(blind_citing("acceleration"))
    result = pipe.ask("Calculate the magnitude of the inward acceleration", pipe.subject_id, mode="hint")
    assert result.status == "answered"
    assert "hint" in pipe.models.drafter.history[0][-1]["content"]


def test_repeated_question_is_served_from_cache_without_model_calls(pipe):
    pipe.models.drafter.enqueue(quoting_draft())
    pipe.models.verifier.enqueue(blind_citing())
    first = pipe.ask(QUESTION, pipe.subject_id)
    again = pipe.ask("  " + QUESTION.upper() + " ", pipe.subject_id)
    assert again.status == "answered" and again.text == first.text
    assert again.citations == first.citations
    assert len(pipe.models.drafter.history) == 1 and len(pipe.models.verifier.history) == 1
    assert [s["outcome"] for s in again.spans if s["name"] == "cache"] == ["hit"]
    # Different learner notes change the wording, so they must miss the cache.
    pipe.models.drafter.enqueue(quoting_draft())
    pipe.models.verifier.enqueue(blind_citing())
    assert pipe.ask(QUESTION, pipe.subject_id, learner_notes="short please").status == "answered"
    assert len(pipe.models.drafter.history) == 2


def test_restating_the_question_is_free_but_new_words_need_a_source(pipe):
    pipe.models.drafter.enqueue(
        claiming("The direction of the acceleration for uniform circular motion is set by gravity "
                 "and friction."),
        claiming("The direction of the acceleration for uniform circular motion is radially inward."))
    pipe.models.verifier.enqueue(blind_citing())
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "answered" and result.reasons == ["uncovered_claim"]
    feedback = pipe.models.drafter.history[1][-1]["content"]
    named = feedback.split("Claim 1 says")[1].split("which")[0]
    assert "gravity, friction" in named and "direction" not in named


def test_parallel_mode_runs_the_blind_solve_while_the_draft_is_written(pipe):
    import threading
    drafting, solving, overlapped = threading.Event(), threading.Event(), []

    def draft(messages):
        drafting.set()
        overlapped.append(solving.wait(timeout=5))
        return quoting_draft()(messages)

    def blind(messages):
        solving.set()
        overlapped.append(drafting.wait(timeout=5))
        return blind_citing()(messages)
    pipe.models.drafter.enqueue(draft)
    pipe.models.verifier.enqueue(blind)
    assert pipe.ask(QUESTION, pipe.subject_id).status == "answered"
    assert overlapped == [True, True]


def test_deleting_a_document_drops_cached_answers_that_could_cite_it(pipe):
    pipe.models.drafter.enqueue(quoting_draft(), quoting_draft())
    pipe.models.verifier.enqueue(blind_citing(), blind_citing())
    pipe.ask(QUESTION, pipe.subject_id)
    pipe.delete_document(pipe.doc.doc_id)
    pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", pipe.subject_id)  # same evidence again
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert [s["outcome"] for s in result.spans if s["name"] == "cache"] == ["miss"]
    assert len(pipe.models.drafter.history) == 2


def test_other_models_miss_the_answer_cache(pipe):
    pipe.models.drafter.enqueue(quoting_draft(), quoting_draft())
    pipe.models.verifier.enqueue(blind_citing(), blind_citing())
    pipe.ask(QUESTION, pipe.subject_id)
    pipe.models.drafter.name = "test:another-drafter"
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert [s["outcome"] for s in result.spans if s["name"] == "cache"] == ["miss"]


def test_the_question_deadline_holds_across_retries(tmp_path):
    import time as clock
    pipe = make_pipeline(tmp_path, question_deadline_s=2.0)
    subject = pipe.create_subject("Mechanics")
    pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", subject)

    def slow_unfounded(messages):
        clock.sleep(1.3)  # the second draft starts in time and ends past it
        retry = len(pipe.models.drafter.history)  # each retry words it differently
        return claiming(f"Gravity and friction set it, as everyone knows {retry}.")(messages)
    pipe.models.drafter.enqueue(slow_unfounded, slow_unfounded, slow_unfounded)
    pipe.models.verifier.enqueue(blind_citing())
    result = pipe.ask(QUESTION, subject)
    assert result.status == "refused" and result.reasons[-1] == "deadline"
    assert len(pipe.models.drafter.history) == 2, "no third draft once the deadline has passed"


def test_a_blind_solve_past_the_deadline_refuses_without_waiting_for_it(tmp_path):
    import threading
    release = threading.Event()
    pipe = make_pipeline(tmp_path, question_deadline_s=0.5)
    subject = pipe.create_subject("Mechanics")
    pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", subject)
    pipe.models.drafter.enqueue(quoting_draft())
    pipe.models.verifier.enqueue(lambda m: release.wait(10) and blind_citing()(m))
    result = pipe.ask(QUESTION, subject)
    release.set()
    assert result.status == "refused" and result.reasons == ["deadline"]


def test_a_changed_gate_rechecks_answers_it_accepted_before(pipe, monkeypatch):
    from citetutor import answer_cache
    pipe.models.drafter.enqueue(quoting_draft(), quoting_draft())
    pipe.models.verifier.enqueue(blind_citing(), blind_citing())
    pipe.ask(QUESTION, pipe.subject_id)
    monkeypatch.setattr(answer_cache, "gate_fingerprint", lambda: "the gate's code changed")
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert [s["outcome"] for s in result.spans if s["name"] == "cache"] == ["miss"]


def test_the_pages_shown_while_checking_come_from_the_gates_own_retrieval_before_any_model(pipe):
    shown: list = []

    def on_sources(pages):
        assert not pipe.models.drafter.history, "shown before any model call"
        shown.append(pages)
    pipe.models.drafter.enqueue(quoting_draft())
    pipe.models.verifier.enqueue(blind_citing())
    result = pipe.ask(QUESTION, pipe.subject_id, on_sources=on_sources)
    assert len(shown) == 1, "one retrieval per question"
    assert [(c.doc_id, c.page_no) for c in shown[0]] == [(c.doc_id, c.page_no) for c in result.nearby]
    assert [s["name"] for s in result.spans].count("retrieve") == 1


def test_a_padded_citation_is_not_shown_to_the_learner(pipe):
    from citetutor.checks import new_words
    from citetutor.evidence import stems
    seen: dict[str, int] = {}

    def padded(messages):
        number, text = sentence_with(messages, "inward")
        claim = text[:240]
        added = new_words(claim, QUESTION)
        # A sentence that says none of what the claim adds, cited beside the real one.
        seen["real"], seen["pad"] = number, next(
            n for n, t in evidence_sentences(messages) if n != number and not added & set(stems(t)))
        return Draft(claims=[Claim(text=claim, sentences=[number, seen["pad"]])])
    pipe.models.drafter.enqueue(padded)
    pipe.models.verifier.enqueue(blind_citing())
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "answered"
    assert result.claims[0][1] == [f"S{seen['real']}"], "only the sentence that holds the claim"
    assert len(result.citations) == 1 and "inward" in result.citations[0].text


def test_every_sentence_an_answer_rests_on_is_highlighted_not_only_the_cited_one():
    from citetutor.evidence import Sentence
    from citetutor.retrieval import Hit
    from citetutor.schemas import Claim
    from citetutor.tutor import _completing
    text = ("Uniform circular motion has a centripetal acceleration. "
            "It is directed towards the centre of the circle. Friction heats the brakes.")
    hit = Hit("c1", "d1", "mit", 9, text, "[]")
    first, second, third = (text.index(s) for s in ("Uniform", "It is", "Friction"))
    sentences = [Sentence(1, hit, first, second - 1), Sentence(2, hit, second, third - 1),
                 Sentence(3, hit, third, len(text))]
    claim = Claim(text="The centripetal acceleration is directed towards the centre.", sentences=[1])
    assert _completing("What is centripetal acceleration?", claim, [1], sentences) == [2]
    covered = Claim(text="Uniform circular motion has a centripetal acceleration.", sentences=[1])
    assert _completing("What is centripetal acceleration?", covered, [1], sentences) == []


def test_a_blind_solve_that_copied_a_slide_title_leaves_every_claim_to_the_judge(tmp_path):
    # Word for word, the claim would pass unjudged; but the blind solver found no answer to
    # agree with, so the judge must find each claim stated (this one finds none).
    pipe = _pipe_with(tmp_path, ContraryJudge())
    pipe.models.drafter.enqueue(*(quoting_draft(drop_words=n) for n in range(3)), copying_nothing)
    pipe.models.verifier.enqueue(BlindSolve(answer="Uniform Circular Motion", sentences=[1, 2, 3]))
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.reasons == ["uncovered_claim"] * 3 and result.status == "refused"
    assert any("Does S" in call for call in pipe.models.judge.calls)


def test_a_copy_keeps_the_notes_sentences_its_pieces_copy_in_its_order():
    from citetutor.quotes import copied_quote
    from tests.helpers import numbered
    evidence = numbered("John Snow mapped cases of cholera and found them around one water pump.",
                        "The environment could influence the growth of a pathogen within its host.",
                        "A market must have one seller and a unique product without close substitutes.",
                        cosine=0.6)
    stitched = Draft(claims=[Claim(text=evidence[0].text + " " + evidence[1].text, sentences=[2, 1])])
    copy = copied_quote(stitched, evidence, 1, 0.5)
    assert copy is not None and [c.text for c in copy.claims] == [evidence[0].text], "the first sentence copied"
    cut = Draft(claims=[Claim(text="A market must have one seller and a unique product", sentences=[3]),
                        Claim(text="A market must be small.", sentences=[3])])
    copy = copied_quote(cut, evidence, 2, 0.5)
    assert copy is not None and [c.sentences for c in copy.claims] == [[3]], "the made-up claim has no sentence"
    assert copied_quote(cut, evidence, 2, 0.7) is None, "too far from the question to quote"
    tidied = Draft(claims=[Claim(text="John Snow mapped cases of cholera around one water pump.", sentences=[1])])
    copy = copied_quote(tidied, evidence, 1, 0.5)
    assert copy is not None and copy.claims[0].text == evidence[0].text, "a few words dropped is still a copy"
    own_words = Draft(claims=[Claim(text="Snow found the cholera cases clustered near a pump.", sentences=[1])])
    assert copied_quote(own_words, evidence, 1, 0.5) is None


def test_after_three_failed_drafts_the_sentence_the_drafter_copies_is_checked_and_quoted(pipe):
    drafts = [claiming(f"Photosynthesis {word} converts sunlight into sugar.")
              for word in ("often", "always", "slowly")]
    pipe.models.drafter.enqueue(*drafts, quoting_draft())
    pipe.models.verifier.enqueue(blind_citing())
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.reasons == ["uncovered_claim"] * 3 and result.attempts == 3
    assert len(pipe.models.drafter.history) == 4
    assert pipe.models.drafter.history[3][-1]["content"].endswith(prompts.DRAFT_COPY)
    _, sentence = sentence_with(pipe.models.drafter.history[0], "inward")
    assert result.form == "quote" and result.text == sentence


def test_a_hint_is_not_copied_out_after_three_failed_drafts(pipe):
    drafts = [claiming(f"Think about photosynthesis {word}.") for word in ("often", "always", "slowly")]
    pipe.models.drafter.enqueue(*drafts)
    pipe.models.verifier.enqueue(blind_citing())
    result = pipe.ask(QUESTION, pipe.subject_id, mode="hint")
    assert len(pipe.models.drafter.history) == 3 and result.status == "refused"


def test_a_table_of_contents_line_is_never_an_answer_or_a_quote():
    # The MIT chapter's contents page sits among the evidence on the period of circular motion;
    # in the flip test, its lines copied as claims passed every check.
    from citetutor.checks import Rejected, contents_line, guard
    from citetutor.quotes import copied_quote
    from tests.helpers import numbered
    entry = "7 6.4 Period and Frequency for Uniform Circular Motion.........................................."
    assert contents_line(entry) and contents_line("Learning Goals . . . . . . . . . . . . 3")
    assert not contents_line("Wait... so the period is 2πr/v?") and not contents_line("See eq. 6.4.1.2, i.e. e.g.")
    evidence = numbered(entry, "The period T is the time to complete one circle: T = 2πr / v.", cosine=0.6)
    question = "What is the period of uniform circular motion?"
    copied = Draft(claims=[Claim(text=entry, sentences=[1])])
    with pytest.raises(Rejected) as rejected:
        guard(question, copied, evidence, 0.4, 0.45, "explain")
    assert rejected.value.code == "uncovered_claim" and "table of contents" in rejected.value.detail
    both = Draft(claims=[Claim(text=entry, sentences=[1]), Claim(text=evidence[1].text, sentences=[2])])
    chosen = copied_quote(both, evidence, 1, 0.5)
    assert chosen is not None and [c.text for c in chosen.claims] == [evidence[1].text]


def _copying_another_sentence(chosen: bool = False):
    """A blind solve that copies the first evidence sentence not about the answer, as the 0.5B
    does by default, citing S1-S3 (no choice), or citing that sentence alone when `chosen`."""
    def reply(messages: list[dict]) -> BlindSolve:
        number, text = next((n, t) for n, t in evidence_sentences(messages) if "inward" not in t.lower())
        return BlindSolve(answer=text[:150].rsplit(" ", 1)[0], sentences=[number] if chosen else [1, 2, 3])
    return reply


def test_a_blind_solve_that_only_copied_an_unchosen_sentence_leaves_every_claim_to_the_judge(tmp_path):
    # Medicine notes: asked for a random model's C-index, the 0.5B cited S1-S3 and copied what a
    # C-index generalises; weighed against that copy, a right draft led by 0.09 nats and was
    # refused. The copy is no answer of its own, so the judge reads each claim instead.
    pipe = _pipe_with(tmp_path, OverlapJudge())
    pipe.models.drafter.enqueue(quoting_draft(reworded=True))
    pipe.models.verifier.enqueue(_copying_another_sentence())
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "answered" and result.reasons == []
    assert any("Does S" in call or "Statement: " in call for call in pipe.models.judge.calls)


def test_a_draft_the_judge_clearly_finds_worse_than_the_blind_solvers_copy_is_still_refused(tmp_path):
    # Arrays slides: a neighbouring sentence's Q&A on "indexable", asked what a static array is,
    # lost to the solver's copy of the definition by 0.73 nats, and must stay refused.
    pipe = _pipe_with(tmp_path, OverlapJudge(wrong=lambda statement: "inward" in statement.lower()))
    pipe.models.drafter.enqueue(*(quoting_draft(reworded=True, drop_words=n) for n in range(3)), copying_nothing)
    pipe.models.verifier.enqueue(_copying_another_sentence())
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "refused" and result.reasons[0] == "blind_disagrees"


def test_a_blind_solve_that_chose_the_sentence_it_copied_is_still_weighed_against_the_draft(tmp_path):
    # The same copy, cited by choice: an answer of the solver's own, and a judge that cannot
    # tell the two apart (both are the evidence's words) refuses the draft.
    pipe = _pipe_with(tmp_path, OverlapJudge())
    pipe.models.drafter.enqueue(*(quoting_draft(reworded=True, drop_words=n) for n in range(3)), copying_nothing)
    pipe.models.verifier.enqueue(_copying_another_sentence(chosen=True))
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "refused" and result.reasons[0] == "blind_disagrees"


def test_a_copy_the_blind_solver_made_without_choosing_it_is_no_answer_of_its_own():
    from citetutor.checks import copied_without_choice
    from tests.helpers import numbered
    evidence = numbered("C-index is a generalization of the area under the ROC curve (AUC) that can take "
                        "into account censored data.", "Random model score = 0.5, and perfect model score = 1.0.",
                        "• Measuring patient outcomes – Decision curve analysis")
    copy = "C-index is a generalization of the area under the ROC curve (AUC)"
    assert copied_without_choice(BlindSolve(answer=copy, sentences=[1, 2, 3]), evidence)
    assert copied_without_choice(BlindSolve(answer="Measuring patient outcomes", sentences=[2, 3, 4]), evidence)
    assert not copied_without_choice(BlindSolve(answer=copy, sentences=[1]), evidence), "chosen"
    assert not copied_without_choice(BlindSolve(answer="A random model scores 0.5.", sentences=[1, 2, 3]),
                                     evidence), "its own words"
    assert not copied_without_choice(BlindSolve(answer="0.5", sentences=[1, 2, 3]), evidence), "too short to tell"
    cut = BlindSolve(answer="C-index is a generalization of the area under the ROC cu", sentences=[1, 2, 3])
    assert copied_without_choice(cut, evidence), "cut off mid-word where the answer's length limit fell"


def test_a_blind_answer_is_cut_off_only_when_it_reaches_the_length_limit_mid_sentence():
    from citetutor.checks import cut_off
    labels = ", ".join(f"S{n}" for n in range(1, 40))[:BLIND_ANSWER_CHARS]
    assert cut_off(labels), "the philosophy set's 0.5B listed labels until its limit"
    assert not cut_off(labels[:BLIND_ANSWER_CHARS - 1] + "."), "it finished its sentence"
    assert not cut_off(labels[:120]), "short of the limit: the answer ended where the solver chose"


def test_a_claim_the_length_limit_cut_off_is_shown_as_cut():
    # Set-theory notes: a claim copying a 300-character sentence stopped at 240 characters,
    # "(one must decide what to do if there is a tie, but this", and ran into the next claim.
    from citetutor.schemas import MAX_CLAIM_CHARS, Claim, Draft
    cut = ("When the community is confronted with only two alternatives, simply choose the alternative "
           "preferred by the majority (one must decide what to do if there is a tie, but this is a minor "
           "issue, as we will see later on when we look at it more closely in the next lecture")[:MAX_CLAIM_CHARS]
    assert len(cut) == MAX_CLAIM_CHARS
    after = "With more than two alternatives, difficulties start to arise."
    shown = Draft(claims=[Claim(text=cut, sentences=[1]), Claim(text=after, sentences=[2])]).answer
    assert shown == cut.strip() + " … " + after
    whole = Draft(claims=[Claim(text=after, sentences=[2])]).answer
    assert whole == after, "a claim under the limit is shown as written"


def test_a_claim_copied_word_for_word_is_not_held_against_its_denial_when_the_blind_solver_chose_nothing(tmp_path):
    # Medicine notes: the 0.5B cited S1-S3 and copied a sentence on missing-at-random; the right
    # draft, word for word the sentence on dropping patients, led its denial by 0.18 nats and was
    # refused. A judge that finds a copy no likelier than its denial must not decide it.
    class DenialLeaningJudge(OverlapJudge):
        def choice_logprobs(self, messages, answer_prefix, options):
            choice = super().choice_logprobs(messages, answer_prefix, options)
            if options[0].strip() == "Yes":
                return Choice([0.0, 0.0], self.name)  # as likely stated as its denial
            return choice

    pipe = _pipe_with(tmp_path, DenialLeaningJudge())
    pipe.models.drafter.enqueue(quoting_draft())
    pipe.models.verifier.enqueue(_copying_another_sentence())
    result = pipe.ask(QUESTION, pipe.subject_id)
    assert result.status == "answered" and result.reasons == []
    assert not any("Statement: " in call for call in pipe.models.judge.calls)
