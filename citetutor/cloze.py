"""Cards made by code from one source sentence: a blank over a key term or value, and
multiple-choice distractors drawn from the same page range.

The key is the notes' own words, cut out of the sentence, so it cannot be misquoted; what a
model still has to show is that the blank can be filled from the notes (quiz.py's blind solve).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass

from citetutor.retrieval import STOPWORDS

BLANK = "_____"
# Words too general to be worth remembering, or slide furniture.
GENERIC_WORDS = frozenset(
    "about above after again also always among another answer because been before being below "
    "between both can could each either even every example first following from further given have "
    "here however into just last less like made make many more most much must next note notes only "
    "other over question same should since slide some such than their them then there these they "
    "thing things this those through thus under until upon used using very well were what when "
    "where whether which while will with within without would yes lecture page today good often "
    "idea people part parts kind kinds lots even still never ever always show shows examples rationale "
    "tradeoff".split()
)
# Words after which a value is a label (Fig 22.7, Eq. 4), not a fact.
_LABELS = frozenset("fig figure table eq equation chapter ch section page slide lecture week".split())
# A word that follows one of these, or ends like a noun, names a thing a card can ask for.
_DETERMINERS = frozenset("the a an of is are called named its their this these".split())
_NOUN_ENDINGS = ("tion", "sion", "ity", "ness", "ment", "ance", "ence", "ism", "ogy", "ics", "ure", "ant",
                 "ess", "py", "ory", "ium", "um", "ist", "cy", "ship", "hood", "ule", "ole", "ein")
_TOKEN = re.compile(r"(?<![\w=/^.])(\d+(?:[.,]\d+)?%?|[A-Za-z][A-Za-z'-]*[A-Za-z])(?![\w=/^]|\.\d)")


@dataclass(frozen=True)
class Term:
    """A blankable span of a sentence: its text, where it is, and whether it is a value."""

    text: str
    start: int
    end: int
    value: bool

    @property
    def key(self) -> str:
        """How terms are compared: lower case, one space."""
        return " ".join(self.text.lower().split())


@dataclass(frozen=True)
class Cloze:
    """A sentence with its key term blanked out."""

    stem: str
    key: str
    value: bool


def _tokens(sentence: str) -> list[Term]:
    """Words and numbers of a sentence, skipping parts of formulas and page counters (6 / 38)."""
    found: list[Term] = []
    for match in _TOKEN.finditer(sentence):
        text = match.group(1)
        value = text[0].isdigit()
        counter = re.match(r"\s*/\s*\d", sentence[match.end(1):]) or re.search(r"/\s*$", sentence[:match.start(1)])
        label = found and found[-1].text.lower().rstrip(".") in _LABELS
        heading = re.match(r"\s+[A-Z][a-z]", sentence[match.end(1):]) and "." in text  # 6.1 Introduction
        if value and (counter or label or heading or not found):  # 6 / 38, Fig 2, a section number
            continue
        found.append(Term(text, match.start(1), match.end(1), value))
    return found


def _noun_shaped(word: str) -> bool:
    """Ends like a noun or a plural (no part-of-speech tagger runs here)."""
    return word.endswith(_NOUN_ENDINGS) or (word.endswith("s") and not word.endswith(("ss", "us")))


def _names_a_thing(sentence: str, term: Term) -> bool:
    """Noun-like: shaped like a noun, or follows an article, preposition or "is"."""
    if _noun_shaped(term.key):
        return True
    before = sentence[:term.start].split()
    return bool(before) and before[-1].lower() in _DETERMINERS


def _content(term: Term) -> bool:
    """A word worth blanking: not a stopword or a general word, at least four letters."""
    word = term.text.lower()
    return (not term.value and len(word) >= 4 and word not in STOPWORDS and word not in GENERIC_WORDS
            and not word.endswith("ly"))


@dataclass(frozen=True)
class RangeTerms:
    """What a page range offers for blanks and distractors."""

    counts: Counter[str]  # in how many sentences each content word and two-word phrase appears
    sentences: int
    values: list[str]  # every value stated, in order, without repeats
    titles: set[str]  # three-word runs found in three or more sentences: slide titles, headers


def range_terms(sentences: list[str]) -> RangeTerms:
    """Count the range's content words and two-word phrases, and collect its values."""
    counts: Counter[str] = Counter()
    values: list[str] = []
    runs: Counter[str] = Counter()
    for sentence in sentences:
        tokens = _tokens(sentence)
        seen = {t.key for t in tokens if _content(t) or t.value}
        for left, right in zip(tokens, tokens[1:]):
            if _content(left) and _content(right) and sentence[left.end:right.start] == " ":
                seen.add(f"{left.key} {right.key}")
        counts.update(seen)
        runs.update({run for run, _, _ in _runs(sentence)})
        values += [t.text for t in tokens
                   if t.value and _meaningful_value(t.text) and t.text not in values]
    return RangeTerms(counts, len(sentences), values, {run for run, n in runs.items() if n >= 3})


def _runs(sentence: str) -> list[tuple[str, int, int]]:
    """Every run of three words: (lower-case text, start, end)."""
    words = list(re.finditer(r"\S+", sentence))
    return [(" ".join(w.group().lower() for w in words[i:i + 3]), words[i].start(), words[i + 2].end())
            for i in range(len(words) - 2)]


