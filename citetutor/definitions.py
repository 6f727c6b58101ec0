"""Short-answer cards made by code from a sentence that defines a term ("Price effect: As price
decreases, existing customers pay less."; "Licensing requirement = legal barrier to entry.";
"A monopolist is a price maker."; "... is called centripetal acceleration").

The card gives the notes' own definition and asks for the term, its key, both cut out of the
sentence, so neither can be misquoted. Drafted short answers rarely passed on slides (0 kept on
the economics and psychology slides): the 1.5B keyed "Examples: Natural monopolies." or
restated the stem, while the slides define terms in exactly these shapes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citetutor.cloze import GENERIC_WORDS
from citetutor.retrieval import STOPWORDS

# A term is at most this many words; a longer run before ":" is a heading run into a label.
MAX_TERM_WORDS = 3
MIN_DEFINITION_WORDS = 3
MAX_DEFINITION_CHARS = 160  # what a card's key may hold
# Labels that introduce a list, an aside or a slide's furniture, not a term's meaning.
_NOT_TERMS = GENERIC_WORDS | frozenset(
    "q a source sources synonyms synonym result results conditions condition outcome outcomes "
    "aside recall remember hint hints warning caution tip note key summary goal goals aim aims "
    "step steps case cases question questions answer answers exercise exercises problem problems "
    "solution solutions definition definitions reason reasons advantage advantages disadvantage "
    "disadvantages pros cons intuition implications implication basically concisely comment comments "
    "essence ex task tasks".split())
_BULLET = r"[\s•●○■□\-–—*·◦▪‣]*"
_TERM_WORD = re.compile(r"[\"“]?[A-Za-z][A-Za-z'-]*[\"”]?")
# A definition of words: an arrow or formula the text layer flattened ("HH� price cut", "TEi =
# Y1i −Y0i") is not something a student can be asked to recall in words.
_SYMBOL = re.compile(r"[^\w\s.,;:'\"“”‘’()%/&+–—-]|=")
_PAGE_COUNTER = re.compile(r"\s+\d+\s*/\s*\d+\s*$")  # "6 / 38" closing a slide's text
# A definition that opens like these is an example, an aside or a sentence about something
# said before, not what the term means: "e.g., different encoding contexts", "This means ...".
_NOT_A_MEANING = re.compile(r"^(e\.g\.?|eg\b|this|that|these|those|it|they)\b|\b(we|our|us|you|your)\b|"
                            r"et al\b|\(\d{4}\)|!", re.IGNORECASE)
# A label ending in a verb introduces a statement ("The third law of thermodynamics states: ...").
_VERB_ENDINGS = frozenset("states state says say shows show gives give tells tell is are was were".split())
# "Term: definition" or "Term = definition"; the term ends right before the mark.
_LABEL = re.compile(r"(?P<before>[^:=]*?)(?P<mark>:|\s=)\s+(?P<rest>.+)", re.DOTALL)
_CALLED = re.compile(r"^(?P<definition>.+?)\s+(?:is|are)\s+(?:called|known as|referred to as|termed)\s+"
                     r"(?P<term>[A-Za-z][\w'-]*(?:\s+[A-Za-z][\w'-]*){0,2})\s*[.;]?\s*$")
_COPULA = re.compile(r"^(?:An?|The)\s+(?P<term>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,2})\s+(?:is|means|refers to)\s+"
                     r"(?P<definition>(?:a|an|the|any|one)\s+.+?)\s*[.;]?\s*$")


@dataclass(frozen=True)
class Definition:
    """A term and what the sentence says it is."""

    term: str
    definition: str

    @property
    def stem(self) -> str:
        """The question a student answers from memory: the meaning given, the term asked for.
        The other way round ("What is meant by “price effect”?"), the 1.5B solver answered from
        its own knowledge ("the effect on the output of a firm due to changes in price") and
        every such card on the economics slides was dropped; a term is also marked reliably."""
        return f"Which term means “{self.definition}”?"


def definition_in(sentence: str) -> Definition | None:
    """The first term the sentence defines, or None."""
    text = _PAGE_COUNTER.sub("", " ".join(sentence.split()))
    for found in (_labelled(text), _called(text), _copula(text)):
        if found and _usable(found):
            return found
    return None


def _labelled(text: str) -> Definition | None:
    """"Term: definition" or "Term = definition", where the term is the short run right before
    the mark: a slide's heading often runs into it ("Result Market power: A monopolist ...")."""
    match = _LABEL.match(text)
    if not match or text.count("=") > 1:
        return None
    words = [re.sub(rf"^{_BULLET}", "", w) for w in match["before"].split()]
    clean: list[str] = []  # the words right before the mark that could name a term
    for word in reversed(words):
        if not _TERM_WORD.fullmatch(word) or len(clean) == MAX_TERM_WORDS:
            break
        clean.insert(0, word)
    while clean and clean[0].lower() in _NOT_TERMS:  # "Result Market power:" names market power
        clean.pop(0)
    if not clean or (len(clean) < len(words) and not clean[0][:1].isupper()):
        return None  # "(unit in the last place) ULP" keeps "ULP"; "... in the bug" keeps nothing
    term = " ".join(clean) if len(clean) == len(words) else _capitalised_tail(clean)
    definition = _up_to_next_label(match["rest"])
    return Definition(_as_asked(term), definition.strip().rstrip(".;,"))


