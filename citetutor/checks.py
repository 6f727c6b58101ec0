"""Every check of a draft that code can make: cited IDs, coverage, numbers, topic, value, and
agreement with the blind solve. The text rules they share live here too, so one module decides."""

from __future__ import annotations

import re
import unicodedata

from citetutor.evidence import NUMBER_WORDS, Sentence, stems
from citetutor.foils import (
    flat_words,
    negating,
    negation_conflict,
    negation_count,
    polarity_conflict,
    run_starts,
    verdict,
)
from citetutor.formulas import unstated_formulas
from citetutor.models.base import Embedder
from citetutor.schemas import BLIND_ANSWER_CHARS, BlindSolve, Claim, Draft
from citetutor.states import Reason

VALUE_REQUEST = re.compile(
    r"\b(value of|how (much|many|fast|far|long|big|large|high|heavy)|calculate|compute|"
    r"magnitude of|numerical(ly)?|(what|which) year)\b", re.IGNORECASE)
# "How do you measure how much power the chip draws?" asks for a method, and "how does a
# monopolist decide how much to produce?" for a rule: the value phrase is the object of a verb
# of finding out, not the question. Both were refused for stating no number.
METHOD_OF_FINDING = re.compile(
    r"\b(measur|decid|determin|choos|tell|know|figur\w* out|work\w* out)\w*\s+how\s+\w+", re.IGNORECASE)
# Digits, or the number words notes use for small counts and factors ("twice the capacity").
# A magnitude in the plural is the same number: notes that wrote "150 millions Francs" refused
# a right "150 million Francs" as stating a million they lack.
NUMBER = re.compile(
    r"\d+(?:[.,]\d+)*|\b(?:two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|"
    r"hundreds?|thousands?|millions?|billions?|twice|half|double|triple)\b", re.IGNORECASE)
MAGNITUDES = frozenset({"hundreds", "thousands", "millions", "billions"})
# Words that frame a question but say nothing about its topic.
QUESTION_FRAME = frozenset(stems(
    "explain describe define definition meaning mean means give hint tell about please why "
    "does happen happens show find called name example examples can could would should might "
    "will must out into still always ever really actually main point idea"))

# Words that frame a claim ("you can use the formula ...") without stating a fact. "Yes"
# answers a yes/no question and is free, like "no" (too short to count as a word at all);
# "not" still counts, so a negated claim needs a negated sentence. Pronouns and auxiliaries
# ("they", "would", "must") are free too: slides rarely write them. Joints that make a claim of
# their own ("because", "while", "than") still count: freed, "... helps me remember them more
# than just reading them because it engages deeper processing" reached the judge, which found
# its made-up cause stated.
CLAIM_FRAME = frozenset(stems(
    "can use using used find found formula equation given called known defined means also "
    "which where there this these that then thus therefore yes "
    "they their them its would will must have has had been being into onto through just too very"))


class Rejected(Exception):
    """A draft failed a check; `code` is a tracing reason code, `detail` goes to the drafter."""

    def __init__(self, code: str, detail: str = ""):
        super().__init__(code)
        self.code, self.detail = code, detail


def check_known(numbers: list[int], sentences: list[Sentence]) -> None:
    """Every cited number must be one the model was given."""
    unknown = sorted(set(numbers) - {s.number for s in sentences})
    if unknown:
        raise Rejected(Reason.UNKNOWN_SENTENCE, f"Unknown: {', '.join(f'S{n}' for n in unknown)}.")


def new_words(text: str, question: str) -> set[str]:
    """What a text adds to the question (content-word stems); all of it if it only restates it."""
    return added_words(text, question) or set(stems(text)) - CLAIM_FRAME


def added_words(text: str, question: str) -> set[str]:
    """What a text adds to the question, and nothing when it only restates it."""
    return set(stems(text)) - CLAIM_FRAME - set(stems(question))


def stems_of(numbers: list[int], sentences: list[Sentence]) -> set[str]:
    """Stems of the numbered sentences."""
    return set(stems(" ".join(s.text for s in sentences if s.number in numbers)))


def covers(new: set[str], numbers: list[int], sentences: list[Sentence], min_overlap: float) -> bool:
    """Whether the numbered sentences hold at least `min_overlap` of the words in `new`."""
    return not new or len(new & stems_of(numbers, sentences)) / len(new) >= min_overlap


def unfounded(text: str, new: set[str], cited: set[str]) -> list[str]:
    """The words of `text`, as written, whose stems are new and not in the cited sentences."""
    words = dict.fromkeys(re.findall(r"\w+(?:['’]\w+)?", text))  # "can't" whole: its "not" is new
    return [w for w in words if set(stems(w)) & (new - cited)]


