"""Symbol-font glyphs that a text layer reads as letters.

A Mac PowerPoint export embeds the Wingdings arrow of a bullet like "Deadlock → a situation
in which ..." as a one-glyph TrueType font without an encoding, and its ToUnicode map gives the
glyph's Wingdings code as a Latin-1 letter: the text layer says "Deadlock à a situation", and
a drafter wrote "… before granting a resource to each granted request" from "à each". Such a
glyph, standing alone in such a font, is read as the symbol it draws.
"""

from __future__ import annotations

import re

import pymupdf

# Wingdings codes read as Latin-1 letters, and the symbol each draws.
WINGDINGS = {"à": "→", "è": "→", "ß": "←", "á": "↑", "â": "↓"}

_SYMBOLIC = 4  # FontDescriptor flag bit 3: the font's glyphs are not the standard Latin set
_NONSYMBOLIC = 32


def symbol_glyphs(doc: pymupdf.Document, page: pymupdf.Page, rawdict: dict) -> dict[tuple[int, int], list[float]]:
    """Per (block, line): the left edges of lone Wingdings-code letters that a symbol font maps to."""
    letters = _symbol_letters(doc, page)
    found: dict[tuple[int, int], list[float]] = {}
    if not letters:
        return found
    for block_no, block in enumerate(rawdict.get("blocks", [])):
        for line_no, line in enumerate(block.get("lines", [])):
            for span in line["spans"]:
                chars = [c for c in span["chars"] if not c["c"].isspace()]
                if len(chars) == 1 and chars[0]["c"] in letters.get(span["font"], ()):
                    found.setdefault((block_no, line_no), []).append(chars[0]["bbox"][0])
    return found


def _symbol_letters(doc: pymupdf.Document, page: pymupdf.Page) -> dict[str, set[str]]:
    """Per font name: the Wingdings-code letters a symbolic TrueType subset of that name, one
    without an encoding, maps its glyphs to. (The export names the text's subset and the
    symbol's alike, so the name alone cannot tell them apart; a lone letter the symbol subset
    maps to can.)"""
    found: dict[str, set[str]] = {}
    try:
        fonts = page.get_fonts()
    except (RuntimeError, ValueError):  # a damaged font list costs the arrows, never the page
        return found
    for xref, _ext, kind, basefont, _ref, encoding, *_ in fonts:
        try:
            if kind != "TrueType" or encoding or _flags(doc, xref) & (_SYMBOLIC | _NONSYMBOLIC) != _SYMBOLIC:
                continue
            mapped = {chr(int(code, 16)) for code in re.findall(r"<([0-9A-Fa-f]{4})>", _to_unicode(doc, xref))}
        except (RuntimeError, ValueError):
            continue
        if mapped & WINGDINGS.keys():
            found.setdefault(basefont.split("+", 1)[-1], set()).update(mapped & WINGDINGS.keys())
    return found


def _to_unicode(doc: pymupdf.Document, font_xref: int) -> str:
    """The font's ToUnicode map as text, empty when it has none."""
    kind, value = doc.xref_get_key(font_xref, "ToUnicode")
    if kind != "xref":
        return ""
    stream = doc.xref_stream(int(value.split()[0])) or b""
    return stream.decode("latin-1")


def _flags(doc: pymupdf.Document, font_xref: int) -> int:
    """The font's FontDescriptor flags, 0 when it has none."""
    kind, value = doc.xref_get_key(font_xref, "FontDescriptor")
    if kind != "xref":
        return 0
    kind, flags = doc.xref_get_key(int(value.split()[0]), "Flags")
    return int(flags) if kind == "int" else 0
