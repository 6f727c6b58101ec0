"""A Wingdings arrow that a PowerPoint export's text layer reads as "à" is read as the arrow."""

import pymupdf

from citetutor.pdf import open_pdf, read_page


def _font(doc: pymupdf.Document, name: str, flags: int, to_unicode: bytes) -> int:
    """A one-glyph TrueType subset without an encoding, as a Mac PowerPoint export embeds a
    Wingdings bullet: code 0x21, mapped by its ToUnicode to the letter given."""
    cmap = doc.get_new_xref()
    doc.update_object(cmap, "<<>>")
    doc.update_stream(cmap, b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /X def "
                      b"1 begincodespacerange <00><FF> endcodespacerange 1 beginbfchar <21> " + to_unicode +
                      b" endbfchar endcmap CMapName currentdict /CMap defineresource pop end end")
    descriptor = doc.get_new_xref()
    doc.update_object(descriptor, f"<< /Type /FontDescriptor /FontName /{name} /Flags {flags} "
                      "/FontBBox [0 -211 1359 899] /ItalicAngle 0 /Ascent 899 /Descent -211 /CapHeight 799 /StemV 0 >>")
    font = doc.get_new_xref()
    doc.update_object(font, f"<< /Type /Font /Subtype /TrueType /BaseFont /{name} /FontDescriptor {descriptor} 0 R "
                      f"/ToUnicode {cmap} 0 R /FirstChar 33 /LastChar 33 /Widths [979] >>")
    return font


def _slide(flags: int) -> pymupdf.Document:
    """A summary bullet with the arrow in its own font, and a French line whose 'à' is a word."""
    doc = pymupdf.open()
    page = doc.new_page(width=842, height=595)
    arrow = _font(doc, "AAAAAV+font000000002ec1db4a", flags, b"<00E0>")
    body = doc.get_new_xref()
    doc.update_object(body, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    doc.xref_set_key(page.xref, "Resources", f"<< /Font << /F1 {body} 0 R /F2 {arrow} 0 R >> >>")
    content = doc.get_new_xref()
    doc.update_object(content, "<<>>")
    doc.update_stream(content, b"BT /F1 19 Tf 60 480 Td (Deadlock ) Tj /F2 19 Tf (!) Tj /F1 19 Tf "
                      b"( a situation in which threads wait) Tj ET BT /F1 19 Tf 60 440 Td (Un voyage \xe0 Paris) Tj ET")
    doc.xref_set_key(page.xref, "Contents", f"{content} 0 R")
    return doc


def _text(doc: pymupdf.Document) -> str:
    return read_page(open_pdf(doc.tobytes(), "deadlock.pdf"), 0, "deadlock.pdf").text


def test_a_wingdings_arrow_read_as_a_letter_is_the_arrow_and_a_french_word_stays():
    assert _text(_slide(flags=4)) == "Deadlock → a situation in which threads wait\nUn voyage à Paris"


def test_a_letter_in_a_font_that_is_not_symbolic_stays_a_letter():
    assert _text(_slide(flags=32)).startswith("Deadlock à a situation")