def states_answer(sentence: str, answer: str, question: str) -> bool:
    """Whether a sentence holds what an answer adds to the question: all of one or two words,
    two thirds of more. An answer that only restates the question ("adaptation" for "adapting
    or acclimating?") is stated by no sentence."""
    added = added_words(answer, question)
    held = len(added & set(stems(sentence)))
    return bool(added) and 3 * held >= 2 * len(added) and held >= min(len(added), 2)


def holding_words(question: str, claim: Claim, by_number: dict[int, Sentence]) -> list[int]:
    """The claim's cited sentences that hold some word it adds to the question (maybe none)."""
    new = new_words(claim.text, question)
    return [n for n in claim.sentences if n in by_number and new & set(stems(by_number[n].text))]


# Two answers agree when they are near-paraphrases (all-MiniLM-L6-v2 cosine). Lower
# values do not separate: two answers that both restate the question score about 0.68
# whether they agree ("tangent to the circle") or not ("+k-direction").
MIN_SAME_MEANING = 0.8


def same_meaning(embedder: Embedder, reference: str, other: str, question: str = "") -> bool:
    """... or when `other` holds at least half of what `reference` adds to the question; never
    when one denies a word the other states (`negation_conflict`)."""
    if negation_conflict(reference, other):
        return False
    added = new_words(reference, question)
    if added and 2 * len(added & set(stems(other))) >= len(added):
        return True
    if not reference.strip() or not other.strip():
        return False
    vectors = embedder.embed([reference, other])
    return float(vectors[0] @ vectors[1]) >= MIN_SAME_MEANING


# A sentence's label as the drafter sees it ("S1", "[S2]"), and anything a claim must hold besides.
SENTENCE_LABEL = re.compile(r"\[?\bS\d+\b\]?")
WORDS_BEYOND_LABELS = re.compile(r"[^\W_]{2,}|\d")
# "S3 states that ...", "S1 says: '...'", "(S2)": the drafter naming its evidence in the claim.
LABEL_FRAME = re.compile(r"^\s*(?:\[?S\d+\]?(?:\s*(?:,|and)\s*)?)+\s*"
                         r"(?:says?|states?|shows?|explains?|notes?|mentions?)\s*(?:that\b)?\s*:?\s*", re.IGNORECASE)
_LABELS = r"S\d+(?:\s*(?:,|and)\s*S?\d+)*"  # "S1", "S1 and S3", "S2, 4"
INLINE_LABEL = re.compile(rf"\s*[\[(]{_LABELS}[\])]")
# How a claim's tail says where it comes from ("as stated in S1", "as shown in the notes").
_SAID = r"(?:stated|said|shown|mentioned|noted|explained|described)"
# "..., as stated in S1." and "According to S2, ...": the same reference, worded. Left in, its
# digit failed the number check ("Claim 1 states 1, million") of a right answer.
WORDED_LABEL = re.compile(
    rf"^\s*(?:according to|as (?:stated|said|shown|mentioned|noted) in)\s+{_LABELS}\s*,\s*"
    rf"|,?\s*(?:as\s+)?(?:{_SAID}|given)\s+(?:in|by)\s+{_LABELS}"
    r"(?=\s*[.;]?\s*$)", re.IGNORECASE)
# "According to the evidence, ...", "The notes state that ...", "..., as evidenced by <a quote or
# a name for the evidence>": the evidence as a whole, pointed at instead of a label. The pointer
# states no fact, yet its words counted towards coverage and reached the learner: "Thinking about
# what something means improves memory retention, as evidenced by the variable encoding strategy
# and the Generation Effect" was shown as why meaning helps memory, "... because compensation was
# unrealistic and unfair, as evidenced by ... the arguments presented in the evidence" as why
# slave owners were paid, and a claim that quoted its sentence after "as evidenced by" could
# assert the opposite of the quote in front of it.
_EVIDENCE = r"(?:the\s+)?(?:given\s+)?(?:evidence|notes?|sentences?|slides?|text|statements?)"
EVIDENCE_FRAME = re.compile(
    rf"^\s*(?:according to|based on)\s+{_EVIDENCE}\s*,\s*"
    rf"|^\s*{_EVIDENCE}\s+(?:says?|states?|shows?|suggests?|indicates?|mentions?|explains?)\s+(?:that\s+)?"
    r"|,?\s*as\s+evidenced\s+by\b[^.]*(?:\.(?=\S)[^.]*)*(?=[.]?\s*$)"
    rf"|,?\s*as\s+{_SAID}\s+(?:in|by)\s+{_EVIDENCE}(?=\s*[.]?\s*$)",
    re.IGNORECASE)
QUOTES = "'\"‘’“”"


