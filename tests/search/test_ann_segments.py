"""search/ann.py's segments and search/segment_vectors.py, without the model: a graph of the
vectors' signs, walked for the closest rows, which their int8 vectors then rank (the pages read
let go at once); the rows read back in the order asked; a keyword candidate's similarity; a
merge keeping every row's int8 vector as it was; the shipped model loading after usearch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from zettelclaw.search import ann
from zettelclaw.search.segment_vectors import DIMENSIONS, Vectors, quantize

ROWS = 300


def unit(rng: np.random.Generator, n: int) -> np.ndarray:
    m = rng.standard_normal((n, DIMENSIONS)).astype(np.float32)
    out: np.ndarray = m / np.linalg.norm(m, axis=1, keepdims=True)
    return out


@pytest.fixture
def store(tmp_path: Path) -> ann.Store:
    return ann.Store(tmp_path / "index.sqlite.ann", "a model", 1)


def seal(store: ann.Store, matrix: np.ndarray, first: int = 1) -> None:
    lines = np.arange(first, first + len(matrix), dtype=np.int64)
    store.seal("entries", lines, matrix, None, upto=int(lines[-1]))


def test_rows_are_read_in_the_order_asked(tmp_path: Path) -> None:
    matrix = np.arange(10 * DIMENSIONS, dtype=np.int64).reshape(10, -1) % 251 - 125
    path = tmp_path / "v.i8"
    path.write_bytes(matrix.astype(np.int8).tobytes())
    vectors = Vectors(path, 10)
    rows = np.array([7, 2, 3, 4, 9, 3, 0], dtype=np.int64)  # runs, a gap, a row twice
    assert np.array_equal(vectors.read(rows), matrix[rows].astype(np.int8))
    assert np.array_equal(np.vstack(list(vectors.all(4))), matrix.astype(np.int8))


def test_a_vectors_file_of_other_rows_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "v.i8"
    path.write_bytes(bytes(3 * DIMENSIONS))
    with pytest.raises(ValueError, match="does not hold 4 rows"):
        Vectors(path, 4)


def test_the_closest_rows_are_ranked_by_their_int8_similarity(store: ann.Store) -> None:
    rng = np.random.default_rng(7)
    matrix = unit(rng, ROWS)
    seal(store, matrix)
    stored = quantize(matrix).astype(np.float32)
    stored /= np.linalg.norm(stored, axis=1, keepdims=True)
    for target in (0, 17, 250):
        query = matrix[target] + 0.3 * unit(rng, 1)[0]
        query /= np.linalg.norm(query)
        found = store.search("entries", query, 5, np.zeros(0, np.int64))
        exact = stored @ query
        assert list(found.lines) == list(np.argsort(-exact)[:5] + 1)
        assert np.allclose(found.sims, exact[found.lines - 1], atol=1e-5)


def test_a_named_line_gets_its_int8_similarity_whether_the_walk_found_it_or_not(
        store: ann.Store) -> None:
    rng = np.random.default_rng(11)
    matrix = unit(rng, ROWS)
    seal(store, matrix)
    stored = quantize(matrix).astype(np.float32)
    stored /= np.linalg.norm(stored, axis=1, keepdims=True)
    query = matrix[40]
    exact = stored @ query
    near, far = int(np.argsort(-exact)[3]) + 1, int(np.argmin(exact)) + 1  # lines
    found = store.search("entries", query, 2, np.array(sorted({near, far, 41}), np.int64))
    got = dict(zip(found.lines.tolist(), found.sims.tolist(), strict=True))
    assert len(found.lines) == len(got) == 4, "the two closest, then the named others once"
    assert set(got) == {41, int(np.argsort(-exact)[1]) + 1, near, far}
    for line, similarity in got.items():
        assert similarity == pytest.approx(exact[line - 1], abs=1e-5)


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="Linux's smaps")
def test_the_mapped_graph_holds_signs_and_the_int8_rows_read_leave_the_resident_size(
        store: ann.Store) -> None:
    """A walk reads most of a graph's pages, which count in the resident size as long as they
    are mapped: the graph has a bit a dimension; the int8 rows a query reads are let go."""
    seal(store, unit(np.random.default_rng(3), ROWS))
    store.search("entries", unit(np.random.default_rng(4), 1)[0], 5, np.zeros(0, np.int64))
    (segment,) = store.segments["entries"]
    graph, _, vectors = (store.folder / f"{segment.name}{s}" for s in ann.SUFFIXES)
    assert vectors.stat().st_size == ROWS * DIMENSIONS
    assert graph.stat().st_size < vectors.stat().st_size, "signs and links, no int8 vectors"
    assert resident_kb(vectors) == [0], "mapped once, none of its pages resident"


def resident_kb(path: Path) -> list[int]:
    """The resident size (kB) of each mapping of ``path`` in this process."""
    found, inside = [], False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        if line[:1].isalnum() and "-" in line.split(" ", 1)[0]:  # a mapping's header
            inside = line.endswith(" " + str(path))
        elif inside and line.startswith("Rss:"):
            found.append(int(line.split()[1]))
    return found


def test_a_merge_keeps_each_rows_int8_vector(
        store: ann.Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ann, "MERGE_FAN", 2)
    rng = np.random.default_rng(5)
    first, second = unit(rng, 40), unit(rng, 30)
    seal(store, first)
    seal(store, second, first=41)
    assert store.merge_due("entries")
    (merged,) = store.segments["entries"]
    assert list(merged.lines) == list(range(1, 71))
    assert np.array_equal(np.vstack(list(merged.vectors.all(16))),
                          quantize(np.vstack([first, second])))
    assert sorted(p.suffix for p in store.folder.iterdir()) == sorted(
        [*ann.SUFFIXES, ".json"])


@pytest.mark.slow  # a process of its own, and the real model
def test_the_shipped_model_loads_after_the_segments_were_opened(tmp_path: Path) -> None:
    """A memory whose segments were searched, then switched to the shipped model (from an
    embedding server's): the model's session is made after usearch was loaded."""
    script = f"""
import numpy as np
from zettelclaw.search import ann
from zettelclaw.search.segment_vectors import DIMENSIONS, Vectors, quantize
from zettelclaw.search.local_model import LocalModel
store = ann.Store(__import__("pathlib").Path({str(tmp_path / "ann")!r}), "m", 1)
rows = np.eye(4, DIMENSIONS, dtype=np.float32)
store.seal("entries", np.arange(1, 5), rows, None, upto=4)
store.search("entries", rows[0], 1, np.zeros(0, np.int64))
model = LocalModel(1)
print(model.embed(["a garden shed"]).shape)
model.close()
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "(1, 384)"