def _heading(sentence: str, term: "Term") -> bool:
    """A capitalised run opening the sentence and followed by another capital ("Angular Velocity
    We shall ..."): a section heading the text layer ran into the sentence."""
    start = re.match(r"[\W\d]*", sentence)
    opening = sentence[start.end() if start else 0:]
    words = opening.split()
    run = 0  # capitalised words, and the numbers of "Chapter 6 Central Motion"
    while run < len(words) and (words[run][:1].isupper() or words[run].replace(".", "").isdigit()):
        run += 1
    if run < 2 or run == len(words):
        return False
    heading_end = len(sentence) - len(opening) + len(" ".join(words[:run - 1]))
    return term.start < heading_end


def _in_title(term: "Term", sentence: str, terms: RangeTerms) -> bool:
    """Whether the term sits in a run repeated across the range: a blank in "Sources of
    Monopoly Power", the title of five slides, asks about the slides, not what they state."""
    return any(start <= term.start < end for run, start, end in _runs(sentence) if run in terms.titles)


def _meaningful_value(text: str) -> bool:
    """A value worth asking for: more than one digit, or a percentage, or a decimal."""
    digits = re.sub(r"\D", "", text)
    return len(digits) >= 2 or "%" in text or "." in text or "," in text


def blank_in(sentence: str, terms: RangeTerms, used: set[str]) -> Cloze | None:
    """Blank the sentence's best key: a value it states, else the content word or two-word term
    that recurs most in the range (a key concept) without being everywhere (the topic itself)."""
    tokens = [t for t in _tokens(sentence) if not _in_title(t, sentence, terms)
              and not _heading(sentence, t)]
    # A value or term stated once can only be recalled from its own sentence, which the solver
    # never sees; so a blank needs a key the range states at least twice.
    values = [t for t in tokens if t.value and _meaningful_value(t.text) and t.key not in used
              and terms.counts[t.key] >= 2]
    if values:
        return _cloze(sentence, values[0], value=True)
    words = [t for t in tokens if _content(t)]
    candidates: list[tuple[int, Term]] = []
    for i, word in enumerate(words):
        if _names_a_thing(sentence, word):
            candidates.append((terms.counts[word.key], word))
        if i + 1 < len(words) and sentence[word.end:words[i + 1].start] == " ":
            pair = Term(sentence[word.start:words[i + 1].end], word.start, words[i + 1].end, False)
            together = terms.counts[pair.key]
            # A phrase whose words mostly come together ("natural selection"), not two words
            # that met once ("evolution occurs"), ending in a noun; it beats its own words.
            if (together >= max(2, 0.5 * max(terms.counts[word.key], terms.counts[words[i + 1].key]))
                    and _noun_shaped(words[i + 1].key) and not word.key.endswith(("ed", "ing"))):
                candidates.append((together + 1, pair))
    ceiling = max(3, terms.sentences // 2)
    usable = [(n, t) for n, t in candidates if 2 <= n <= ceiling and t.key not in used]
    if not usable:
        # "element" named once, "elements" three times, recurs too (the arrays slides gave no
        # cloze without it); counted together only here, so a sentence's usual blank stays.
        usable = [(n, t) for t in words if _names_a_thing(sentence, t) and t.key not in used
                  for n in [_with_plural(terms, t.key)] if 2 <= n <= ceiling]
    if not usable:
        return None
    _, best = max(usable, key=lambda pair: (pair[0], len(pair[1].text)))
    return _cloze(sentence, best, value=False)


def _with_plural(terms: RangeTerms, word: str) -> int:
    """Sentences naming a word in its singular or plural form."""
    other = word[:-1] if word.endswith("s") and not word.endswith("ss") else word + "s"
    return terms.counts[word] + terms.counts[other]


def _cloze(sentence: str, term: Term, value: bool) -> Cloze | None:
    """The sentence with every occurrence of the term blanked; None if too little is left."""
    stem = re.sub(rf"(?<!\w){re.escape(term.text)}(?!\w)", BLANK, sentence, flags=re.IGNORECASE)
    if len(stem.replace(BLANK, "").split()) < 6:
        return None
    return Cloze(stem, term.text, value)


def distractors(cloze: Cloze, terms: RangeTerms, seed: str, how_many: int = 3) -> list[str]:
    """Other terms (or values) of the same range and shape as the key, none a form of it:
    values for a value, recurring terms of as many words for a term. [] when too few."""
    key = cloze.key.lower()
    if cloze.value:
        pool = [v for v in terms.values
                if v != cloze.key and v.endswith("%") == cloze.key.endswith("%")]
    else:
        size = len(key.split())
        pool = [t for t in terms.counts if len(t.split()) == size and _noun_shaped(t.split()[-1])
                and not _related(t, key) and t not in cloze.stem.lower()]
        # Recurring terms first: they are the range's concepts, not passing words.
        pool.sort(key=lambda t: (-terms.counts[t], t))
        pool = pool[: how_many * 3]
    if len(pool) < how_many:
        return []
    return random.Random(seed).sample(pool, how_many)


def _related(term: str, key: str) -> bool:
    """Whether two terms share a word's first five letters (forms of one another)."""
    return bool({w[:5] for w in term.split()} & {w[:5] for w in key.split()})
