"""The names a question gives ("Winkel tripel", "Bayes' theorem", "UTM"): a name the notes never
use is something they do not cover, however close the rest of the question sits in meaning.

Near-misses are questions about a thing next to what the notes teach, and they usually name it.
"How does the Winkel tripel projection balance its distortions?" sat at cosine 0.55 from the
map-projection poster, which never names it, and a general sentence on distortion was shown as
its quote. Across the eleven question sets, every supported question's names are in its notes,
and thirteen near-misses name something their notes never mention. A name the notes do use is
no guard: "How does FP-Growth build its tree?" on slides that list FP-Growth still reaches the models.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\S+")
_EDGES = re.compile(r"^[^\w]+|[^\w.]+$")
_SENTENCE_END = re.compile(r"[.?!:]$")
_PARTS = re.compile(r"[-_\s]+")
# A possessive or a contraction is not part of the name: "Bayes' theorem" names Bayes; "I've"
# and "I'd" name nobody ("If I've got the cumulative hazard, ..." was refused before any model
# read it: "your notes never mention I've").
_CONTRACTION = re.compile(r"['’](?:s|ve|d|ll|m|re)?$", re.IGNORECASE)
# Students spell out the symbols their notes write: "R-naught" for R0, "Delta" for Δ. Asked
# "What does R-naught have to be above ...?", notes that write R0 were told they never mention it.
SPELLED_SYMBOLS = {
    "naught": "0", "nought": "0", "zero": "0",
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "zeta": "ζ",
    "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ",
    "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "chi": "χ", "psi": "ψ",
    "omega": "ω",
}


def names_in(question: str) -> list[str]:
    """The words of a question that name something: capitalised inside a sentence ("Bayes'",
    "Winkel"), or an acronym or code anywhere ("DNA", "WGS84"); never "I" ("I've", "I’m") or a
    one-letter symbol."""
    found, starts_sentence = [], True
    for raw in _WORD.findall(question):
        word = _CONTRACTION.sub("", _EDGES.sub("", raw)).rstrip(".")
        acronym = sum(c.isupper() for c in word) > 1 or (word[:1].isupper() and any(c.isdigit() for c in word))
        if len(word) > 1 and (acronym or (word[:1].isupper() and not starts_sentence)):
            found.append(word)
        starts_sentence = bool(_SENTENCE_END.search(raw))
    return found


def written_forms(name: str) -> list[str]:
    """The name as given and, when it spells out a symbol, as notes write it: "R-naught" is
    also "R0", "Delta-G" also "δG", "Sigma" also "σ"."""
    parts = [part for part in _PARTS.split(name) if part]
    symbolic = "".join(SPELLED_SYMBOLS.get(part.lower(), part) for part in parts)
    return [name] if symbolic == "".join(parts) else [name, symbolic]


# An acronym a student writes for words the notes spell out, with the number they may add:
# "How did owning stuff abroad help Britain and France before WW1?" was refused outright by
# notes that write "World War 1". Its letters, then an optional number (arabic or roman).
_ACRONYM = re.compile(r"^([A-Z]{2,6}?)(\d{1,2}|X|IX|IV|V?I{0,3})s?$")
_ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8, "IX": 9, "X": 10}
_NUMBER_WORDS = ["", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten"]


def spelled_out(name: str) -> list[str]:
    """Regular expressions (RE2 and Python alike) for the words an acronym stands for, as notes
    introduce them: capitalised words whose initials spell it, then its number ("World War 1",
    "World War I" or "World War One" for "WW1" and "WWI"). Only capitalised words count: any long
    text holds lower-case words with a given run of initials, and a near-miss naming something
    the notes never mention must still be refused. Empty for a name that is not an acronym."""
    patterns = []
    for letters, number in _readings(name):
        words = r"[\s-]+".join(f"{letter}[a-z]+" for letter in letters)
        tail = ""
        if number:
            forms = [str(number), *(r for r, n in _ROMAN.items() if n == number)]
            forms += [_NUMBER_WORDS[number]] if number < len(_NUMBER_WORDS) else []
            tail = rf"[\s-]+(?:{'|'.join(forms)})"
        patterns.append(rf"\b{words}{tail}\b")
    return patterns


def _readings(name: str) -> list[tuple[str, int]]:
    """(letters, number) readings of an acronym: "WWII" is W-W and 2, or the letters W-W-I-I."""
    if not name.isascii() or not name.isalnum():
        return []
    readings = []
    match = _ACRONYM.match(name)
    if match and match.group(2):
        number = match.group(2)
        value = int(number) if number.isdigit() else _ROMAN.get(number, 0)
        if value:
            readings.append((match.group(1), value))
    letters = name[:-1] if name.endswith("s") else name
    if letters.isalpha() and letters.isupper() and 2 <= len(letters) <= 6:
        readings.append((letters, 0))
    return readings
