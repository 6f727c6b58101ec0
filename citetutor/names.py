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
    "Winkel"), or an acronym or code anywhere ("DNA", "WGS84"); never "I" or a one-letter symbol."""
    found, starts_sentence = [], True
    for raw in _WORD.findall(question):
        word = re.sub(r"'s?$", "", _EDGES.sub("", raw)).rstrip(".")
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