def _capitalised_tail(words: list[str]) -> str:
    """The shortest run of the last words that starts with a capital ("Market power")."""
    for size in range(1, len(words) + 1):
        if words[-size][:1].isupper():
            return " ".join(words[-size:])
    return ""


def _up_to_next_label(rest: str) -> str:
    """A definition ends where the slide's next "Term:" begins ("... point in time Treatment: ...")."""
    following = re.search(r"\s(?:[A-Z][\w'-]*\s){0,2}[A-Z][\w'-]*:\s", rest)
    return rest[:following.start()] if following else rest


def _called(text: str) -> Definition | None:
    """"<definition> is called <term>"."""
    match = _CALLED.match(text)
    if not match:
        return None
    return Definition(_as_asked(match["term"]), match["definition"][0].upper() + match["definition"][1:])


def _copula(text: str) -> Definition | None:
    """"A <term> is a <definition>": one of a kind, said of a term of one to three words."""
    match = _COPULA.match(text)
    return Definition(match["term"], match["definition"]) if match else None


def _as_asked(term: str) -> str:
    """Lower case unless an acronym (SSSS, DoP), without quotation marks."""
    term = term.strip("\"'“”‘’")
    term = re.sub(r"[\"“”]", "", term)
    return " ".join(w if sum(c.isupper() for c in w) > 1 else w.lower() for w in term.split())


def _usable(found: Definition) -> bool:
    """A term worth asking for, defined in prose: not a label of slide furniture, a number or
    a symbol, and a definition of words more than names (not "Synonym Unhappy – SAD")."""
    term_words = found.term.split()
    if not term_words or not all(_TERM_WORD.fullmatch(w) for w in term_words):
        return False  # a number, a symbol or a formula ("x > 0", "6.4.2", "Bio 1M")
    lowered = [w.lower() for w in term_words]
    if any(w in _NOT_TERMS for w in lowered) or lowered[0] in STOPWORDS or lowered[-1] in _VERB_ENDINGS:
        return False  # "Examples Early 1900s:", "In essence:", "The third law states:"
    definition = found.definition
    if not definition[:1].isalpha() or _NOT_A_MEANING.search(definition) or _SYMBOL.search(definition):
        return False
    if len(found.term) < 3 or len(definition) > MAX_DEFINITION_CHARS:
        return False
    words = definition.split()
    letters = [w for w in words if re.match(r"[A-Za-z]", w)]
    prose = [w for w in letters[1:] if w[0].islower()]  # the first word may open with a capital
    return (len(letters) >= MIN_DEFINITION_WORDS and len(letters) >= 0.6 * len(words)
            and len(prose) >= 0.5 * (len(letters) - 1) and not re.search(r"[?:]", definition))


def recurs(term: str, sentences: list[str], at_least: int = 2) -> bool:
    """Whether the range names the term in `at_least` sentences: a term the notes discuss, not a
    slide's one-off label ("Canvas: New practice problems ...")."""
    pattern = re.compile(rf"(?<!\w){re.escape(term)}(?:s|es)?(?!\w)", re.IGNORECASE)
    return sum(bool(pattern.search(s)) for s in sentences) >= at_least
