"""Every prompt as a named constant. The static part comes first so the KV cache is reused."""

from __future__ import annotations

import re

from citetutor.states import Reason

# Answer gate. Every model call of one role starts with the same system text and the same
# evidence, so llama.cpp and Ollama reuse that prefix from their KV cache across calls.
DRAFT_SYSTEM = """You are CiteTutor, a careful study tutor. You answer ONLY from the numbered
evidence sentences the student's notes give you.
Write the answer as 1 or 2 claims. Each claim is one short sentence that keeps the wording of
the evidence sentences it cites, and lists their numbers (for [S3] write 3).
Never add a fact, number or formula that your cited sentences do not state. Reply with JSON."""

DRAFT_MODE = {
    "explain": "Task: answer the question clearly.",
    "hint": "Task: give a hint that points to the idea without giving the full answer away.",
}

# Asked once when no drafted wording passed (three rejections, or greedy decoding wrote a
# rejected draft again, which the same feedback would bring a third time): the task changes
# to the notes' own words, and only the sentences copied are shown, as a quote.
DRAFT_COPY = ("Task: copy, word for word, the evidence sentence that answers the question (one for "
              "each part it has), each as a claim citing its number.")

DRAFT_USER = "Evidence:\n{evidence}\n\nQuestion: {question}\n{task}"
# Where the prompts about one question part ways: every draft, retry, judgement and blind solve
# shares the system text, evidence and question line, and the embedded runtime reads a prompt
# in batches that restart after it, so that prefix is reused whole from the KV cache.
CACHE_BREAKS = (re.compile(r"\nQuestion: [^\n]*\n"),)
DRAFT_PARTS = "\nThe question has these parts; answer each in its own claim:\n{parts}"
# Named only when there are notes: told of notes it was not given, the 1.5B began its claims
# "Learner notes suggest that ...".
DRAFT_NOTES = "\nLearner notes (they may change your wording, never the facts): {notes}"
DRAFT_RETRY = "\nYour previous answer was rejected: {feedback}"

# Meaning checks (meaning.py). They follow DRAFT_USER's evidence and question, so an in-process
# judge reads only these lines; the answer is read from the next token after the prefix. The
# cited sentences are quoted again: the 1.5B judge, pointed at "S3" alone, leaned on position.
JUDGE_CHOICE = """Task: do not answer the question. {labels} says: "{cited}"
Which statement does {labels} state?
A: {a}
B: {b}
Reply with the letter A or B."""
JUDGE_CHOICE_PREFIX = "The sentence states statement"

# A judge that can score whole statements reads the claim and its foils as its restatement of
# the cited sentences: the likelier one is what they say (meaning.judge_claim).
JUDGE_RESTATE = """Task: do not answer the question. {labels} says: "{cited}"
Restate in one sentence what {labels} says."""

JUDGE_STATED = """Task: do not answer the question. {labels} says: "{cited}"
Statement: {claim}
Does {labels} state this statement? Reply Yes or No."""
JUDGE_STATED_PREFIX = "Answer:"

# When the draft and the blind solve neither chose a sentence in common nor say the same: which
# of the two answers is the evidence's answer to the question?
JUDGE_ANSWER = """Task: do not answer the question yourself. Two answers to it were written:
A: {a}
B: {b}
Which answer do the evidence sentences give to the question? Reply with the letter A or B."""
JUDGE_ANSWER_PREFIX = "The sentences give answer"

VERIFY_SYSTEM = """You check a study tutor's work against numbered evidence sentences from a
student's notes. Judge only by what the sentences say, not by what you know. Reply with JSON."""

BLIND_TASK = """Question: {question}
Task: answer the question from the evidence alone, in one short sentence, and give the numbers
of the sentences that state the answer."""

VERIFY_USER = "Evidence:\n{evidence}\n\n{task}"

QUIZ_SYSTEM = """You write one practice question for a student from numbered source sentences.
Ask about what the sentence states (a fact, a definition, a cause), never about the text itself.
Give the stem (a real question), the answer_text in a few words of the sentence, and the numbers
of the sentences that state the answer (for [S3] write 3). Reply with JSON."""

QUIZ_USER = "Source sentences:\n{evidence}\n\nWrite one short-answer question whose answer [{label}] states."
QUIZ_FEEDBACK: dict[str, str] = {
    Reason.SCHEMA_INVALID: "Your reply did not match the JSON schema.",
    Reason.UNKNOWN_SENTENCE: "You cited a sentence number that is not in the list.",
    Reason.UNCOVERED_CLAIM: "Write the answer_text with words copied from the sentence.",
    Reason.ABOUT_THE_TEXT: "Ask about a fact the sentence states, not about the text or its topic.",
    Reason.KEY_IN_STEM: "The answer must not repeat the question's words; ask so the sentence's fact is the answer.",
    Reason.KEY_IS_FORMULA: "Ask for a fact the sentence states in words, not for a formula.",
    Reason.NOT_A_QUESTION: "Write the stem as a whole question, ending with a question mark.",
}

QUIZ_BLIND_TASK = """Question: {question}
Task: answer the question from the evidence alone, in a few words, give the numbers of the
sentences that state the answer, and for multiple choice the 0-based number of the option."""

REJECTION_FEEDBACK: dict[str, str] = {
    Reason.SCHEMA_INVALID: "Your reply did not match the JSON schema.",
    Reason.UNKNOWN_SENTENCE: "You cited a sentence number that is not in the evidence.",
    Reason.UNCOVERED_CLAIM: "Keep to the words of the sentences you cite; if unsure, copy the one "
                       "sentence that answers the question word for word.",
    Reason.QUANTITY_NOT_IN_EVIDENCE: "The question asks for a value; give the value from a cited sentence.",
    Reason.NUMBER_NOT_IN_EVIDENCE: "A number in your answer does not appear in the sentences you cited.",
    Reason.OFF_QUESTION: "Your cited sentences do not mention what the question asks about.",
    Reason.IRRELEVANT: "Your answer did not address the question that was asked.",
    Reason.BLIND_DISAGREES: "An independent reading of the evidence found another answer; look again.",
    Reason.UNSUPPORTED_CLAIM: "A claim is not stated by the sentences it cites.",
}