def unlabelled(draft: Draft) -> Draft:
    """The draft with its claims' references to sentence labels taken out: "S3 states that X"
    is the claim X. The label is not a fact (its digit even failed the number check, "Claim 1
    states 3"), and a learner reads the claim without the numbered evidence beside it."""
    return draft.model_copy(update={"claims": [
        claim.model_copy(update={"text": _without_labels(claim.text)}) for claim in draft.claims]})


def _without_labels(text: str) -> str:
    """A claim's text without its label frame, inline labels, pointers at the evidence and the
    quotes a frame put round a copied sentence; the text as written when nothing else is left."""
    framed = LABEL_FRAME.match(text)
    rest = text[framed.end():] if framed else text
    bare = INLINE_LABEL.sub("", EVIDENCE_FRAME.sub("", WORDED_LABEL.sub("", rest))).strip()
    if framed and len(bare) > 2 and bare[0] in QUOTES and bare.rstrip(".")[-1] in QUOTES:
        bare = bare.rstrip(".")[1:-1].strip()
    return bare[:1].upper() + bare[1:] if WORDS_BEYOND_LABELS.search(bare) else text


MIN_VERBATIM_WORDS = 6


def verbatim(claim: Claim, sentences: list[Sentence]) -> bool:
    """Whether a claim is a run of at least six words of its cited sentences, word for word,
    not cut from behind a negation: it then says what they say, and a foil judge has nothing to
    decide (the 1.5B gave a copied sentence only 0.29 nats over its own negation)."""
    words = flat_words(claim.text)
    if len(words) < MIN_VERBATIM_WORDS:
        return False
    for sentence in sentences:
        if sentence.number not in claim.sentences:
            continue
        held = flat_words(sentence.text)
        if any(not _negated(held[:start]) for start in run_starts(words, held)):
            return True
    return False


def _negated(before: list[str]) -> bool:
    """Whether the word before a span negates it ("no", "not", "isn't")."""
    return bool(before) and negating(before[-1])


def guard(question: str, draft: Draft, sentences: list[Sentence], min_overlap: float,
          min_topic: float, mode: str, embedder: Embedder | None = None) -> list[int]:
    """Code checks no model can talk its way past: IDs, numbers, topic, value.

    A claim whose new words its sentences mostly lack (below `min_overlap`) is rejected here.
    Returns the claims (numbered from 1) with some new word the cited sentences do not hold: a
    paraphrase goes to the meaning judge instead of being refused; one swapped word is enough
    to ask ("the isolated change" for "the entropy change"), and a claim whose words are all
    there may still flip them.
    """
    check_known([n for c in draft.claims for n in c.sentences], sentences)
    by_number = {s.number: s for s in sentences}
    uncovered = []
    counted: set[str] = set()  # counts the claims state of their own lists (`counted_lists`)
    for number, claim in enumerate(draft.claims, start=1):
        if not WORDS_BEYOND_LABELS.search(SENTENCE_LABEL.sub(" ", claim.text)):
            # "S1" was shown as the answer to what counts as a medium effect: it states nothing.
            raise Rejected(Reason.UNCOVERED_CLAIM, f"Claim {number} names a sentence instead of "
                           "saying what it states; write the fact in words.")
        if doubled(claim.text):
            # A copy of a doubled text layer: shown as how a monopolist sets its output once.
            raise Rejected(Reason.UNCOVERED_CLAIM, f"Claim {number} repeats words twice over, as the "
                           "PDF's text does; write what the notes state once, in a plain sentence.")
        if contents_line(claim.text):
            raise Rejected(Reason.UNCOVERED_CLAIM, f"Claim {number} copies a line of the table of "
                           "contents, which only names a section; write what the notes state.")
        new = new_words(claim.text, question)
        if not covers(new, claim.sentences, sentences, min_overlap):
            # Mostly words from nowhere: the judge said "stated" to a made-up definition of
            # price discrimination and to "Learner notes suggest ...", so no judge decides here.
            raise Rejected(Reason.UNCOVERED_CLAIM, uncovered_detail(number, claim, question, sentences))
        if not covers(new, claim.sentences, sentences, 1.0):
            _guard_words_elsewhere(number, claim, new, sentences)
            uncovered.append(number)
        cited_texts = [by_number[n].text for n in claim.sentences]
        its_counts = counted_lists(claim.text, cited_texts)
        counted |= its_counts
        joined = " ".join(cited_texts)
        _guard_numbers(number, claim.text, joined, its_counts, sentences, question)
        _guard_formulas(number, claim.text, joined)
    if embedder is not None:
        _guard_closer_elsewhere(embedder, question, draft, sentences, uncovered)
    cited = [by_number[n] for n in dict.fromkeys(n for c in draft.claims for n in c.sentences)]
    # A cited sentence holding none of a claim's words is not its source, and does not make it
    # about the question: "The judge can only pick ONE defense ...", copied from one sentence, was
    # shown for how blame is split when the judge cannot tell, on the strength of a sentence on
    # strict liability cited beside it. A claim in wholly other words keeps all its sentences.
    sources = [by_number[n] for n in dict.fromkeys(
        n for c in draft.claims for n in (holding_words(question, c, by_number) or c.sentences))]
    _guard_topic(question, sources, min_topic)
    cited_text = " ".join(s.text for s in cited)
    # A hint must not give the value away; and where the evidence states no number at all, the
    # question ("how long does it take to ...") did not ask for one the notes could give.
    if mode == "explain" and asks_for_value(question) and any(numbers_in(s.text) for s in sentences):
        if not numbers_in(draft.answer) & (numbers_in(cited_text) | counted):
            raise Rejected(Reason.QUANTITY_NOT_IN_EVIDENCE)
    return uncovered


