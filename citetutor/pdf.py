"""PyMuPDF adapter: open and authenticate, per-page text with word boxes, page images."""

from __future__ import annotations

import stringprep
import unicodedata
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pymupdf

from citetutor.errors import PasswordRequired, PdfError
from citetutor.symbols import WINGDINGS, symbol_glyphs

# MuPDF prints repair warnings to stderr for every damaged file; we report errors ourselves.
pymupdf.TOOLS.mupdf_display_errors(False)


@dataclass
class Word:
    """One word, its character span in the page text, and its box in PDF points."""

    text: str
    start: int
    end: int
    rect: tuple[float, float, float, float]


@dataclass
class PageContent:
    """The text layer of one page (1-based page number)."""

    page_no: int
    text: str
    words: list[Word] = field(default_factory=list)
    width: float = 0.0
    height: float = 0.0
    has_images: bool = False

    @property
    def is_scanned(self) -> bool:
        """No text layer but something drawn as an image: OCR it."""
        return not self.text.strip() and self.has_images

    @property
    def is_blank(self) -> bool:
        """Neither text nor images: nothing to study."""
        return not self.text.strip() and not self.has_images


def open_pdf(source: Path | bytes, name: str, password: str | None = None) -> pymupdf.Document:
    """Open a PDF from a path or bytes, authenticating if encrypted."""
    try:
        if isinstance(source, bytes):
            doc = pymupdf.open(stream=source, filetype="pdf")
        else:
            doc = pymupdf.open(source, filetype="pdf")
    except Exception as exc:  # MuPDF raises several types for damaged files
        raise PdfError(
            f"'{name}' is not a readable PDF (it may be damaged or another file type). "
            "Re-export or print it to PDF from the app that made it and upload that copy."
        ) from exc
    if doc.needs_pass:
        _authenticate(doc, name, password)
    return doc


def _authenticate(doc: pymupdf.Document, name: str, password: str | None) -> None:
    """Unlock an encrypted document or say what is needed."""
    if not password:
        raise PasswordRequired(f"'{name}' is password-protected: enter its password and upload again.")
    # AES-256 (R6) passwords are SASLprep-ed by the app that encrypts; MuPDF does not do it.
    if not any(doc.authenticate(p) for p in dict.fromkeys([password, saslprep(password)])):
        raise PasswordRequired(f"The password for '{name}' is not correct: check it and try again.")


def saslprep(text: str) -> str:
    """RFC 4013 SASLprep mapping and normalisation (what PDF 2.0 asks of R6 passwords)."""
    mapped = "".join(
        " " if stringprep.in_table_c12(ch) else "" if stringprep.in_table_b1(ch) else ch
        for ch in text)
    return unicodedata.normalize("NFKC", mapped)


def page_count(doc: pymupdf.Document, name: str) -> int:
    """The number of pages, with a clear error for a broken page tree."""
    try:
        count = doc.page_count
    except Exception as exc:
        raise PdfError(f"'{name}' has a damaged page list; re-export it to PDF and try again.") from exc
    if count == 0:
        raise PdfError(f"'{name}' has no pages; check that you picked the right file.")
    return count


# A page's drawing instructions, unpacked: textbook pages hold well under 1 MB; a stream that
# inflates past this is a decompression bomb (one of 50 kB reached 200 MB, read at 602 MB).
MAX_PAGE_CONTENT_BYTES = 32 * 1024 * 1024


def unpacked_size_ok(doc: pymupdf.Document, page: pymupdf.Page, limit: int = MAX_PAGE_CONTENT_BYTES) -> bool:
    """Whether the page's content streams unpack to at most `limit` bytes, inflating at most
    that much to find out (MuPDF itself would inflate the whole stream)."""
    total = 0
    for xref in page.get_contents():
        raw = doc.xref_stream_raw(xref) or b""
        kind, value = doc.xref_get_key(xref, "Filter")
        if value in ("/FlateDecode", "[/FlateDecode]"):
            inflater = zlib.decompressobj()
            try:
                total += len(inflater.decompress(raw, limit - total + 1))
            except zlib.error:
                return True  # damaged: MuPDF's own reading reports it
        else:
            total += len(raw)
        if total > limit:
            return False
    return True


