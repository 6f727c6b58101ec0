"""The OCR eval's scoring, and Tesseract's per-line confidences."""

from citetutor.devtools.ocreval import character_error_rate, pages
from citetutor.models.embedded import tsv_lines
from tests.corpus import corpus_file


def test_character_error_rate_counts_edits_over_the_reference_after_folding_case_and_space():
    assert character_error_rate("Work on  Charges", "work on charges") == 0
    assert character_error_rate("work on chargs", "work on charges") == 1 / 15
    assert character_error_rate("", "abc") == 1
    assert character_error_rate("abcdef", "abc") == 1, "insertions count too"


def test_every_transcription_names_a_page_of_a_shared_scan():
    found = pages(__import__("pathlib").Path(__file__).parents[1] / "evals" / "ocr",
                  corpus_file("scanned", "msu-phy481-handwritten-07-energy.pdf").parent)
    assert len(found) >= 3 and all(pdf.is_file() and page >= 1 and len(text) > 200 for _, pdf, page, text in found)


def test_tesseract_tsv_becomes_lines_with_their_weakest_word_confidence():
    tsv = ("level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
           "5\t1\t1\t1\t1\t1\t0\t0\t9\t9\t96.5\tWork\n"
           "5\t1\t1\t1\t1\t2\t0\t0\t9\t9\t41.0\ton\n"
           "4\t1\t1\t1\t2\t0\t0\t0\t9\t9\t-1\t\n"
           "5\t1\t1\t1\t2\t1\t0\t0\t9\t9\t88.0\tcharges\n")
    assert tsv_lines(tsv) == [("Work on", 0.41), ("charges", 0.88)]