MIN_RECITED_WORDS = 2  # one shared word ("not") is a coincidence, not a source; one number is not


def recited(question: str, draft: Draft, sentences: list[Sentence], min_topic: float) -> Draft:
    """The draft with each mis-cited claim pointed at the sentence that holds all its words.

    The 1.5B drafter often writes a right claim and cites a neighbour of its sentence: "Cohen's
    d counts as a medium-sized effect when it is 0.5" citing "And most effects are small!",
    where S1 says "Medium: 0.5". Told which sentence holds it, it cited the same one three times
    over and the answer was refused. A claim whose cited sentences lack some of its words, when
    one uncited sentence holds every word it adds to the question (two at least, or a number:
    "The monopolist makes $24" cited a sentence without it, next to "... = $24"), is cited to
    that sentence instead, if that sentence is about the question by meaning (`min_topic`): a
    claim copied from a neighbouring step of a worked cycle, re-cited there, passed as the
    answer about another step. Never to a sentence added to its own: joined so, "Yes, fitness
    means being strong and surviving" found "strong" in an example about exercise. Nothing else
    changes: the claim then goes through every check as if the drafter had cited it so, the
    flip judge included. Partly held words are never re-cited (a claim from the model's own
    knowledge often shares words with some sentence); those still get only a pointer.
    """
    claims = []
    for claim in draft.claims:
        new = new_words(claim.text, question)
        enough = len(new) >= MIN_RECITED_WORDS or new <= numbers_in(claim.text)
        if enough and not new <= stems_of(claim.sentences, sentences):
            source = next((s for s in sentences if s.number not in claim.sentences
                           and s.cosine >= min_topic and new <= set(stems(s.text))), None)
            if source:
                claim = claim.model_copy(update={"sentences": [source.number]})
        claims.append(claim)
    return draft.model_copy(update={"claims": claims})


# Three or more words repeated back to back: slide text boxes laid over each other.
DOUBLED = re.compile(r"\b(\w+(?:\W+\w+){2,})\W+\1\b", re.IGNORECASE)


# Words printed twice in place (xaringan titles, fake bold): this many letter-only words in a
# run, each straight after itself. Figure labels ("T1 T1 T2 T2") and code ("S0 = S0") do not count.
MIN_TWICE_PRINTED = 2


def doubled(text: str) -> bool:
    """Whether a text repeats a run of words back to back ("level of output level of output"),
    or each word of a run straight after itself ("The The Case Case for for"): the PDF laid two
    text boxes together, so the words are not what the page shows. Quoted, or copied into a
    claim, they misled ("Monopolist produces inefficient level of output level of output ...
    where P = MC", where the slide sets the efficient level against the monopolist's)."""
    return bool(DOUBLED.search(text)) or _printed_twice(text)


def _printed_twice(text: str) -> bool:
    """Whether three or more tokens in a row each come twice, of them enough plain words.

    A deck's title drawn twice came out "The The Case Case for for Free Free Trade: Trade:";
    asked to copy the notes' answer to why mercantilists opposed free trade, the 1.5B copied
    it first, so the quote tried was the title and the blind solver's sentence on imports and
    efficiency, which the next copied sentence was, went unused.
    """
    tokens = flat_words(text)
    run = words = 0
    i = 0
    while i + 1 < len(tokens):
        if tokens[i] == tokens[i + 1]:
            run += 1
            words += tokens[i].isalpha()
            if run >= 3 and words >= MIN_TWICE_PRINTED:
                return True
            i += 2
        else:
            run = words = 0
            i += 1
    return False


# Five or more dots in a row, spaced or not: the leaders of a table-of-contents line.
DOT_LEADERS = re.compile(r"(?:\.\s?){5,}")


