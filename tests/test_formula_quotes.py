"""A quote whose text layer takes a formula apart is shown as the notes draw it (a crop)."""

import io
import json

from citetutor.evidence import Sentence, sentence_boxes, sentence_spans
from citetutor.pipeline import Citation
from citetutor.retrieval import Hit
from tests.corpus import MIT, corpus_file
from tests.helpers import make_pipeline


def _cited(pipe, words: str) -> Citation:
    """The citation the tutor would make for the sentence holding `words`."""
    for cid, doc_id, page_no, text, bboxes, word_boxes in pipe.store.query(
            "SELECT id, doc_id, page_no, text, bboxes, word_boxes FROM chunks ORDER BY page_no, ord"):
        for start, end in sentence_spans(text):
            if words in " ".join(text[start:end].split()):
                sentence = Sentence(1, Hit(cid, doc_id, "mit", page_no, text, bboxes, word_boxes), start, end)
                return Citation(cid, doc_id, "mit", page_no, sentence.text, json.dumps(sentence_boxes(sentence)))
    raise AssertionError(words)


def test_a_garbled_formula_quote_comes_with_a_crop_of_the_page_and_prose_does_not(tmp_path):
    from PIL import Image
    pipe = make_pipeline(tmp_path)
    pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", pipe.create_subject("Mechanics"))
    formula = _cited(pipe, "a fourth alternate expression")
    crop = pipe.quote_image(formula)
    assert crop is not None and crop.startswith(b"\x89PNG")
    width, height = Image.open(io.BytesIO(crop)).size
    assert 50 < height < 600 and width > 200, "the cited lines, not the whole page"
    prose = _cited(pipe, "Because the velocity changes direction")
    assert pipe.quote_image(prose) is None
