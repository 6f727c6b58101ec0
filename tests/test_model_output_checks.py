"""Embedder output is checked before anything is stored; a bad vector never reaches the library."""

import numpy as np
import pytest

from citetutor.errors import EmbeddingMismatch, ModelOutputError
from tests.corpus import MIT, SLIDES, corpus_file
from tests.fakes import HashEmbedder
from tests.helpers import make_pipeline


class OneShort(HashEmbedder):
    def embed(self, texts):
        return super().embed(texts)[:-1]


class WithNaN(HashEmbedder):
    def embed(self, texts):
        vectors = super().embed(texts)
        vectors[0, 0] = np.nan
        return vectors


def assert_nothing_stored(pipe, tmp_path):
    for table in ("documents", "pages", "chunks", "embeddings"):
        assert pipe.store.query(f"SELECT count(*) FROM {table}")[0][0] == 0
    assert not [p for p in (tmp_path / "files").rglob("*")], "no file or folder left behind"


@pytest.mark.parametrize("embedder, message", [(OneShort(), "usable vectors for"), (WithNaN(), "NaN")])
def test_bad_vectors_name_the_model_and_store_nothing(tmp_path, embedder, message):
    pipe = make_pipeline(tmp_path, embedder=embedder)
    with pytest.raises(ModelOutputError, match=f"test:hash-256.*{message}|{message}"):
        pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", pipe.create_subject("S"))
    assert_nothing_stored(pipe, tmp_path)


def test_a_model_that_changed_size_under_the_same_name_is_refused_with_the_fix(tmp_path):
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("S")
    pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", subject)
    pipe.models.embedder.dim = 32  # same name, other size
    with pytest.raises(EmbeddingMismatch, match="Re-embed"):
        pipe.upload(corpus_file(*SLIDES).read_bytes(), "arrays.pdf", subject)
    assert pipe.store.query("SELECT count(*) FROM documents")[0][0] == 1


def test_a_question_vector_of_the_wrong_size_is_a_clear_error(tmp_path):
    pipe = make_pipeline(tmp_path)
    subject = pipe.create_subject("S")
    pipe.upload(corpus_file(*MIT).read_bytes(), "mit.pdf", subject)
    pipe.models.embedder.dim = 32
    with pytest.raises(ModelOutputError, match="no usable vector"):
        pipe.ask("What is centripetal acceleration?", subject)
    pipe.models.embedder.embed = lambda texts: np.zeros((0, 64), np.float32)
    with pytest.raises(ModelOutputError, match="no usable vector"):
        pipe.ask("What is centripetal acceleration?", subject)