def contents_line(text: str) -> bool:
    """Whether a text holds a table-of-contents entry (a title, dot leaders, a page number): it
    names a section and states nothing about it. The MIT chapter's contents page ("6.4 Period and
    Frequency for Uniform Circular Motion ........ 7") sits among the evidence for questions on
    the period, at cosine 0.63; copied as a claim it passed every check in the flip test."""
    return bool(DOT_LEADERS.search(text))


def uncovered_detail(number: int, claim: Claim, question: str, sentences: list[Sentence]) -> str:
    """What the drafter is told about a claim the judge did not find in its sentences.

    It names the words that came from nowhere and the sentence that holds most of them: small
    models fix a named word, or pick a sentence again, far better than they re-read the whole
    evidence. Code re-cites a claim itself only to a sentence holding all its words (`recited`):
    a claim written from the model's own knowledge often shares some words with some sentence.
    """
    new = new_words(claim.text, question)
    cited = stems_of(claim.sentences, sentences)
    best = max(sentences, key=lambda s: (len(new & set(stems(s.text))), -s.number))
    # Named only, the sentence was not re-cited: the 1.5B kept citing S3 for "smaller standard
    # errors" three times while told each time that S6 says "Bigger sample -> smaller SEs".
    hint = (pointer(best) if best.number not in claim.sentences and (new - cited) & set(stems(best.text)) else "")
    cites = ", ".join(f"S{n}" for n in claim.sentences)
    words = unfounded(claim.text, new, cited)[:6]
    said = f"says {', '.join(words)}, which {cites} do not say." if words else f"is not what {cites} say."
    return f"Claim {number} {said}{hint}"


def pointer(sentence: Sentence) -> str:
    """Feedback naming the sentence a claim's words come from, and what it says."""
    return f' {sentence.label} says: "{sentence.text[:200]}" Cite {sentence.label} if your claim comes from it.'


# An uncited sentence holding this much more of a claim's new words than its cited ones do,
# and most of them, is where the claim comes from.
WORDS_ELSEWHERE = 0.25


def _guard_words_elsewhere(number: int, claim: Claim, new: set[str], sentences: list[Sentence]) -> None:
    """A claim whose words another sentence holds far better than its own is mis-cited, not a
    paraphrase: the judge once found a slide's bare headings to state what the next page of the
    build adds, and the answer cited the page without it."""
    own = len(new & stems_of(claim.sentences, sentences)) / len(new)
    for sentence in sentences:
        share = len(new & set(stems(sentence.text))) / len(new)
        if sentence.number not in claim.sentences and share >= max(0.6, own + WORDS_ELSEWHERE):
            raise Rejected(Reason.UNCOVERED_CLAIM,
                           f"Claim {number} is what {sentence.label} says, not what "
                           f"{', '.join(f'S{n}' for n in claim.sentences)} say.")


# A claim this much closer in meaning (cosine) to an uncited sentence than to its own is that
# sentence's statement under the wrong citation.
CLOSER_ELSEWHERE = 0.1


def _guard_closer_elsewhere(embedder: Embedder, question: str, draft: Draft, sentences: list[Sentence],
                            checked: list[int]) -> None:
    """Each `checked` claim must be closest in meaning to a sentence it cites, not to another one
    that holds some of its words.

    Only claims with a word their sentences lack are checked: one whose every added word is in
    its sentences states what they say, however close it comes to another sentence by restating
    the question. "The engine's entropy changes by 0", citing "... the Entropy change of the
    cycle is 0", was refused as closer to a sentence on the first law. Nor is a sentence that
    holds none of the words the claim adds to the question taken for its source: an embedding
    sits closer to a short sentence than to a long slide of bullets, and "A double can hold
    approximately 15.95 decimal digits", citing "... Double precision: 64 bits; ≈15.95 decimal
    digits ...", came out closer to a sentence on 0.1 in binary that holds none of them; asked
    how Leibniz's law argues the mind is not the brain, a right hint in its sentence's words
    ("qualities that physical states have that our mental states do not") came out closer to
    one on Leibniz's law and the mind that holds none of them. (Words are matched loosely
    here, a stem starting the other: "chopping" borrows "chop".)"""
    if not checked:
        return
    claims = [draft.claims[number - 1] for number in checked]
    vectors = embedder.embed([*(c.text for c in claims), *(s.text for s in sentences)])
    evidence = vectors[len(claims):]
    for number, claim, vector in zip(checked, claims, vectors):
        closeness = evidence @ vector
        own = max(float(closeness[i]) for i, s in enumerate(sentences) if s.number in claim.sentences)
        best = max(range(len(sentences)), key=lambda i: float(closeness[i]))
        other = sentences[best]
        if other.number not in claim.sentences and float(closeness[best]) > own + CLOSER_ELSEWHERE \
                and _shares_a_word(new_words(claim.text, question), stems(other.text)):
            raise Rejected(Reason.UNCOVERED_CLAIM,
                           f"Claim {number} is what {other.label} says, not what "
                           f"{', '.join(f'S{n}' for n in claim.sentences)} say.")


