"""Evidence as numbered sentences: what models cite, and what code resolves to spans and boxes."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from citetutor.chunking import line_boxes
from citetutor.models.base import Embedder
from citetutor.retrieval import Hit, tokenize

# A sentence ends at . ! ? before a capital, digit, bracket or bullet; a blank line, a bullet
# line, a Q:/A: line or a slide heading also starts a new one (slides rarely use full stops).
# Full stops that end an abbreviation, not a sentence: cut there, "other techniques (e.g." and
# "NMR) give a more local picture" became two sentences, and neither said which technique
# gives the local picture (50 such cuts in 12 of the eval PDFs: e.g., i.e., cf., Fig., vs., et al.).
_ABBREVIATED = r"(?<!\b[eE]\.g\.)(?<!\b[iI]\.e\.)(?<!\b[cC]f\.)(?<!\b[vV]s\.)(?<!\bFig\.)(?<!\bet al\.)"
_BOUNDARY = re.compile(
    r"(?<=[.!?])" + _ABBREVIATED + r"\s+(?=[\"'(\[A-Z0-9•])"
    r"|\n\s*\n"
    r"|\n(?=\s*(?:[•\-–*▪]\s|\d{1,2}[.)]\s|[QA]:))"
    r"|\n(?=[A-Z][^\n]{2,60}\n\s*[•●])"  # a slide heading starts its bullets' sentence
)
# A sentence that points back: it opens with a pronoun, or with a short phrase and then one
# ("In Ontario, it is not punishable", "If they are unable to apportion it, it defaults to 50/50").
_OPENING_PHRASE = r"[^,.;:!?\n•]{1,40},\s*"
# Or it names them in its first few words, where no noun follows ("Know these as you go along
# so you don't escalate ...", "We tend to include these when they shouldn't matter").
_FEW_WORDS = r"(?:[^\s,.;:!?•]+\s+){1,5}?"
_NO_NOUN_AFTER = (r"(?=\s+(?:as|when|if|because|so|to|in|on|is|are|was|were|can|will|may|should|and|or|"
                  r"by|for|with|at|from|into|over|up|out|down|apart|together|first|again)\b|\s*[,.;:!?)]|\s*$)")
_ANAPHOR = re.compile(rf"(?:{_OPENING_PHRASE})?(?:This|These|That|Those|It|Its|They|Their|Such|Thus|Hence|"
                      rf"Therefore|So|Then)\b|{_OPENING_PHRASE}(?:it|its|they|their|this|these|those)\b"
                      rf"|{_FEW_WORDS}(?:these|those|them)\b{_NO_NOUN_AFTER}")
# A sub-item of a list: a dash bullet or a numbered item (a "•" starts a new point instead).
_LIST_ITEM = re.compile(r"\s*(?:[\-–*▪]\s|\d{1,2}[.)]\s)")
MIN_SENTENCE_CHARS = 40
MAX_SENTENCE_CHARS = 320
# A slide's bullet starts with one of these; a heading line is followed by one ("•", "●").
_BULLET = re.compile(r"\s*(?:[•●▪]|[\-–*]\s)")
_HEADING = re.compile(r"^[A-Z][^\n]{2,60}$(?<![.,;:?])(?=\n\s*[•●])", re.MULTILINE)


@dataclass(frozen=True)
class Sentence:
    """One numbered evidence sentence: its chunk and its character span in the chunk text."""

    number: int
    hit: Hit
    start: int
    end: int
    cosine: float = 0.0  # closeness in meaning to the question

    @property
    def text(self) -> str:
        """The sentence as it stands in the chunk, on one line."""
        return " ".join(self.hit.text[self.start:self.end].split())

    @property
    def label(self) -> str:
        """How prompts and messages name it."""
        return f"S{self.number}"

    @property
    def heading(self) -> str:
        """The slide heading a bullet sits under, if the chunk shows one above it.

        A bullet list's meaning hangs on its heading: "• Examples – Vestigial traits – Blind spot
        in the vertebrate eye" lists examples of *historical constraints*, and read without its
        heading the drafter gave the blind spot as an example of a vestigial trait.
        """
        if not _BULLET.match(self.hit.text[self.start:self.end]):
            return ""
        above = [m.group() for m in _HEADING.finditer(self.hit.text) if m.end() <= self.start]
        return " ".join(above[-1].split()) if above else ""


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences of `text`: short pieces merged, long ones cut at lines."""
    cuts = [0, *(m.end() for m in _BOUNDARY.finditer(text)), len(text)]
    pieces = [(a, b) for a, b in zip(cuts, cuts[1:]) if text[a:b].strip()]
    merged: list[tuple[int, int]] = []
    listing = False  # the sentence being built introduced a list ("... will occur if there is:")
    for start, end in pieces:
        previous = text[merged[-1][0]:merged[-1][1]].strip() if merged else ""
        joined = end - merged[-1][0] if merged else 0
        if merged and (len(previous) < MIN_SENTENCE_CHARS or _belongs_to(previous, text[start:end], joined)
                       or (listing and joined <= MAX_SENTENCE_CHARS and _LIST_ITEM.match(text[start:end]))):
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
            listing = False
        listing = listing or text[merged[-1][0]:merged[-1][1]].rstrip().endswith(":")
    return [span for a, b in merged for span in _cut_long(text, a, b)]


