"""Formulas a text writes out ("R = 3k - 2k^2 + 1"), and whether another text writes the same.

The number check cannot see a changed formula: every digit of "R = 3k - 2k^2 + 1" is in the
slide's "R = 3k −2k+1 + 1" (3^k − 2^(k+1) + 1, whose superscripts the text layer drops), yet the
claim squares a term the slide does not. So a formula a claim states must appear in its cited
sentences, compared without the marks a text layer loses: spaces, carets, brackets, fraction
bars, superscripts (as digits).
"""

from __future__ import annotations

import re
import unicodedata

OPERATOR = frozenset("=+-−*/×·<>≤≥")
# Short words that sit between symbols in prose ("A is 1/4") but are not symbols.
PROSE = frozenset("is a an of to in on at by or if it as be we so no do and the for".split())
# A short symbol, maybe Greek, maybe applied to its argument ("λ(t)", "F(t)"), or a number.
_OPERAND = re.compile(r"^[(\[]*(?:[A-Za-zα-ωΑ-Ω]{1,2}\d*(?:\([^()\s]{1,8}\))?|\d[\d.,]*[A-Za-z]{0,2}\d*)[)\]]*$")
_MATH_CHARS = re.compile(r"[=^+*/×·²³⁰¹⁴⁵⁶⁷⁸⁹ⁿ≤≥<>]")
_TRAILING = ".,;:!?"
# Marks a text layer loses or a model writes its own way: spaces, carets, brackets, fraction bars.
_DROPPED = re.compile(r"[\s^(){}\[\]/]")
_TIMES_X = re.compile(r"(?<=[\d)])\s*x\s*(?=[\d(])")  # "5 x 2", a model's multiplication sign
_SPELLED = (("−", "-"), ("×", "*"), ("·", "*"), ("⇒", "=>"), ("→", "->"))


def _is_math(token: str) -> bool:
    """An operator, a short symbol or number ("3k", "x1", "0.5", "S(t)"), or a token holding an
    operator."""
    if token.lower() in PROSE:
        return False
    return token in OPERATOR or bool(_OPERAND.match(token)) or bool(_MATH_CHARS.search(token))


def formulas_in(text: str) -> list[str]:
    """The runs of three or more symbol tokens with an operator between operands, as written."""
    runs: list[list[str]] = [[]]
    for raw in text.split():
        token = raw.rstrip(_TRAILING) if len(raw) > 1 else raw
        if _is_math(token):
            runs[-1].append(token)
        else:
            runs.append([])
        if token != raw:  # a clause ends at its comma or full stop
            runs.append([])
    return [" ".join(run) for run in runs
            if len(run) >= 3 and any(t in OPERATOR or _MATH_CHARS.search(t) for t in run[1:])]


def flattened(text: str) -> str:
    """A text as a text layer would flatten it: superscripts as digits, one way to write each
    sign, no spaces, carets, brackets or fraction bars, lower case."""
    text = _TIMES_X.sub("*", unicodedata.normalize("NFKC", text))
    for written, sign in _SPELLED:
        text = text.replace(written, sign)
    return _DROPPED.sub("", text).lower()


def unstated_formulas(claim: str, cited: str) -> list[str]:
    """The formulas `claim` writes that `cited` does not, once both are flattened."""
    held = flattened(cited)
    return [f for f in formulas_in(claim) if flattened(f) not in held]