def _shares_a_word(new: set[str], other: list[str]) -> bool:
    """Whether a sentence's stems hold one of `new`, or a word of four letters or more that one
    of them starts with or that starts one of them (the stemmer leaves "chopp" and "chop")."""
    return any(a == b or (min(len(a), len(b)) >= 4 and a.isalpha() and b.isalpha()
                          and (a.startswith(b) or b.startswith(a)))
               for a in new for b in other)


def _guard_numbers(number: int, claim: str, cited: str, counted: set[str], sentences: list[Sentence],
                   question: str) -> None:
    """Every number a claim states must appear in its cited sentences (or restate the
    question's: "two companies", or count the claim's own list: `counted`).

    The drafter is told which sentence states a missing number: told only that the number was
    not in its sentences, the 1.5B cited the same two three times over for "12 weeks", which a
    third sentence held ("Test after 12 week delay")."""
    missing = numbers_in(claim) - numbers_in(cited) - numbers_in(question) - counted
    if missing:
        holder = next((s for s in sentences if missing <= numbers_in(s.text)), None)
        hint = pointer(holder) if holder else ""
        raise Rejected(Reason.NUMBER_NOT_IN_EVIDENCE,
                       f"Claim {number} states {', '.join(sorted(missing))}.{hint}")


# A count followed by the list it counts: "two kinds of monism: materialism and idealism".
COUNT_THEN_LIST = re.compile(
    r"\b(?P<count>\d+|two|three|four|five|six|seven|eight|nine|ten)\s+"
    r"(?:[a-z][\w'-]*\s+){0,3}?[a-z][\w'-]*"
    r"(?:\s*[:,\u2014\u2013]\s*(?:namely\s+|such as\s+)?|\s+-\s+|\s+(?:namely|such as|called)\s+)"
    r"(?P<items>[^.;:()]+)", re.IGNORECASE)
# The list, then its count: "materialism and idealism are the two kinds of monism".
LIST_THEN_COUNT = re.compile(
    r"(?:^|[.;:]\s*)(?P<items>[^.;:()]+?)\s+(?:are|were)\s+(?:the\s+|both\s+)?"
    r"(?P<count>\d+|two|three|four|five|six|seven|eight|nine|ten)\b", re.IGNORECASE)
LIST_JOINTS = re.compile(r",\s*(?:and|or)\s+|,\s*|\s+(?:and|or)\s+", re.IGNORECASE)
MAX_ITEM_WORDS = 5


def counted_lists(claim: str, cited: list[str]) -> set[str]:
    """The counts a claim states of a list it gives itself, every item in one cited sentence.

    Notes list the kinds of a thing without counting them ("we have materialism and idealism,
    which are both a form of monism"); asked how many kinds there are, a right "two kinds of
    monism: materialism and idealism" was refused three times for stating a 2 the notes never
    write. The count is the claim's own list counted, so it needs no sentence of its own; a
    count that is not its list's length ("three kinds: materialism and idealism") still does.
    One sentence must hold the whole list: items gathered from several ("dualism" from the
    sentence before) are the drafter's grouping, not a list the notes give; and that sentence's
    list must end where the claim's does (`_lists_more`)."""
    counts = set()
    for match in [*COUNT_THEN_LIST.finditer(claim), *LIST_THEN_COUNT.finditer(claim)]:
        listed = LIST_JOINTS.split(match["items"].strip())
        items = [set(stems(item)) for item in listed]
        count = NUMBER_WORDS.get(match["count"].lower(), match["count"])
        if (str(len(items)) == count and all(0 < len(item) <= MAX_ITEM_WORDS for item in items)
                and any(set().union(*items) <= set(stems(sentence)) and not _lists_more(listed, sentence)
                        for sentence in cited)):
            counts.add(count)
    return counts


_ARTICLES = frozenset({"a", "an", "the"})


def _plain_words(text: str) -> list[str]:
    """A list item's words as the copied-run checks read them (`flat_words`), without articles."""
    return [w for w in flat_words(text) if w not in _ARTICLES]


def _lists_more(listed: list[str], sentence: str) -> bool:
    """Whether the sentence lists the claim's items among more: "special, general and punitive
    damages" has a third where "two kinds: special and general" counts two.

    The sentence is cut at its list joints; where an item is a whole piece, a short piece
    beside it (five words at most) is one more item. A piece holding more than the item ("we
    have materialism") opens the list, and a long one ("which are both a form of monism")
    closes it."""
    pieces = [_plain_words(piece) for piece in LIST_JOINTS.split(sentence)]
    first, last = (next((i for i, piece in enumerate(pieces) if piece == words), None)
                   for words in (_plain_words(listed[0]), _plain_words(listed[-1])))
    before = first is not None and first > 0 and 0 < len(pieces[first - 1]) <= MAX_ITEM_WORDS
    after = last is not None and last + 1 < len(pieces) and 0 < len(pieces[last + 1]) <= MAX_ITEM_WORDS
    return before or after


