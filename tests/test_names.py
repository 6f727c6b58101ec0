"""A question naming something its notes never use is refused before any model reads it."""

import re

import pymupdf
import pytest

from citetutor.names import names_in, spelled_out, written_forms
from citetutor.retrieval import Scope, tokenize, unused_names
from citetutor.tutor import refusal_reason
from tests.helpers import make_pipeline
from tests.test_tutor_gate import QUESTION, pipe  # noqa: F401  (the gate fixture over a real PDF)


@pytest.mark.parametrize("question, names", [
    ("How does the Winkel tripel projection balance its distortions?", ["Winkel"]),
    ("How does Bayes' theorem let you turn P(Y|X) into P(X|Y)?", ["Bayes", "P(Y|X", "P(X|Y"]),
    ("What's the difference between the WGS84 and NAD27 datums?", ["WGS84", "NAD27"]),
    ("DNA copying: how does it work?", ["DNA"]),
    ("Why do we randomise? Couldn't we just pick the groups ourselves?", []),
    ("My program prints a different answer every time I run it. What's going on?", []),
    ("Why would a crystal still have some entropy at 0 K?", []),
    ("If I've got the cumulative hazard, how do I turn it back into the survival curve?", []),
    ("Can you give me a hint about what I'd have to prove? I’m stuck on Bayes’ theorem", ["Bayes"]),
    ("What did Newton's law say? I'll check Kepler’s too", ["Newton", "Kepler"]),
])
def test_names_are_capitalised_inside_a_sentence_or_acronyms(question, names):
    assert names_in(question) == names


def test_a_name_the_notes_never_use_is_refused_before_any_model_and_named(pipe):  # noqa: F811
    result = pipe.ask("How does Bernoulli's principle change uniform circular motion?", pipe.subject_id)
    assert result.status == "refused" and result.attempts == 0 and result.unused_names == ["Bernoulli"]
    assert not pipe.models.drafter.history and not pipe.models.verifier.history
    assert refusal_reason(result) == "Your notes never mention Bernoulli, so they cannot answer this question."


def test_names_the_notes_use_pass_whatever_their_case(pipe):  # noqa: F811
    found = pipe.gate.search("What did Newton say about the Moon and Coriolis forces?", Scope(pipe.subject_id))
    assert found.unused_names == [] and found.hits


@pytest.mark.parametrize("name, forms", [
    ("R-naught", ["R-naught", "R0"]),
    ("Delta-G", ["Delta-G", "δG"]),
    ("Sigma", ["Sigma", "σ"]),
    ("Bernoulli", ["Bernoulli"]),
    ("Zeta-function", ["Zeta-function", "ζfunction"]),
])
def test_a_spelled_out_symbol_is_also_read_as_the_notes_write_it(name, forms):
    assert written_forms(name) == forms


@pytest.mark.parametrize("question, unused", [
    ("What does R-naught have to be above for a disease to take off?", []),
    ("Why is Delta-G negative when a reaction runs by itself?", []),
    ("What does Sigma measure in these notes?", []),
    ("What does Omega measure in these notes?", ["Omega"]),
    ("What does R-nought mean for Bernoulli?", ["Bernoulli"]),
])
def test_a_name_a_student_spells_out_is_found_where_the_notes_write_its_symbol(question, unused):
    vocabulary = {term: i for i, term in enumerate(tokenize("R0 falls below 1 when ΔG and σ are small"))}
    assert unused_names(question, vocabulary) == unused


@pytest.mark.parametrize("name, text, spelled", [
    ("WW1", "at the eve of World War 1, foreign assets", True),
    ("WWI", "before World War One began", True),
    ("WWII", "after World War II ended", True),
    ("WW2", "at the eve of World War 1, foreign assets", False),
    ("RAG", "draw the Resource Allocation Graph of the threads", True),
    ("RAG", "resources are granted in order", False),  # lower-case words with those initials
    ("DNA", "DNA is copied", False),  # the acronym itself is the vocabulary's business
    ("Bernoulli", "Bernoulli's principle", False),  # not an acronym
])
def test_an_acronym_is_found_where_the_notes_spell_out_its_words(name, text, spelled):
    assert any(re.search(pattern, text) for pattern in spelled_out(name)) is spelled


def test_a_question_with_an_acronym_the_notes_spell_out_is_not_refused_for_it():
    text = "Foreign assets reached 200% of national income at the eve of World War 1."
    vocabulary = {term: i for i, term in enumerate(tokenize(text))}
    def spelled(pattern: str) -> bool:
        return re.search(pattern, text) is not None
    assert unused_names("How did owning stuff abroad help Britain before WW1?", vocabulary, spelled) == ["Britain"]
    assert unused_names("How did owning stuff abroad help before WW2?", vocabulary, spelled) == ["WW2"]


def test_the_library_finds_an_acronyms_words_in_its_chunks(tmp_path):
    library = make_pipeline(tmp_path)
    subject = library.create_subject("History")
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 100), "Foreign assets grew until the eve of World War 1.", fontsize=11)
    library.upload(doc.tobytes(), "history.pdf", subject)
    assert library.gate.search("How did foreign assets help before WW1?", Scope(subject)).unused_names == []
    assert library.gate.search("How did foreign assets help before WW2?", Scope(subject)).unused_names == ["WW2"]
