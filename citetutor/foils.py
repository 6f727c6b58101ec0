"""Code-made wrong twins of a statement: the same words with the meaning flipped.

The meaning check asks a judge which of a claim and its foil the cited sentences state; the
flip test feeds foils of correct answers through the whole gate. Both need the same flips,
so they live here: a swapped antonym (positive/negative, increases/decreases, more/less),
an inserted or removed negation, a changed number.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from citetutor.evidence import stems

# Each pair is swapped both ways; only whole words, keeping the first letter's case.
ANTONYMS = (
    ("positive", "negative"), ("increase", "decrease"), ("increases", "decreases"),
    ("increased", "decreased"), ("increasing", "decreasing"), ("more", "less"),
    ("larger", "smaller"), ("greater", "smaller"), ("higher", "lower"), ("rises", "falls"),
    ("gain", "lose"), ("gains", "loses"), ("maximum", "minimum"), ("maximize", "minimize"),
    ("above", "below"), ("before", "after"), ("inward", "outward"), ("toward", "away from"),
    ("towards", "away from"), ("faster", "slower"), ("always", "never"),
    ("same", "different"), ("constant", "changing"), ("reversible", "irreversible"),
    ("spontaneous", "non-spontaneous"), ("spontaneously", "non-spontaneously"),
    ("efficient", "inefficient"), ("inside", "outside"), ("first", "second"),
    ("hot", "cold"), ("hotter", "colder"), ("heavier", "lighter"), ("upward", "downward"),
    ("maker", "taker"), ("inherited", "not inherited"), ("can", "cannot"),
    ("does", "does not"), ("do", "do not"), ("is", "is not"), ("are", "are not"),
    ("will", "will not"),
)
AUXILIARY = frozenset({"is", "are", "do", "does", "can", "will", "has", "have"})
_SWAP = {a: b for a, b in ANTONYMS} | {b: a for a, b in ANTONYMS if " " not in b}
_NEGATED = {"is not": "is", "are not": "are", "does not": "does", "do not": "do", "cannot": "can",
            "will not": "will", "isn't": "is", "aren't": "are", "doesn't": "does", "don't": "do",
            "can't": "can", "won't": "will", "not inherited": "inherited",
}
# Each negation as a pattern that also takes the typographic apostrophe ("doesn’t"), which slides
# mostly set: a claim copied from them was given no foil without its negation.
_NEGATION_PATTERNS = {phrase: re.compile(r"\b" + re.escape(phrase).replace("'", "['’]") + r"\b", re.IGNORECASE)
                      for phrase in _NEGATED}
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
# A number, not a piece of one ("1.2.3", "x2"); a full stop after it ends the sentence: "sold in
# 1991." had no number flip and no exchange, so a wrong year at the end of a claim went unchecked.
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?!\w|\.\d)")


def _cased(replacement: str, original: str) -> str:
    return replacement[:1].upper() + replacement[1:] if original[:1].isupper() else replacement


def antonym_flips(text: str) -> list[str]:
    """One foil per flippable word: that word swapped for its opposite, the rest unchanged."""
    foils = []
    for phrase, opposite in _NEGATED.items():  # removing a negation comes first: it is the sharpest flip
        for m in _NEGATION_PATTERNS[phrase].finditer(text):
            foils.append(text[:m.start()] + _cased(opposite, m.group()) + text[m.end():])
    negated_spans = [m.span() for pattern in _NEGATION_PATTERNS.values() for m in pattern.finditer(text)]
    content: list[str] = []
    auxiliary: list[str] = []
    for m in _WORD.finditer(text):
        opposite = _SWAP.get(m.group().lower(), "")
        if opposite and not any(a <= m.start() < b for a, b in negated_spans):
            flipped = text[:m.start()] + _cased(opposite, m.group()) + text[m.end():]
            (auxiliary if m.group().lower() in AUXILIARY else content).append(flipped)
    # Then opposite content words ("positive" for "negative"); a plain "is not" last.
    flips = [_answer_flipped(f) for f in foils + content + auxiliary] or _denied(text)
    return list(dict.fromkeys(f for f in flips if f != text))


def _denied(text: str) -> list[str]:
    """A "Yes" answer with no word to flip, denied whole: "No, it is not true that ...".

    "Yes, fitness in biology means being strong and surviving" has no auxiliary or antonym to
    flip, so it went to the judge with nothing to beat and was shown, where the notes say
    fitness means reproductive success.
    """
    m = _YES_NO.match(text)
    if not m or m.group(2).lower() != "yes":
        return []
    rest = text[m.end():].lstrip(" ,.;:!-")
    denied = denial(rest)
    return [f"{m.group(1)}{_cased('no', m.group(2))}, {denied[:1].lower()}{denied[1:]}"] if denied else []


_YES_NO = re.compile(r"^(\W*)(yes|no)\b", re.IGNORECASE)


def verdict(answer: str) -> str:
    """'yes' or 'no' when an answer opens with one, else ''."""
    opening = _YES_NO.match(answer)
    return opening.group(2).lower() if opening else ""


def denial(text: str) -> str:
    """The statement denied whole, its words untouched: "It is not true that ..."."""
    text = text.strip()
    return f"It is not true that {text[:1].lower()}{text[1:]}" if text else ""


def opposite_answer(text: str) -> str:
    """The other answer to a "Yes"/"No" statement ("" if it is none): a "Yes" denied whole, so
    the rest is untouched ("No, it is not true that everyone ends up infected ...", where a
    word flip made "No, everyone ends up infected ..., and it cannot be determined ..."), a
    "No" with its sharpest flip, its negation taken out ("Yes, heat does flow ...")."""
    m = _YES_NO.match(text)
    if not m:
        return ""
    if m.group(2).lower() == "yes":
        return next(iter(_denied(text)), "")
    return next(iter(foils_of(text, most=1)), "")


def _answer_flipped(foil: str) -> str:
    """A foil of a yes/no answer with its "Yes" or "No" flipped too.

    "Yes, fitness does not mean being strong" contradicts itself, and the judge preferred the
    claim "Yes, fitness does mean being strong" over it by a hair; the coherent opposite is
    "No, fitness does not mean being strong".
    """
    m = _YES_NO.match(foil)
    if not m:
        return foil
    opposite = "no" if m.group(2).lower() == "yes" else "yes"
    return m.group(1) + _cased(opposite, m.group(2)) + foil[m.end():]


# Prefixes that make opposites of one stem ("depolarized"/"hyperpolarized", "undercoverage"/
# "overcoverage", "inhale"/"exhale"). A hand list of whole-word antonyms cannot know every
# field's pairs: "the inactivation ball plugs the channel when the membrane is hyperpolarized"
# was shown, where the notes say it plugs it on depolarization, with no flip to compare it with.
OPPOSED_PREFIXES = (
    ("de", "hyper"), ("hyper", "hypo"), ("in", "de"), ("in", "ex"), ("im", "ex"), ("over", "under"),
    ("up", "down"), ("endo", "exo"), ("homo", "hetero"), ("pre", "post"), ("intra", "inter"),
    ("ana", "cata"), ("sub", "super"),
)
MIN_STEM = 5  # letters of the shared stem after the prefix: "polar", "cover", "therm"


def prefix_flips(text: str, vocabulary: str) -> list[str]:
    """One foil per word whose twin with the opposite prefix is a word of `vocabulary`.

    Only twins the vocabulary (the cited sentences) uses are made, so the foil is a real word
    of the field ("depolarized" where the sentence says "depolarization"), never a coinage.
    """
    known = {w.lower() for w in _WORD.findall(vocabulary)}
    foils = []
    for m in _WORD.finditer(text):
        for twin, stem in _prefix_twins(m.group().lower()):
            if any(k.startswith(stem) for k in known):
                foils.append(text[:m.start()] + _cased(twin, m.group()) + text[m.end():])
    return list(dict.fromkeys(foils))


def _prefix_twins(word: str) -> list[tuple[str, str]]:
    """`word` with each opposed prefix it starts with swapped for the other one, and the twin's
    prefix with the first letters of the shared stem (what a vocabulary word must start with)."""
    twins = []
    for one, other in OPPOSED_PREFIXES:
        for mine, theirs in ((one, other), (other, one)):
            rest = word[len(mine):]
            if word.startswith(mine) and len(rest) >= MIN_STEM:
                twins.append((theirs + rest, theirs + rest[:MIN_STEM]))
    return twins


def number_flips(text: str) -> list[str]:
    """One foil per number: the number changed (doubled, or 1 for 0), the rest unchanged."""
    foils = []
    for m in _NUMBER.finditer(text):
        value = float(m.group())
        changed = "1" if value == 0 else (f"{value * 2:g}")
        foils.append(text[:m.start()] + changed + text[m.end():])
    return foils


def exchanged(text: str, vocabulary: str, given: str = "") -> list[str]:
    """Foils that keep every word and swap two of them: both words of an opposite pair the text
    holds ("more X and less Y" as "less X and more Y"), or a number of the text for another
    number of `vocabulary` (the cited sentences) that the text does not state.

    One flipped word makes a claim contradict itself ("slower on complex points and slower on
    simple ones"), which a judge rejects as easily as the claim's truth; the error a drafter
    makes is the exchange: each fact paired with the other's term, or the sentence's other
    value ("90% ... content" where it says 90% delivery and 10% content): of the sentence's
    values with the most of the same label and unit, the nearest to the one stated ("$36" for
    "$24" in "cost $36, profit $24 at Q=6", not the "6"). A value `given` (the question's "30
    degrees up") is the premise, not the answer: it is neither changed nor put in.
    """
    foils = []
    words = list(_WORD.finditer(text))
    for i, first in enumerate(words):
        opposite = _SWAP.get(first.group().lower(), "")
        if " " in opposite or first.group().lower() in AUXILIARY:
            continue  # "not"-phrases and auxiliaries flip a clause, not a term
        for second in words[i + 1:]:
            if second.group().lower() == opposite:
                foils.append(text[:first.start()] + _cased(opposite, first.group())
                             + text[first.end():second.start()] + _cased(first.group().lower(), second.group())
                             + text[second.end():])
                break
    premises = {m.group() for m in _NUMBER.finditer(given)}
    values = list(_NUMBER.finditer(vocabulary))
    own = {m.group() for m in _NUMBER.finditer(text)} | premises
    others = [v for v in values if v.group() not in own]
    kinds = {v.start(): _kind(v, vocabulary) for v in values}
    for m in _NUMBER.finditer(text):
        source = next((v for v in values if v.group() == m.group()), None)
        if m.group() in premises or source is None or not others:
            continue
        kind = kinds[source.start()]
        other = min(others, key=lambda v: (sum(a != b for a, b in zip(kinds[v.start()], kind)),
                                           abs(v.start() - source.start())))
        foils.append(text[:m.start()] + other.group() + text[m.end():])
    return list(dict.fromkeys(f for f in foils if f != text))


def _kind(number: re.Match, text: str) -> tuple[str, str]:
    """What is attached to a number, roughly its label and unit: ("AM=", "") for "AM=1.3 h",
    ("", "%") for "90%", ("$", "") for "$24,", ("", "degrees") for "90 degrees"."""
    before = re.search(r"\S*$", text[:number.start()])
    unit = re.match(r"[%‰°]|[^\W\d_]+|\s+([^\W\d_]+)\b", text[number.end():])
    return (before.group() if before else ""), (unit.group(1) or unit.group()) if unit else ""


def foils_of(text: str, most: int = 2, vocabulary: str = "") -> list[str]:
    """The sharpest meaning flips of `text`, at most `most` of them; `vocabulary` (the cited
    sentences) lets a word be flipped to its opposite-prefixed twin there."""
    return list(dict.fromkeys(antonym_flips(text) + prefix_flips(text, vocabulary) + number_flips(text)))[:most]


def polarity_conflict(one: str, other: str) -> bool:
    """Whether two answers hold opposite words of one pair (one says 'positive', the other 'negative').

    Shared words and close embeddings cannot tell a statement from its flip: "the entropy change
    is positive" and "... negative" share every content word and embed at cosine ~0.95.
    """
    first, second = set(_WORD.findall(one.lower())), set(_WORD.findall(other.lower()))
    pairs = [(a, b) for a, b in ANTONYMS if " " not in b and a not in AUXILIARY | {"first"}]
    return any((a in first and b in second and a not in second and b not in first)
               or (b in first and a in second and b not in second and a not in first) for a, b in pairs)


# After these a negation weakens instead of denying: "not always", "not necessarily", "not only".
_PARTIAL = frozenset({"necessarily", "always", "only", "just", "all", "every", "quite", "exactly",
                      "entirely", "merely", "even"})
# The words that turn what follows around; the checks read negation with this list too.
NEGATING = frozenset({"no", "not", "never", "nor", "without", "cannot"})
# A clause ends at punctuation or a joining word: "X is not A, but B" denies A, not B.
_CLAUSE_END = re.compile(r"[,;:.!?()]|\b(?:but|and|while|whereas|although|though|however|yet|unless|"
                         r"because|so|then)\b", re.IGNORECASE)
FLAT_WORDS = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
NEGATION_REACH = 3  # words after a negation that it denies ("could never really exist")


def negation_conflict(one: str, other: str) -> bool:
    """Whether a word both answers hold is denied in one and affirmed in the other.

    "Hacking thought split bars could ever exist" and the blind solver's "... could never
    exist" embed at cosine 0.82, so they counted as the same answer. Counting negations
    answer-wide refused right answers whose other clauses differ ("may or may not change" in a
    hint, one "not" in a two-part answer); here only a word both state, within a negation's
    reach in its clause, counts. "Or not" offers an alternative and "not always" a weaker
    claim: neither denies.
    """
    denied_one, said_one = _denied_and_said(one)
    denied_other, said_other = _denied_and_said(other)
    return bool((denied_one - said_one) & (said_other - denied_other)
                or (denied_other - said_other) & (said_one - denied_one))


def _denied_and_said(text: str) -> tuple[set[str], set[str]]:
    """A text's content-word stems within reach of a denying negation, and those outside one."""
    denied: set[str] = set()
    said: set[str] = set()
    for clause in _CLAUSE_END.split(text):
        words = [w.lower() for w in FLAT_WORDS.findall(clause)]
        reach = 0
        for i, word in enumerate(words):
            if negating(word):
                reach = NEGATION_REACH if _denies(words, i) else reach
                continue
            target = denied if reach else said
            reach = max(reach - 1, 0)
            target.update(stems(word))
    return denied, said


def flat_words(text: str) -> list[str]:
    """A text's words, lower-cased, as the checks for copied runs compare them."""
    return [w.lower() for w in FLAT_WORDS.findall(text)]


def run_starts(words: list[str], held: list[str]) -> list[int]:
    """Where `words` occurs in `held` as a run, word for word (the start of each occurrence)."""
    return [start for start in range(len(held) - len(words) + 1) if held[start:start + len(words)] == words]


def negating(word: str) -> bool:
    """Whether a lower-case word negates ("not", "never", "isn't", "doesn’t")."""
    # Slides mostly set the typographic apostrophe: "doesn’t" negates as "doesn't" does.
    return word in NEGATING or word.replace("’", "'").endswith("n't")


def negation_count(text: str) -> int:
    """How many negating words a text has ("not", "no", "never", "isn't")."""
    return sum(negating(w.lower()) for w in FLAT_WORDS.findall(text))


def _denies(words: list[str], i: int) -> bool:
    """Whether the negation words[i] denies what follows (not "or not", not "not always")."""
    alternative = "or" in words[max(i - 2, 0):i]  # "may or may not", "whether or not"
    weakened = i + 1 < len(words) and words[i + 1] in _PARTIAL
    return not (alternative or weakened)


MIN_SHARED_RUN = 3  # words a claim must copy in a row before a word beside the run counts as swapped


def swapped_back(claim: str, cited: list[str], question: str, evidence: list[str] | None = None) -> list[str]:
    """Foils that put a cited sentence's own word back where the claim, beside a run of words
    it copied from that sentence, has a word borrowed from elsewhere: from the question, or
    from another sentence of the `evidence`.

    The question's words are free in the coverage check (restating the question is no new
    claim), so "Adaptation is the ability of organisms to respond directly to their environment"
    passed on a sentence that says it of acclimation: every word was in the sentence or the
    question, and nothing in it could be flipped. Its foil is the sentence's own subject back.
    A word from a neighbouring sentence is the same error by another road: a sentence's
    statement about one thing told of another the notes name nearby (two laws merged, one
    tract's finding given to the next tract). 8 of the flip test's 40 wrong drafts, all such
    swaps, passed: the yes/no judge found "No, heat does not flow first from a cold body to a
    hotter body" stated where the sentence says "spontaneously". Against the sentence's own
    word, the swap is a choice between two statements, and that one lost. A word of the model's
    own (a synonym) is not borrowed, and keeps only the judge's other checks.
    Each cited sentence is read on its own: the drafter cited the adaptation sentence beside the
    acclimation one, and "adaptation" was then in the cited text, though not in the sentence the
    claim was copied from.
    """
    # The cited sentence's own words are in `borrowable` too, but never count as borrowed: a
    # swapped word must be one that sentence lacks (`_swapped_back_from`).
    borrowable = set(stems(" ".join([question, *(evidence or [])])))
    return [foil for sentence in cited for foil in _swapped_back_from(claim, sentence, borrowable)
            if foil != claim]


def _swapped_back_from(claim: str, sentence: str, borrowable: set[str]) -> list[str]:
    """swapped_back for one cited sentence, with the stems a swapped-in word may come from (a
    word the sentence holds is never swapped in)."""
    said = [(m.group(), m.start(), m.end()) for m in _WORD.finditer(claim)]
    source = [m.group() for m in _WORD.finditer(sentence)]
    held = set(stems(sentence))
    claim_stems = {s for w, _, _ in said for s in stems(w)}
    mine_words, their_words = [w.lower() for w, _, _ in said], [w.lower() for w in source]
    start, at, length = SequenceMatcher(None, mine_words, their_words, autojunk=False).find_longest_match(
        0, len(mine_words), 0, len(their_words))
    if length < MIN_SHARED_RUN:
        return []
    foils = []
    for mine, theirs in ((start - 1, at - 1), (start + length, at + length)):
        if not (0 <= mine < len(said) and 0 <= theirs < len(source)):
            continue
        word, begin, end = said[mine]
        ours, replacement = stems(word), stems(source[theirs])
        if (ours and replacement and ours[0] in borrowable and ours[0] not in held
                and replacement[0] not in claim_stems and len(source[theirs]) > 3):
            foils.append(claim[:begin] + _cased(source[theirs], word) + claim[end:])
    return foils


# A question that offers a choice: "between X and Y ... which one", or "is it X or Y" in a clause
# that asks yes or no (an inverted verb first, or "whether").
_BETWEEN = re.compile(r"\bbetween (?:an? |the )?([\w'-]+(?: [\w'-]+)?) and (?:an? |the )?([\w'-]+(?: [\w'-]+)?)"
                      r"(?=[,;:.?!]| and\b| or\b|$)", re.IGNORECASE)
_WHICH = re.compile(r"\bwhich\b", re.IGNORECASE)
_EITHER = re.compile(r"\b([\w'-]{3,}) or ([\w'-]{3,})\b", re.IGNORECASE)
_CLAUSES = re.compile(r"[,;:.?!]|\band\b|\bbut\b", re.IGNORECASE)
_ASKS_WHICH = re.compile(r"^\s*(?:is|are|was|were|does|do|did|would|will|can|could|should|has|have)\b|\bwhether\b",
                         re.IGNORECASE)


# One question asked twice of two things: "When should I speed up and when should I slow down?"
_TWICE_ASKED = re.compile(r"^\s*(when|where|why|how|what|who)\b(.+?)\band\s+\1\b(.+)$", re.IGNORECASE)
MOST_ALTERNATIVE_WORDS = 3


def alternatives(question: str) -> list[tuple[str, str]]:
    """The pairs of answers a question offers to choose between, as the question words them."""
    pairs = [(m.group(1), m.group(2)) for m in _BETWEEN.finditer(question)] if _WHICH.search(question) else []
    for clause in _CLAUSES.split(question):
        if _ASKS_WHICH.search(clause):
            pairs += [(m.group(1), m.group(2)) for m in _EITHER.finditer(clause)
                      if m.group(1).lower() not in AUXILIARY and m.group(2).lower() != "not"]
    return pairs + _asked_twice(question)


def _asked_twice(question: str) -> list[tuple[str, str]]:
    """The two things a question asks the same of ("speed up", "slow down" in "When should I
    speed up and when should I slow down while I'm talking?"): the words after what both halves
    share, as many from the second half as the first has."""
    match = _TWICE_ASKED.match(question)
    if not match:
        return []
    first, second = match.group(2).split(), match.group(3).split()
    shared = 0
    while shared < min(len(first), len(second)) and first[shared].lower() == second[shared].lower():
        shared += 1
    said = [w.strip(",;:.?!") for w in first[shared:]]
    other = [w.strip(",;:.?!") for w in second[shared:shared + len(said)]]
    if not shared or not 0 < len(said) <= MOST_ALTERNATIVE_WORDS or len(other) < len(said) or said == other:
        return []
    return [(" ".join(said), " ".join(other))]


def other_alternative(claim: str, question: str) -> list[str]:
    """The claim with the question's other answer where it gives one ("... it is quantitative
    research" for "... it is qualitative research", asked "is that qualitative or quantitative?").

    A claim that picks one of the question's alternatives takes its word from the question,
    which the coverage check never counts against it, and nothing in it flips: the choice
    itself went unchecked. Against the other alternative it is a choice between two statements.
    On the 21 tuning questions that offer a choice no verdict changed; the right pick above
    beat the other answer by 4.5 nats. A claim giving both alternatives meets them exchanged.
    """
    offered = alternatives(question)
    foils = [_put(claim, said, other) for first, second in offered
             for said, other in ((first, second), (second, first))
             if _term(said).search(claim) and not _term(other).search(claim)]
    # A claim giving both, each with its own answer, may have paired them the wrong way round:
    # "speed up when you're presenting complex content and slow down when ... straightforward
    # points" was shown where the notes say "slower pace on more complex content".
    foils += [_exchanged_terms(claim, first, second) for first, second in offered
              if _term(first).search(claim) and _term(second).search(claim)]
    return list(dict.fromkeys(foils))


def _exchanged_terms(claim: str, first: str, second: str) -> str:
    """`claim` with `first` and `second` put in each other's places."""
    either = re.compile(rf"\b(?:{re.escape(first)}|{re.escape(second)})\b", re.IGNORECASE)
    return either.sub(lambda m: _cased(second if m.group().lower() == first.lower() else first, m.group()), claim)


def _term(term: str) -> re.Pattern[str]:
    """`term` as a whole word or phrase, in any case."""
    return re.compile(r"\b" + re.escape(term) + r"\b", re.IGNORECASE)


def _put(claim: str, said: str, other: str) -> str:
    """`claim` with `other` wherever it says `said`, and "a"/"an" before it as `other` starts:
    a fluent foil is the fair comparison."""
    foil = _term(said).sub(lambda m: _cased(other, m.group()) if m.start() == 0 else other, claim)
    article = "an" if other[:1].lower() in "aeiou" else "a"
    first = re.escape(other.split()[0])
    return re.sub(r"\b(an?) (?=" + first + r"\b)", lambda m: _cased(article, m.group(1)) + " ", foil,
                  flags=re.IGNORECASE)
