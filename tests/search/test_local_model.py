"""search/local_model.py: the shipped all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, for real.

Covers: unit vectors in the texts' order whatever their lengths (batches are sorted by length),
the same vector for a text alone or in a batch, meaning over words (a paraphrase is closer than
a text sharing a word), a long text read up to the model's reach without failing, a model
file that is not the pinned one refused with a clear error; and the background's batches: the
same vectors as a query's, on threads of a lower priority (the one that made the session and
onnxruntime's own), let go at close and made again at the next use.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import nice_of_threads
from zettelclaw.search import local_model
from zettelclaw.search.local_model import LocalModel, ModelFileError

pytestmark = pytest.mark.slow  # loads the real embedding model


@pytest.fixture(scope="module")
def model() -> Iterator[LocalModel]:
    made = LocalModel(threads=1)
    yield made
    made.close()


def test_vectors_are_unit_length_and_in_the_texts_order(model: LocalModel) -> None:
    texts = ["a much longer text about the garden, the shed roof and the winter",
             "short", "a middle-sized note on bikes"]
    together = model.embed(texts)
    assert together.shape == (3, 384)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    for i, text in enumerate(texts):  # alone: the same vector (padding does not leak in)
        assert float(model.embed([text])[0] @ together[i]) > 0.999


def test_a_batch_is_cut_by_word_pieces_and_gives_each_text_its_own_vector(
        model: LocalModel, monkeypatch: pytest.MonkeyPatch) -> None:
    """Long texts go a few at a time (the arena keeps the largest batch's buffers), short ones
    up to BATCH at a time; cut either way, a text's vector is its own."""
    texts = [("the shed roof needs felt before winter " * (i % 7 + 1) * 4)[:20 + 37 * i]
             for i in range(40)]
    widths: list[tuple[int, int]] = []
    session = model._started().session
    real_run = session.run

    def run(names: object, feed: dict[str, np.ndarray]) -> object:
        widths.append(feed["input_ids"].shape)
        return real_run(names, feed)

    monkeypatch.setattr(session, "run", run)
    together = model.embed(texts)
    monkeypatch.undo()
    assert all(n <= local_model.BATCH and n * w <= max(local_model.BATCH_PIECES, w)
               for n, w in widths)
    assert sum(n for n, _ in widths) == len(texts)
    assert len({n for n, _ in widths}) > 1, "short texts many at a time, long ones few"
    for i in (0, 7, 21, 39):
        assert float(model.embed([texts[i]])[0] @ together[i]) > 0.999


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


@pytest.mark.skipif(sys.platform != "linux", reason="a nice value per thread is Linux's")
def test_the_background_runs_at_a_lower_priority_with_the_same_vectors() -> None:
    ours = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    expected = min(ours + local_model.BACKGROUND_NICE, 19)
    before = nice_of_threads()
    model = LocalModel(threads=2)
    try:
        texts = ["the ledger moved to Postgres", "short", "a note on the garden shed roof"]
        background = model.embed_background(texts)
        assert np.allclose(background, model.embed(texts), atol=1e-4)
        new = {tid: nice for tid, nice in nice_of_threads().items() if tid not in before}
        lowered = [tid for tid, nice in new.items() if nice == expected]
        # the thread that made the background's session, and onnxruntime's second worker
        assert len(lowered) >= 2, new
        assert all(nice in {ours, expected} for nice in new.values())
        assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == ours, \
            "the caller's thread keeps its priority"
        thread = model._started()._thread
    finally:
        model.close()
    assert not thread.is_alive(), "let go at close"
    assert np.allclose(model.embed(texts[:1]), background[:1], atol=1e-4), "and made again"
    model.close()
