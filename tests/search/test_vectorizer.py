"""search/vectorizer.py: the background fills in a vector for every current entry and chunk,
a batch at a time, and sleeps when nothing is left; after a pass that embedded many texts it
gives back the memory its batches freed. With a stand-in for the model (the real one:
tests/search/test_semantic.py), so that passes of thousands of texts take no time."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import trio

from tests.conftest import entry
from tests.direct import open_app
from tests.timing import scaled
from zettelclaw import freed_memory
from zettelclaw.app import App
from zettelclaw.config import load_config
from zettelclaw.home import Home
from zettelclaw.search import ann
from zettelclaw.search import semantic as semantic_module


class Hashing:
    """An embedder whose vector is a text's hash, spread over 384 dimensions: the same text,
    the same vector."""

    name = "hashing"

    def __init__(self) -> None:
        self.texts = 0

    def embed(self, texts: Sequence[str]) -> Any:
        self.texts += len(texts)
        rows = [np.frombuffer(hashlib.sha512(t.encode()).digest() * 6, dtype=np.uint8)
                for t in texts]
        vectors = np.array(rows, dtype=np.float32) - 127.5
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    embed_background = embed

    def close(self) -> None:
        pass


@pytest.fixture
def app(home: Home, workspace: Path) -> Iterator[App]:
    made = open_app(home, workspace, settings=load_config(home, env={}), serving=True)
    yield made
    made.close()


async def _run_until_idle(app: App, embedder: Hashing) -> None:
    """Run the vectorizer until it has finished its pass, the trim after it included: until it
    has found nothing left to embed twice. Its loop is sequential, so the second look comes only
    after everything the first one led to."""
    assert app.vectorizer is not None
    semantic = app.searcher.semantic
    semantic.use(embedder)
    nothing_left = 0
    embed_pending = semantic.embed_pending

    def counted() -> int:
        nonlocal nothing_left
        done = embed_pending()
        nothing_left += done == 0
        return done

    setattr(semantic, "embed_pending", counted)  # noqa: B010 (a method, shadowed for a while)
    try:
        await app.syncer.fresh()
        async with trio.open_nursery() as nursery:
            await nursery.start(app.vectorizer.run)
            with trio.fail_after(scaled(30)):  # a batch runs in a thread: polled
                while nothing_left == 0:  # noqa: ASYNC110
                    await trio.sleep(0.01)
                app.vectorizer.notify()  # look again now rather than after IDLE_POLL_SECONDS
                while nothing_left == 1:  # noqa: ASYNC110
                    await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    finally:
        delattr(semantic, "embed_pending")
    upto, lines = semantic.coverage()
    assert upto == lines, f"vectors up to line {upto} of {lines}"


async def test_every_current_entry_gets_a_vector_in_batches(
        app: App, write_log: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(semantic_module, "BATCH", 4)
    write_log(*[entry(content=f"entry number {i}") for i in range(10)])
    embedder = Hashing()
    await _run_until_idle(app, embedder)
    assert embedder.texts == 10
    assert app.searcher.semantic.coverage() == (10, 10)


async def test_a_long_pass_gives_back_the_memory_its_batches_freed(
        app: App, write_log: Callable[..., Any], trims: list[int],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(semantic_module, "BATCH", 4)
    monkeypatch.setattr(freed_memory, "AFTER_ENTRIES", 10)
    write_log(*[entry(content=f"entry number {i}") for i in range(9)])
    await _run_until_idle(app, Hashing())
    assert trims == [], "a short pass frees little"
    write_log(*[entry(content=f"another entry {i}") for i in range(5)])
    await app.syncer.fresh()  # two catch-ups of 5, each too small for a trim of its own
    write_log(*[entry(content=f"and another {i}") for i in range(5)])
    await _run_until_idle(app, Hashing())
    assert trims == [1], "a pass of 10 texts"


async def test_the_background_seals_older_vectors_into_segments(
        app: App, write_log: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Once more rows wait in memory than one segment holds, the vectorizer seals them
    (search/ann.py) between its batches, without being asked."""
    monkeypatch.setattr(ann, "SEAL_ROWS", 8)
    monkeypatch.setattr(semantic_module, "BATCH", 4)
    write_log(*[entry(content=f"entry number {i}") for i in range(20)])
    await _run_until_idle(app, Hashing())
    rows = app.searcher.semantic.rows
    rows.entry_similarities(np.ones(384, dtype=np.float32) / np.sqrt(384))
    assert rows._store is not None
    assert rows._store.rows("entries") == 16, "two segments of 8; 4 entries kept exact"