def _guard_formulas(number: int, claim: str, cited: str) -> None:
    """Every formula a claim writes out must be its cited sentences' (each digit of a changed
    formula can still be there, so the number check cannot see it)."""
    changed = unstated_formulas(claim, cited)
    if changed:
        raise Rejected(Reason.NUMBER_NOT_IN_EVIDENCE, f"Claim {number} writes {changed[0]}, which its "
                       "sentences do not; copy the formula as the sentence writes it.")


def numbers_in(text: str) -> set[str]:
    """The numbers a text states, number words as digits ("two" and "2" are one number)."""
    return set(numbers_listed(text))


def numbers_listed(text: str) -> list[str]:
    """The numbers a text states in order, repeats kept, number words as digits."""
    text = unicodedata.normalize("NFKC", text)  # "t³" states the 3 of "t^3"
    words = (n.lower()[:-1] if n.lower() in MAGNITUDES else n.lower() for n in NUMBER.findall(text))
    return [NUMBER_WORDS.get(n, n) for n in words]


def asks_for_value(question: str) -> bool:
    """Whether a question asks for a value ("how many traces?"), not how one is found out."""
    return bool(VALUE_REQUEST.search(METHOD_OF_FINDING.sub(" ", question)))


def _guard_topic(question: str, cited: list[Sentence], min_topic: float) -> None:
    """The cited sentences must be about the question (`on_topic`)."""
    if not on_topic(question, cited, min_topic):
        raise Rejected(Reason.OFF_QUESTION)


def on_topic(question: str, cited: list[Sentence], min_topic: float) -> bool:
    """Whether sentences are about the question: one of them close to it in meaning, or
    together holding a third of its topic words. Students rarely use the notes' words, so words
    alone never refuse a draft whose sentences mean what was asked; and a long question
    ("why do utilities like water and electricity end up with one company?") names more than
    its answer's sentence does."""
    if max((s.cosine for s in cited), default=0.0) >= min_topic:
        return True
    topic = set(stems(question)) - QUESTION_FRAME
    return not topic or 3 * len(topic & set(stems(" ".join(s.text for s in cited)))) >= len(topic)


def guard_each_claim_on_topic(question: str, parts: list[str], draft: Draft, sentences: list[Sentence],
                              min_topic: float) -> None:
    """Each claim's own sentences must be about the question or one of its `parts`.

    Only asked when the blind solve gave no answer of its own to weigh the draft against: the
    draft check looks at all cited sentences together, and with no comparison a claim from an
    unrelated sentence rode along ("We use the imputation model fitted on the training set …"
    before "We split data by patient", asked how to keep one person's X-rays out of both sets)."""
    by_number = {s.number: s for s in sentences}
    for number, claim in enumerate(draft.claims, start=1):
        cited = [by_number[n] for n in claim.sentences]
        if not any(on_topic(asked, cited, min_topic) for asked in [question, *parts]):
            raise Rejected(Reason.OFF_QUESTION, f"Claim {number} is not about what was asked.")


def no_choice(picked: list[int]) -> bool:
    """Whether a blind pick is just a run of numbers (S1-S3, S2-S4): no choice at all.

    Evidence comes ranked by closeness to the question, and the 0.5B verifier picked S1-S3 in
    most questions looked at, S2-S4 in others; "agreeing" with that only says the drafter cited
    a highly ranked sentence, and the quotes it let through were 4 right in 14 on the eval's
    sets (a slide heading, "– Repetition and Spacing", among them), and with S2-S4 a slide on
    economies of scale for why marginal-cost pricing makes a natural monopoly exit. Asked "do
    these sentences answer the question?", the 1.5B judge did not separate the sentences that
    do from those that do not.
    """
    run = sorted(picked) == list(range(min(picked), max(picked) + 1)) if picked else False
    return run and (len(picked) >= 3 or (len(picked) == 2 and min(picked) == 1))


# Small words a slide title keeps in lower case ("Repetition and Spacing").
TITLE_JOINS = frozenset("a an and as at by for in of on or the to vs".split())
_TITLE_WORDS = re.compile(r"[^\W\d_][\w'’-]*")


