"""search/local_model.py: the shipped all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, for real.

Covers: unit vectors in the texts' order whatever their lengths (batches are sorted by length),
the same vector for a text alone or in a batch, meaning over words (a paraphrase is closer than
a text sharing a word), a long text read up to the model's reach without failing, and a model
file that is not the pinned one refused with a clear error.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from zettelclaw.search import local_model
from zettelclaw.search.local_model import LocalModel, ModelFileError


@pytest.fixture(scope="module")
def model() -> LocalModel:
    return LocalModel(threads=1)


def test_vectors_are_unit_length_and_in_the_texts_order(model: LocalModel) -> None:
    texts = ["a much longer text about the garden, the shed roof and the winter",
             "short", "a middle-sized note on bikes"]
    together = model.embed(texts)
    assert together.shape == (3, 384)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    for i, text in enumerate(texts):  # alone: the same vector (padding does not leak in)
        assert float(model.embed([text])[0] @ together[i]) > 0.999


def test_meaning_beats_shared_words(model: LocalModel) -> None:
    query, paraphrase, same_word = model.embed([
        "when is my next check-up for my teeth?",
        "Dentist appointment on the 14th for a cleaning",
        "The next release ships on Friday"])
    assert float(query @ paraphrase) > float(query @ same_word) + 0.1


def test_a_text_past_the_models_reach_is_cut_not_refused(model: LocalModel) -> None:
    vector = model.embed(["word " * 5000])[0]
    assert np.isfinite(vector).all()


def test_an_empty_batch_is_an_empty_matrix(model: LocalModel) -> None:
    assert model.embed([]).shape == (0, 384)


def test_a_model_file_that_is_not_the_pinned_one_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_model, "SHA256", "0" * 64)
    monkeypatch.setattr(local_model, "_verified", set())
    with pytest.raises(ModelFileError, match="not the model this version expects"):
        local_model.model_file()


def test_the_tokenizer_ships_in_the_package() -> None:
    assert local_model.TOKENIZER.is_file()
    assert Path(local_model.model_file()).stat().st_size > 20_000_000