def read_page(doc: pymupdf.Document, index: int, name: str) -> PageContent:
    """Read one page (0-based index) into text built from its words, so spans map to boxes."""
    try:
        page = doc.load_page(index)
        big = not unpacked_size_ok(doc, page)
    except Exception as exc:
        raise _damaged_page(index, name) from exc
    if big:
        raise PdfError(f"Page {index + 1} of '{name}' unpacks to more than "
                       f"{MAX_PAGE_CONTENT_BYTES // (1024 * 1024)} MB of drawing instructions, far more "
                       "than a page of notes needs; re-export or print the PDF and upload that copy.")
    try:
        textpage = page.get_textpage()
        raw_words = page.get_text("words", sort=True, textpage=textpage)
        rawdict = page.get_text("rawdict", textpage=textpage)
        raised = _raised_chars(rawdict)
        symbols = symbol_glyphs(doc, page, rawdict)
        has_images = bool(page.get_images(full=False)) or _has_inline_image(page)
        rect = page.rect
    except Exception as exc:
        raise _damaged_page(index, name) from exc
    text, words = _join_words(raw_words, raised, symbols)
    if has_images and not text.strip():
        try:
            has_images = shows_ink(page)
        except Exception as exc:
            raise _damaged_page(index, name) from exc
    return PageContent(index + 1, text, words, rect.width, rect.height, has_images)


def _damaged_page(index: int, name: str) -> PdfError:
    """The error for a page MuPDF cannot read."""
    return PdfError(f"Page {index + 1} of '{name}' cannot be read (the file is damaged there). "
                    "Re-export the PDF or remove that page, then upload again.")


# A page with no text whose image has no edge this sharp (grey levels between neighbouring
# pixels at 72 dpi) shows nothing to read. A slide deck's closing slide, a background gradient
# only, measured 2; every page of the corpus's handwritten and form scans 187 or more.
MIN_INK_EDGE = 24
INK_SIDE_PIXELS = 1200  # the longest side a page is drawn at for that look


def shows_ink(page: pymupdf.Page) -> bool:
    """Whether a text-less page draws anything to read, not just an empty background image.

    One blank closing slide with a gradient made a 177-page lecture deck a scan, kept out of
    retrieval until the learner "reviewed" a page with nothing on it.
    """
    zoom = min(1.0, INK_SIDE_PIXELS / max(page.rect.width, page.rect.height, 1))  # a poster stays small
    pixmap = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), colorspace=pymupdf.csGRAY)
    grey = np.frombuffer(pixmap.samples, dtype=np.uint8).reshape(pixmap.height, pixmap.stride)[:, :pixmap.width]
    grey = grey.astype(np.int16)
    across, down = np.abs(np.diff(grey, axis=1)), np.abs(np.diff(grey, axis=0))
    return bool(across.size and across.max() >= MIN_INK_EDGE) or bool(down.size and down.max() >= MIN_INK_EDGE)


def _has_inline_image(page: pymupdf.Page) -> bool:
    """Some scanners draw the page as an inline image that get_images does not list."""
    return any(block.get("type") == 1 for block in page.get_text("dict")["blocks"])


# Superscript forms of the characters exponents are made of. Each is one character, like the
# one it replaces, so word offsets and boxes stay as they are; NFKC maps them back, so search
# and the code checks read "Bt³" as "Bt3".
SUPERSCRIPTS = str.maketrans("0123456789+-−=()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿ")


def _raised_chars(rawdict: dict) -> dict[tuple[int, int], list[tuple[float, bool]]]:
    """Per (block, line): each character's left edge and whether MuPDF set it as a superscript."""
    lines: dict[tuple[int, int], list[tuple[float, bool]]] = {}
    for block_no, block in enumerate(rawdict.get("blocks", [])):
        for line_no, line in enumerate(block.get("lines", [])):
            lines[(block_no, line_no)] = [
                (char["bbox"][0], bool(span["flags"] & pymupdf.TEXT_FONT_SUPERSCRIPT))
                for span in line["spans"] for char in span["chars"] if not char["c"].isspace()]
    return lines


