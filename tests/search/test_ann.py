"""search/ann.py and search/vector_rows.py with the real model: the log's older vectors sealed
into approximate segments (an HNSW graph of their signs, their int8 vectors) as they are
embedded, searched together with the exact rows in memory; a purge's entries leaving the
segments; a torn or unlisted segment file found and made again, never searched; the
approximate answer agreeing with the exact one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import entry
from tests.direct import Direct
from zettelclaw.config import SearchConfig
from zettelclaw.forget import service
from zettelclaw.home import Home
from zettelclaw.index import vectors
from zettelclaw.protocol.params import SearchParams
from zettelclaw.search import ann, vector_rows
from zettelclaw.search.local_model import LocalModel

pytestmark = pytest.mark.slow  # loads the real embedding model

SEAL = 16
PEOPLE = ["Ada", "Bruno", "Chen", "Dalia", "Emil", "Farah", "Goran", "Hana", "Ivo", "Jun"]
THINGS = ["a kayak", "sourdough bread", "the garden shed", "a chess club", "salsa lessons",
          "a vintage camera", "the night train", "a bird feeder"]
TARGET = "My sister finally adopted a small grey kitten from the shelter"


def texts(count: int, offset: int = 0) -> list[str]:
    return [f"{PEOPLE[i % len(PEOPLE)]} talked about {THINGS[(i // 3) % len(THINGS)]} "
            f"on day {i + offset}" for i in range(count)]


@pytest.fixture(scope="module")
def embedder() -> Iterator[LocalModel]:
    model = LocalModel(threads=1)
    yield model
    model.close()


@pytest.fixture
def sealing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ann, "SEAL_ROWS", SEAL)


@pytest.fixture
def merging(monkeypatch: pytest.MonkeyPatch, sealing: None) -> None:
    monkeypatch.setattr(ann, "MERGE_FAN", 2)


def open_memory(home: Home, workspace: Path, embedder: LocalModel) -> Direct:
    m = Direct.open(home, workspace, SearchConfig(semantic="auto"))
    m.searcher.semantic.use(embedder)
    m.sync()
    return m


def fill(m: Direct) -> None:
    while m.searcher.semantic.embed_pending():
        pass
    m.searcher.semantic.seal_due()


def close(m: Direct) -> None:
    m.searcher.semantic.embedder = None  # the module's model: kept for the other tests
    m.close()


def store_of(m: Direct) -> ann.Store:
    m.searcher.semantic.rows.entry_similarities(m.searcher.semantic.query_vector("x"))
    store = m.searcher.semantic.rows._store
    assert store is not None
    return store


def files(home: Home) -> dict[str, bytes]:
    folder = ann.folder(home.index)
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.fixture
def memory(home: Home, workspace: Path, write_log: Any, embedder: LocalModel,
           sealing: None) -> Iterator[Direct]:
    write_log(*[entry("fact", t) for t in texts(20)], entry("fact", TARGET),
              *[entry("fact", t) for t in texts(20, offset=20)])
    m = open_memory(home, workspace, embedder)
    fill(m)
    yield m
    close(m)


def top(m: Direct, query: str) -> str:
    answer = m.search(SearchParams.model_validate({"query": query}))
    return str(answer["results"][0]["content"])


def test_older_vectors_are_sealed_and_new_ones_join_as_they_are_embedded(
        memory: Direct, home: Home, write_log: Any) -> None:
    store = store_of(memory)
    assert store.rows("entries") == 2 * SEAL, "41 entries: two segments, 9 kept exact"
    assert store.upto["entries"] == 2 * SEAL
    assert top(memory, "we got a cat as a pet") == TARGET, "found in a sealed segment"
    before = files(home)
    write_log(*[entry("fact", t) for t in texts(SEAL, offset=40)])
    memory.sync()
    fill(memory)
    assert store_of(memory).rows("entries") == 3 * SEAL
    after = files(home)
    assert {k: v for k, v in after.items() if k in before and k != ann.MANIFEST} == {
        k: v for k, v in before.items() if k != ann.MANIFEST}, "segments are never rewritten"
    assert len(after) == len(before) + len(ann.SUFFIXES), "one more segment: its files"


def test_the_approximate_answer_agrees_with_the_exact_one(memory: Direct) -> None:
    semantic = memory.searcher.semantic
    with memory.index.read() as conn:
        found = vectors.entry_vectors_after(conn, semantic.rows._model(), 0, 10**9)
    lines = np.array([r[0] for r in found])
    matrix = np.frombuffer(b"".join(r[1] for r in found), np.float16).reshape(
        len(found), -1).astype(np.float32)
    for query in ("we got a cat as a pet", "baking bread", "a boat on the lake", "Chen"):
        vector = semantic.query_vector(query)
        exact = matrix @ vector
        keys, sims = semantic.entry_similarities(vector)
        assert len(keys) == len(lines), "a small segment gives back each of its rows"
        assert list(keys) == list(lines)
        assert np.abs(sims - exact).max() < 0.02, "int8 vectors: close to the float ones"
        order = np.argsort(-exact)
        assert keys[np.argmax(sims)] == lines[order[0]] or exact[np.argmax(sims)] > \
            exact[order[0]] - 0.02
        fifth = exact[order[4]]  # the approximate five: each as close as the exact fifth
        assert all(exact[i] > fifth - 0.02 for i in np.argsort(-sims)[:5])


def test_a_keyword_candidate_gets_its_similarity_from_a_segment(memory: Direct) -> None:
    semantic = memory.searcher.semantic
    vector = semantic.query_vector("we got a cat as a pet")
    far = 3  # sealed, and far from the query: not among the closest of a segment of 16
    keys, sims = semantic.rows.entry_similarities(vector, also=[far])
    assert far in set(keys)
    with memory.index.read() as conn:
        row = dict(vectors.entry_vectors_after(conn, semantic.rows._model(), far - 1, far))
    exact = float(np.frombuffer(row[far], np.float16).astype(np.float32) @ vector)
    assert abs(float(sims[list(keys).index(far)]) - exact) < 0.02


def test_a_purged_entry_leaves_the_segments(memory: Direct, home: Home) -> None:
    vector = memory.searcher.semantic.query_vector(TARGET)
    assert store_of(memory).search("entries", vector, 1, np.zeros(0, np.int64)).sims.max() > 0.99
    answer = memory.search(SearchParams.model_validate({"query": "kitten shelter"}))
    target_id = next(r["id"] for r in answer["results"] if r["content"] == TARGET)
    service.purge_ids(memory.app, [target_id])
    assert not ann.folder(home.index).exists(), "the segments went with the purge"
    fill(memory)
    store = store_of(memory)
    assert store.rows("entries") == 2 * SEAL, "made again from the vectors left"
    best = store.search("entries", vector, 4, np.zeros(0, np.int64)).sims.max()
    assert best < 0.9, "no segment holds the purged entry's vector"
    assert all(TARGET.encode() not in data for data in files(home).values())


@pytest.mark.parametrize("damage", ["torn .usearch", "flipped .usearch", "missing .usearch",
                                    "torn .i8", "flipped .i8"])
def test_a_damaged_segment_is_found_and_made_again(
        memory: Direct, home: Home, workspace: Path, embedder: LocalModel, damage: str) -> None:
    close(memory)
    folder = ann.folder(home.index)
    damage, suffix = damage.split()
    graph = sorted(folder.glob(f"entries-*{suffix}"))[0]
    if damage == "torn":  # a crash mid-write, or a disk that lost the tail
        graph.write_bytes(graph.read_bytes()[: graph.stat().st_size // 2])
    elif damage == "flipped":  # the same size, other bytes
        data = bytearray(graph.read_bytes())
        data[len(data) // 2] ^= 0xFF
        graph.write_bytes(bytes(data))
    else:
        graph.unlink()
    m = open_memory(home, workspace, embedder)
    try:
        store = store_of(m)
        assert store.rows("entries") == 0, "nothing of a damaged store is searched"
        assert top(m, "we got a cat as a pet") == TARGET, "its rows searched exactly meanwhile"
        m.searcher.semantic.seal_due()
        assert store_of(m).rows("entries") == 2 * SEAL
        assert top(m, "we got a cat as a pet") == TARGET
    finally:
        close(m)


def test_a_segment_written_but_never_listed_is_removed(
        memory: Direct, home: Home, workspace: Path, embedder: LocalModel) -> None:
    close(memory)
    stray = ann.folder(home.index) / "entries-00009-99.usearch"
    stray.write_bytes(b"a crash between writing a segment and listing it")
    m = open_memory(home, workspace, embedder)
    try:
        assert store_of(m).rows("entries") == 2 * SEAL, "the listed ones are kept"
        assert not stray.exists()
    finally:
        close(m)


def test_the_segments_are_private(memory: Direct, home: Home) -> None:
    folder = ann.folder(home.index)
    assert folder.stat().st_mode & 0o777 == 0o700
    assert {p.stat().st_mode & 0o777 for p in folder.iterdir()} == {0o600}


def test_every_keyword_candidate_has_its_similarity(
        memory: Direct, monkeypatch: pytest.MonkeyPatch) -> None:
    """A segment gives its few closest rows; an entry that only its words found is looked up
    by name, so the fusion weighs its meaning as it would on a small log."""
    monkeypatch.setattr(vector_rows, "SEGMENT_CANDIDATES", 1)
    answer = memory.search(SearchParams.model_validate({"query": "kayak", "maxResults": 10}))
    found = [r for r in answer["results"] if "kayak" in r["content"]]
    assert len(found) >= 4
    assert all(r.get("vectorScore") is not None for r in found)


def test_vectors_waiting_for_their_segment_are_bounded_in_memory(
        home: Home, workspace: Path, write_log: Any, embedder: LocalModel,
        sealing: None) -> None:
    """A log whose vectors all wait to be sealed (the segments made again after a purge, on a
    large log) is searched over its newest two segments' worth meanwhile, not read whole."""
    write_log(*[entry("fact", t) for t in texts(41)])
    m = open_memory(home, workspace, embedder)
    try:
        while m.searcher.semantic.embed_pending():
            pass
        vector = m.searcher.semantic.query_vector("a kayak")
        keys, _ = m.searcher.semantic.entry_similarities(vector)
        assert list(keys) == list(range(41 - 2 * SEAL + 1, 42))
        m.searcher.semantic.seal_due()
        keys, _ = m.searcher.semantic.entry_similarities(vector)
        assert list(keys) == list(range(1, 42)), "every entry, once sealed"
    finally:
        close(m)