def _belongs_to(previous: str, piece: str, joined_length: int) -> bool:
    """Whether `piece` joins the sentence before it, so a cited sentence states its fact alone:
    it points back ("This motion is known as ...", "In Ontario, it is not punishable": without
    "Nonfeasance refers to failing to provide a positive act (for example, not saving a dying
    person)" before it, the drafter was never shown what is not punishable), or answers a
    question or heading that ends in "?" (slides: "When is an array used? 1) Storing ..."), or
    is what a sentence ending in ":" announced. A slide's "Evolution will occur if there is:"
    said nothing on its own, and the drafter, which sees sentences ranked by meaning and not in
    order, finished it with a sentence from another page."""
    if joined_length > MAX_SENTENCE_CHARS:
        return False
    return bool(_ANAPHOR.match(piece.lstrip())) or previous.endswith(("?", ":"))


def _cut_long(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Split an over-long piece at line breaks (then spaces) so each part stays quotable."""
    spans = []
    while end - start > MAX_SENTENCE_CHARS:
        window = text[start:start + MAX_SENTENCE_CHARS]
        cut = window.rfind("\n", MAX_SENTENCE_CHARS // 2)
        if cut < 0:
            cut = window.rfind(" ", MAX_SENTENCE_CHARS // 2)
        cut = start + (cut + 1 if cut > 0 else MAX_SENTENCE_CHARS)
        spans.append(_trim(text, start, cut))
        start = cut
    spans.append(_trim(text, start, end))
    return [s for s in spans if s[1] > s[0]]


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink a span past surrounding whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _unique_sentences(hits: list[Hit]) -> list[tuple[Hit, int, int]]:
    """(chunk, start, end) of every sentence of the chunks, without overlap repeats.

    Neighbouring chunks overlap, and a chunk that starts mid-slide glues the last words of the
    bullet before onto a sentence ("become more common Fitness • “Survival of the fittest” ..."):
    a sentence of another chunk that is held in one already numbered is a repeat, and one that
    holds it takes its place (the fuller text: a slide build's page 41 holds only the headings
    that page 48 continues with "More context features are bound to the item ...").
    Two copies of one sentence took two of the twelve places and split the models' citations.
    """
    found: list[tuple[Hit, int, int]] = []
    keys: list[str] = []
    for hit in hits:
        for start, end in sentence_spans(hit.text):
            key = " ".join(hit.text[start:end].lower().split())
            other = [i for i, k in enumerate(keys) if k == key or
                     (found[i][0].id != hit.id and _repeats(key, k))]
            if not other:
                keys.append(key)
                found.append((hit, start, end))
            elif len(key) > len(keys[other[0]]):
                keys[other[0]], found[other[0]] = key, (hit, start, end)
    return found


def _repeats(one: str, other: str) -> bool:
    """Whether one sentence text holds the other whole (and the held one is a real sentence)."""
    shorter, longer = sorted((one, other), key=len)
    return len(shorter) >= MIN_SENTENCE_CHARS and shorter in longer


def number_evidence(hits: list[Hit], question: str, embedder: Embedder,
                    max_sentences: int) -> list[Sentence]:
    """Number the retrieved chunks' most relevant sentences, best first, without repeats.

    Small models read a short prompt faster and cite from its top more reliably, so the
    sentences closest in meaning to the question come first and get the lowest numbers.
    """
    candidates = _unique_sentences(hits)
    if not candidates:
        return []
    texts = [" ".join(h.text[a:b].split()) for h, a, b in candidates]
    vectors = embedder.embed([question, *texts])
    wanted = set(stems(question))
    # Shared words break near-ties in meaning (a formula's symbols embed poorly).
    cosine = vectors[1:] @ vectors[0]
    score = [float(c) + 0.02 * len(wanted & set(stems(t))) for c, t in zip(cosine, texts)]
    best = sorted(range(len(candidates)), key=lambda i: (-score[i], i))[:max_sentences]
    return [Sentence(n, *candidates[i], float(cosine[i])) for n, i in enumerate(best, start=1)]


def number_in_order(hits: list[Hit], max_sentences: int) -> list[Sentence]:
    """Number the chunks' sentences in reading order, spread evenly when there are too many."""
    candidates = _unique_sentences(hits)
    if len(candidates) > max_sentences:
        candidates = [candidates[i * len(candidates) // max_sentences] for i in range(max_sentences)]
    return [Sentence(n, *c) for n, c in enumerate(candidates, start=1)]


# Small numbers written as words, so "a capacity of two" states the 2 a claim gives.
NUMBER_WORDS = {"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
                "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10", "twice": "2",
                "double": "2", "twenty": "20", "hundred": "100", "thousand": "1000"}
_SUFFIXES = ("ing", "ed", "es", "s")
# Irregular forms of verbs, so "the experiment ran" meets "did it run" as "-ed" forms meet: a right
# "ran for 100 generations" counted "ran" as a word its sentence lacked. Only forms that are no
# other common word ("left", "led", "rose", "saw", "found", "bound" and "fed", the Fed, stay).
IRREGULAR_FORMS = {
    form: base for base, forms in {
        "run": "ran", "pay": "paid", "make": "made", "take": "took taken", "give": "gave given",
        "get": "got gotten", "go": "went gone", "come": "came", "grow": "grew grown",
        "rise": "risen", "fall": "fallen", "lose": "lost", "win": "won", "sell": "sold",
        "buy": "bought", "build": "built", "keep": "kept", "mean": "meant", "think": "thought",
        "teach": "taught", "hold": "held", "begin": "began begun", "know": "knew known",
        "write": "wrote written", "choose": "chose chosen", "draw": "drew drawn", "show": "shown",
        "see": "seen", "say": "said", "tell": "told", "spend": "spent", "send": "sent",
        "bring": "brought", "catch": "caught", "fight": "fought", "feel": "felt", "meet": "met",
        "stand": "stood", "understand": "understood", "break": "broke broken",
        "speak": "spoke spoken", "freeze": "froze frozen", "drive": "drove driven",
        "eat": "ate eaten", "drink": "drank drunk", "fly": "flew flown", "wear": "wore worn",
        "tear": "tore torn", "shake": "shook shaken", "steal": "stole stolen", "throw": "threw thrown",
        "forget": "forgot forgotten", "hide": "hid hidden", "ride": "rode ridden",
        "sing": "sang sung", "swim": "swam swum", "sink": "sank sunk", "shrink": "shrank shrunk",
        "spin": "spun", "stick": "stuck", "strike": "struck", "swing": "swung", "dig": "dug",
        "lend": "lent", "bend": "bent",
    }.items() for form in forms.split()
}


def stem(word: str) -> str:
    """A crude stem: number words as digits, irregular forms as their verb, a plural or -ing/-ed
    ending off (`_shortest_base`), then 5 letters."""
    word = IRREGULAR_FORMS.get(word, NUMBER_WORDS.get(word, word))
    if not word.isalpha():
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= _shortest_base(suffix, word):
            word = word[: -len(suffix)]
            break
    return word[:5]


def _shortest_base(suffix: str, word: str) -> int:
    """How many letters must remain once `suffix` is off: four, but three for a plural or verb
    in "-s" ("keys", "bits", "gets": a claim saying the boss "gets" sued was refused for a word
    the question's "get" already gave), unless the "s" is its own ("this", "plus", "bias", "less")."""
    return 3 if suffix == "s" and word[-2:-1] not in "suia" else 4


# A number glued to the word after it ("12week"): a text layer that lost its spaces.
_GLUED_NUMBER = re.compile(r"^(\d+)([a-z]{3,})$")


# Negations written as one word with their verb, read as the verb and "not".
_CONTRACTED_NEGATION = re.compile(r"\b(\w+?)n['’]t\b|\bcannot\b", re.IGNORECASE)
_CONTRACTED_VERBS = {"ca": "can", "wo": "will", "sha": "shall"}  # can't, won't, shan't


def stems(text: str) -> list[str]:
    """Content-word stems: tokens without stopwords, so forms of a word meet.

    A number glued to its unit is read as both: a slide's text layer "Test'after'12week'delay"
    held the "12 weeks after learning" a right draft said, and the claim was refused because
    "12week" is one token. (Only here, for the checks: retrieval's index keeps its tokens.)
    A negation is "not" however it is written: a right "You cannot be sued ... while testifying"
    was refused, and its source "defamation is not possible" never named, because "cannot" was
    one word of its own; and "can't" was read as "can", so it denied nothing.
    """
    words = [part for w in tokenize(_spelled_negations(text)) for part in _unglued(w)]
    return [stem(w) for w in words if len(w) > 2 or w.isdigit()]


def _spelled_negations(text: str) -> str:
    """'cannot' as 'can not', "isn't" as 'is not', "won't" as 'will not'."""
    def spelled(match: re.Match[str]) -> str:
        if match.group(0).lower() == "cannot":
            return "can not"
        verb = match.group(1)
        return f"{_CONTRACTED_VERBS.get(verb.lower(), verb)} not"
    return _CONTRACTED_NEGATION.sub(spelled, text)


def _unglued(token: str) -> tuple[str, ...]:
    """'12week' as ('12', 'week'); any other token as itself."""
    glued = _GLUED_NUMBER.match(token)
    return glued.groups() if glued else (token,)


def evidence_block(sentences: list[Sentence]) -> str:
    """Evidence as models see it: one numbered sentence a line.

    No page numbers: small models cited "p. 9" as sentence 9, and code resolves pages anyway.
    A bullet carries its slide heading in brackets, so a list is read as what it lists.
    """
    return "\n".join(f"[{s.label}] " + (f"({s.heading}) " if s.heading else "") + s.text
                      for s in sentences)


def sentence_boxes(sentence: Sentence) -> list[list[float]]:
    """Line boxes of the sentence's words, from the chunk's word boxes (else the chunk's lines)."""
    words = json.loads(sentence.hit.word_boxes or "null")
    if not words:
        return json.loads(sentence.hit.bboxes or "[]")
    return line_boxes(rect for start, end, *rect in words
                      if not (end <= sentence.start or start >= sentence.end))