def _with_superscripts(token: str, rect: tuple, chars: list[tuple[float, bool]]) -> str:
    """`token` with its raised digits and signs as superscripts ("Bt3" -> "Bt³"), when the
    line's characters inside the word's box line up one to one with it; else unchanged."""
    inside = [up for x, up in sorted(chars) if rect[0] - 0.5 <= x < rect[2]]
    if not any(inside) or len(inside) != len(token):
        return token  # nothing raised, or the characters do not line up with the word
    return "".join(c.translate(SUPERSCRIPTS) if up else c for c, up in zip(token, inside))


def _join_words(raw_words: list[tuple], raised: dict[tuple[int, int], list[tuple[float, bool]]],
                symbols: dict[tuple[int, int], list[float]]) -> tuple[str, list[Word]]:
    """Join MuPDF words into page text: spaces within a line, newlines between lines; a lone
    letter a symbol font draws as an arrow is the arrow."""
    parts: list[str] = []
    words: list[Word] = []
    pos, last_line = 0, None
    for x0, y0, x1, y1, token, block, line, _ in raw_words:
        token = unicodedata.normalize("NFKC", token).strip()
        if not token:
            continue
        if (block, line) in raised:
            token = _with_superscripts(token, (x0, y0, x1, y1), raised[(block, line)])
        if token in WINGDINGS and any(x0 - 0.5 <= left < x1 for left in symbols.get((block, line), ())):
            token = WINGDINGS[token]
        if words:
            sep = " " if (block, line) == last_line else "\n"
            parts.append(sep)
            pos += 1
        words.append(Word(token, pos, pos + len(token), (x0, y0, x1, y1)))
        parts.append(token)
        pos += len(token)
        last_line = (block, line)
    return "".join(parts), words


# Longest side of a kept page image. A poster-sized page (14400 pt) at 150 dpi would be a
# 30000-pixel image, past MuPDF's limits; this keeps handwriting readable and files small.
MAX_IMAGE_PIXELS = 4000


def render_png(doc: pymupdf.Document, page_no: int, dpi: int) -> bytes:
    """Render one page (1-based) to PNG bytes, scaled down if the page is very large."""
    page = doc.load_page(page_no - 1)
    longest_pt = max(page.rect.width, page.rect.height, 1.0)
    dpi = max(1, min(dpi, int(MAX_IMAGE_PIXELS * 72 / longest_pt)))
    try:
        return page.get_pixmap(dpi=dpi).tobytes("png")
    except (RuntimeError, ValueError, MemoryError) as exc:  # MuPDF's FzError* are RuntimeErrors
        raise PdfError(f"Page {page_no} could not be drawn as an image ({exc}); re-scan or "
                       "re-export the PDF at a normal page size.") from exc


def render_crop(doc: pymupdf.Document, page_no: int, boxes: list[list[float]], dpi: int = 150) -> bytes:
    """The part of a page (1-based) the boxes cover, with a margin, as PNG: how the notes
    themselves draw a formula whose text layer reads as scattered symbols."""
    page = doc.load_page(page_no - 1)
    area = pymupdf.Rect(boxes[0])
    for box in boxes[1:]:
        area |= pymupdf.Rect(box)
    area = (area + (-12, -12, 12, 12)) & page.rect
    return page.get_pixmap(dpi=dpi, clip=area).tobytes("png")


def garbled_formula(text: str) -> bool:
    """Whether a quote's text layer reads as a formula taken apart ("2v a r = ." for v²/r):
    many lone symbols and letters among few words."""
    tokens = text.split()
    lone = sum(len(t) <= 2 and not t.isdigit() for t in tokens)
    return len(tokens) >= 4 and lone >= 0.35 * len(tokens)


def with_highlights(data: bytes, page_no: int, boxes: list[list[float]]) -> bytes:
    """The PDF with filled highlight annotations over `boxes` on one page (1-based).

    A real PDF highlight, so any viewer paints it under the text like a marker pen; an
    encrypted or unreadable file comes back unchanged rather than failing the viewer.
    """
    if not boxes:
        return data
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
        if doc.needs_pass:
            return data
        page = doc.load_page(page_no - 1)
        for x0, y0, x1, y1 in boxes:
            page.add_highlight_annot(pymupdf.Rect(x0, y0, x1, y1))
        return doc.tobytes()
    except (RuntimeError, ValueError, IndexError):
        return data