def test_segments_of_one_level_are_merged_into_one(
        home: Home, workspace: Path, write_log: Any, embedder: LocalModel, merging: None
        ) -> None:
    """A query walks one graph a segment: as many segments of a level as MERGE_FAN become one
    of the next, its rows the same, the merged files gone, and it opens again after a restart."""
    write_log(*[entry("fact", t) for t in texts(20)], entry("fact", TARGET),
              *[entry("fact", t) for t in texts(20, offset=20)])
    m = open_memory(home, workspace, embedder)
    try:
        fill(m)
        store = store_of(m)
        assert [len(s.lines) for s in store.segments["entries"]] == [2 * SEAL]
        assert list(store.segments["entries"][0].lines) == list(range(1, 2 * SEAL + 1))
        names = {p.name for p in ann.folder(home.index).iterdir()}
        assert len([n for n in names if n.startswith("entries-")]) == len(ann.SUFFIXES), \
            "one segment: its graph, its rows' lines, their vectors"
        assert top(m, "we got a cat as a pet") == TARGET
        vector = m.searcher.semantic.query_vector(TARGET)
        assert store.search("entries", vector, 1, np.zeros(0, np.int64)).sims.max() > 0.99
    finally:
        close(m)
    m = open_memory(home, workspace, embedder)
    try:
        assert store_of(m).rows("entries") == 2 * SEAL, "the merged segment opens again"
        assert top(m, "we got a cat as a pet") == TARGET
    finally:
        close(m)