def abstains(answer: str) -> bool:
    """Whether a blind answer is a slide title copied instead of an answer ("Monopoly
    Conditions", "Repetition and Spacing", "First Survey Experiment"): at most five words, each
    capitalised but the joins, no number. Weighed against such a title, the judge preferred it
    to a right draft ("A market must have a unique product without close substitutes"), so the
    solver is taken to have found no answer; "Yes" and "No" are answers."""
    words = _TITLE_WORDS.findall(answer)
    if not words or len(words) > 5 or re.search(r"\d", answer) or words[0].lower() in ("yes", "no"):
        return False
    return all(w[0].isupper() or w.lower() in TITLE_JOINS for w in words)


def copied_without_choice(solved: BlindSolve, sentences: list[Sentence]) -> bool:
    """Whether the blind solve is the 0.5B's default rather than an answer: a run of numbers
    (`no_choice`) and words copied in order from one evidence sentence, often cut off at the
    answer's length limit.

    Asked for the C-index of a random model, it cited S1-S3 and copied "C-index is a
    generalization of the area under the ROC curve (AUC) …" from S5; for a survival-curve hint,
    "Measuring patient outcomes" from a slide's list. Weighed against such a copy, the judge
    cannot tell which of the two the sentences give (right drafts scored from -0.13 to +0.30
    nats and were refused), because the sentences do say both. Like a copied slide title (`abstains`), it
    found no answer to agree with: the draft's claims are judged one by one instead."""
    words = flat_words(solved.answer)
    if not no_choice(solved.sentences) or len(words) < 3:
        return False
    return any(_copied_from(words, flat_words(s.text)) for s in sentences)


def cut_off(answer: str) -> bool:
    """Whether a blind answer stopped at its length limit before the end of a sentence."""
    return len(answer) >= BLIND_ANSWER_CHARS and not answer.rstrip().endswith((".", "!", "?"))


def _copied_from(words: list[str], held: list[str]) -> bool:
    """Whether `words` run word for word in `held`, the last one perhaps cut short (the answer
    ends where its length limit fell, "... in circular motion the direction of velo")."""
    return any(start + len(words) <= len(held) and held[start + len(words) - 1].startswith(words[-1])
               for start in run_starts(words[:-1], held))


def agrees_with_blind(embedder, question: str, draft: Draft, solved: BlindSolve) -> bool:
    """Whether the draft rests on what the blind solver found: a sentence both chose, or an
    answer of the same meaning. False leaves it undecided, for the meaning judge (tutor.py).

    Contradiction is judged by content and refuses outright: the two answers holding opposite
    words of one pair ("positive" against "negative"), which shared words and embeddings cannot
    see. Agreement is judged by content too: the same value, or the blind answer's words
    (`same_content`). Whether each claim says what its sentences say is the meaning judge's job
    (meaning.py), agreement or not.
    """
    if polarity_conflict(solved.answer, draft.answer):
        raise Rejected(Reason.BLIND_DISAGREES, "It says the opposite of what the evidence says.")
    said = verdict(solved.answer)
    if said and len(flat_words(solved.answer)) == 1 and said == verdict(draft.answer):
        # A bare "No" is the solver's whole answer to a yes/no question; weighed against "No, you
        # cannot set up booby traps ...", the judge gave +0.20 nats and the right draft was refused.
        return True
    # A run of numbers is no choice: the 0.5B's S1-S3 let "Variable encoding improves retrieval"
    # pass as why thinking about meaning helps memory, because the draft cited S2.
    chosen = set() if no_choice(solved.sentences) else set(solved.sentences)
    if any(n in chosen for claim in draft.claims for n in claim.sentences):
        return True
    return same_content(question, draft.answer, solved.answer) or same_meaning(
        embedder, solved.answer, draft.answer, question)


def same_content(question: str, answer: str, blind: str) -> bool:
    """Whether an answer states what the blind solver found: every number it adds to the
    question is in the blind answer, or (stating none) it holds the words the blind answer adds
    to the question (`states_answer`); in both, negated as often, so "not" is no agreement.

    Asked which of two right answers the evidence gives, the judge cannot choose: "The worst
    scale error on the Albers map is 1 1/4%" against the solver's "1 1/4% on map of conterminous
    States ..." came out 0.19 nats apart, and the right draft was refused three times. Two
    models that read the same value or words off the evidence independently agree by content.
    A value the solver did not find is no agreement, whatever words they share.
    """
    if negation_count(answer) % 2 != negation_count(blind) % 2:
        return False
    asked = numbers_in(question)
    values = _values(answer, asked)
    if values:  # the blind answer's first value, digit for digit ("1 1/4%" is 1, 1, 4)
        return _values(blind, asked)[:len(values)] == values
    return states_answer(answer, blind, question)


def _values(text: str, asked: set[str]) -> list[str]:
    """The numbers a text states beyond the question's (`asked`), in order."""
    return [n for n in numbers_listed(text) if n not in asked]
