"""long_lived.py: what start-up and the large imports made is left out of the collector's full
passes (a full pass over the SDK's ~180k objects held the GIL ~95 ms); and every place that
should freeze does: a sidecar once it has started, the SDK's preload, the model's load."""

from __future__ import annotations

import gc
from typing import Any

import pytest
import trio

from zettelclaw import long_lived
from zettelclaw.config import SearchConfig
from zettelclaw.index.database import Index
from zettelclaw.llm import anthropic_client
from zettelclaw.search import local_model
from zettelclaw.search.semantic import Semantic
from zettelclaw.serve import Ready, ServerConfig, serve


@pytest.fixture
def freezes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    monkeypatch.setattr(long_lived, "freeze", lambda: calls.append(1))
    return calls


def test_what_exists_is_left_out_of_full_collections() -> None:
    kept = [[i] for i in range(1000)]
    gc.collect()  # the survivors are in the oldest generation, which a full pass walks
    assert any(o is kept for o in gc.get_objects(generation=2))
    long_lived.freeze()
    assert gc.get_freeze_count() >= len(kept)
    assert not any(o is kept for o in gc.get_objects(generation=2))
    made_after = [[0]]
    gc.collect()
    assert any(o is made_after for o in gc.get_objects(generation=2)), "only what existed"


def test_the_sdk_preload_freezes_what_it_imported(freezes: list[int]) -> None:
    anthropic_client.preload()
    assert freezes == [1]


def test_loading_the_model_freezes_what_it_imported(
        freezes: list[int], monkeypatch: pytest.MonkeyPatch, index: Index) -> None:
    class Loaded:
        name = "a model"

        def __init__(self, threads: int) -> None:
            self.threads = threads

        def close(self) -> None:
            pass

    monkeypatch.setattr(local_model, "LocalModel", Loaded)
    semantic = Semantic(index, SearchConfig(semantic="auto"))
    semantic.load()
    embedder = semantic.embedder  # the process's hold on the model: here a stand-in
    assert isinstance(embedder, local_model.SharedModel)
    assert isinstance(embedder.model, Loaded)
    assert freezes == [1]


async def test_a_sidecar_freezes_once_it_has_started(server_config: ServerConfig) -> None:
    gc.unfreeze()
    async with trio.open_nursery() as nursery:
        ready: Any = await nursery.start(serve, server_config)
        assert isinstance(ready, Ready)
        assert gc.get_freeze_count() > 0
        nursery.cancel_scope.cancel()
