"""Approximate nearest neighbours over the log's older vectors: sealed segments on disk.

Semantic search compares a query with every entry and sentence it has a vector for. The newest
rows (up to ``SEAL_ROWS`` of each kind) stay in memory as float32 and are compared exactly
(``search/vector_rows.py``); once that many are there, the background seals them into a
segment, written beside the index: a usearch HNSW graph of the vectors' signs (one bit a
dimension: 48 bytes a vector), memory-mapped, which a query walks for its ``RESCORED`` closest
rows; and the same vectors in int8 (384 bytes), in a file of their own, of which a query reads
those rows only, whose similarities rank them. A walk reads most of a graph's pages, and mapped
pages count in the process's resident size: a graph of bits is an eighth of one of int8
vectors; the int8 rows read are let go at once, so they stay in the kernel's page cache only. A
log smaller than one segment is searched exactly, as before
(docs/decisions/0009-approximate-vector-index.md says why usearch and why bits).

Derived data: every segment is made from the vectors in the index (``index/vectors.py``), so
any doubt about one drops them all and the background makes them again. The manifest
(``manifest.json``, replaced atomically) names each segment's files with their sizes and
sha256; a file torn by a crash, missing, or not the one listed fails that check when the store
opens, and is never searched. The manifest also names the model and the index's generation: a
rebuilt index (a purge rewrote the log) or another model starts the store afresh, and a purge
deletes the whole folder (``remove``) so that a forgotten entry's vector leaves every copy.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import os
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zettelclaw.files import atomic_write_json, fsync_dir, read_json_object
from zettelclaw.search.segment_vectors import DIMENSIONS, Vectors, quantize

logger = logging.getLogger(__name__)

FORMAT = 2  # 1: int8 graphs, no vectors file (made again from the index)
# rows of one kind kept exact in memory before they are sealed into a segment: below this a
# log is searched exactly (LoCoMo's 5,882 turns, tests/quality's 3,100 entries); 32,768 rows of
# float32 are 48 MB, and a segment of them takes ~10 s to build on one core
SEAL_ROWS = 32_768
# HNSW parameters (usearch's names): links a node keeps, and how wide the walk is when adding
# and searching; chosen on the generated log (bench/README.md#semantic-search-at-a-million-entries):
# a merged segment of 96k rows needs a walk of 128 to find what 64 found in 32k
CONNECTIVITY = 16
EXPANSION_ADD = 128
EXPANSION_SEARCH = 128
# rows a query takes from a segment's graph of bits, whose int8 similarities then rank them
# (bench/README.md#semantic-search-at-a-million-entries): the exact first ten of a 96k-row
# segment were 0.95 of the first 128 (the int8 graph's walk: 0.89), but hybrid search's first
# ten, which weigh the segment's first 64 (``SEGMENT_CANDIDATES``), agree with the exact scan's
# as the int8 graph's did (0.82 / 0.83) from 512 on: 0.71 at 128, 0.76 at 256
RESCORED = 512
# segments merged into one when as many of one level are there, up to this many levels: at most
# SEAL_ROWS * MERGE_FAN ** MERGE_LEVELS rows a segment (524,288), which a merge builds in memory
MERGE_FAN = 4
MERGE_LEVELS = 2
KINDS = ("entries", "parts")
MANIFEST = "manifest.json"
SUFFIXES = (".usearch", ".npz", ".i8")  # a segment's graph, its rows' lines, their vectors


@dataclass
class Segment:
    name: str
    index: Any  # usearch.index.Index of the rows' signs, a view of the file
    lines: Any  # numpy int64: each row's entry line, ascending
    words: Any  # numpy float32: each row's words (sentences); None for entries
    vectors: Vectors  # the rows' int8 vectors (search/segment_vectors.py)


@dataclass
class Found:
    """One kind's rows found for a query: entry lines (repeated for sentences), their
    similarities, and their words (sentences) or None."""

    lines: Any
    sims: Any
    words: Any


class Store:
    """The sealed segments of one memory, for one model and one index generation."""

    def __init__(self, folder: Path, model: str, generation: object) -> None:
        self.folder = folder
        self.model = model
        self.generation = str(generation)
        self._lock = threading.Lock()
        self.segments: dict[str, list[Segment]] = {kind: [] for kind in KINDS}
        self.upto: dict[str, int] = dict.fromkeys(KINDS, 0)
        self._manifest: dict[str, Any] = {}
        self._open()

    # -- opening, checking -----------------------------------------------------------------------

    def _open(self) -> None:
        found: dict[str, Any] | None = None
        with contextlib.suppress(ValueError, OSError):
            found = read_json_object(self.folder / MANIFEST)
        if (found is None or found.get("format") != FORMAT or found.get("model") != self.model
                or found.get("generation") != self.generation):
            if found is not None:
                logger.info("vector segments of another model or index: made again")
            self._start_afresh()
            return
        try:
            for kind in KINDS:
                listed = found["kinds"][kind]
                self.segments[kind] = [self._load(entry) for entry in listed["segments"]]
                self.upto[kind] = int(listed["upto"])
        except (KeyError, TypeError, ValueError, OSError, RuntimeError) as exc:
            logger.warning("vector segments in %s fail their check (%s): made again",
                           self.folder, exc)
            self._start_afresh()
            return
        self._manifest = found
        self._remove_unlisted()

    def _load(self, entry: dict[str, Any]) -> Segment:
        import numpy as np
        Hnsw = _hnsw()

        name = str(entry["name"])
        graph, side, stored = (self.folder / f"{name}{suffix}" for suffix in SUFFIXES)
        for path, key in ((graph, "graph"), (side, "side"), (stored, "vectors")):
            if path.stat().st_size != int(entry[f"{key}_bytes"]) or _sha256(path) != entry[
                    f"{key}_sha256"]:
                raise ValueError(f"{path.name} is not the file the manifest lists")
        index = Hnsw.restore(str(graph), view=True, expansion_search=EXPANSION_SEARCH)
        if index is None or len(index) != int(entry["rows"]):
            raise ValueError(f"{graph.name} holds no index of {entry['rows']} rows")
        with np.load(side) as arrays:
            lines = arrays["lines"]
            words = arrays["words"] if "words" in arrays.files else None
        if len(lines) != len(index):
            raise ValueError(f"{side.name} does not match {graph.name}")
        return Segment(name, index, lines, words, Vectors(stored, len(lines)))

    def _start_afresh(self) -> None:
        remove(self.folder)
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.segments = {kind: [] for kind in KINDS}
        self.upto = dict.fromkeys(KINDS, 0)
        self._manifest = {"format": FORMAT, "model": self.model, "generation": self.generation,
                          "kinds": {kind: {"upto": 0, "segments": []} for kind in KINDS}}
        atomic_write_json(self.folder / MANIFEST, self._manifest)

    def _remove_unlisted(self) -> None:
        """Files a crash left between writing a segment and listing it."""
        listed = {f"{s.name}{suffix}" for kind in KINDS for s in self.segments[kind]
                  for suffix in SUFFIXES} | {MANIFEST}
        for path in self.folder.iterdir():
            if path.name not in listed:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()

    # -- sealing ---------------------------------------------------------------------------------

    def seal(self, kind: str, lines: Any, matrix: Any, words: Any, *, upto: int,
             threads: int = 1) -> None:
        """Write ``lines``' rows (ascending; every row of each line up to ``upto``, after the
        kind's present ``upto``) as a segment, then list it: a crash before the listing leaves
        files that the next open removes."""
        entry, segment = self._write(kind, 0, lines, words, [matrix], threads=threads)
        with self._lock:
            listed = self._manifest["kinds"][kind]
            listed["segments"].append(entry)
            listed["upto"] = upto
            atomic_write_json(self.folder / MANIFEST, self._manifest)
            self.segments[kind] = [*self.segments[kind], segment]
            self.upto[kind] = upto

    def merge_due(self, kind: str, threads: int = 1) -> bool:
        """Merge the oldest MERGE_FAN segments of one level into one of the next (a query
        walks one graph instead of several); whether one was. The merged ones' files go once
        the new one is listed; a crash between leaves unlisted files, removed at the next
        open."""
        import numpy as np

        with self._lock:
            entries = list(self._manifest["kinds"][kind]["segments"])
            segments = list(self.segments[kind])
        levels = [int(e.get("level", 0)) for e in entries]
        for at in range(len(entries) - MERGE_FAN + 1):
            level = levels[at]
            if level < MERGE_LEVELS and levels[at:at + MERGE_FAN] == [level] * MERGE_FAN:
                break
        else:
            return False
        parts = segments[at:at + MERGE_FAN]
        lines = np.concatenate([p.lines for p in parts])
        words = None if parts[0].words is None else np.concatenate([p.words for p in parts])
        matrices = (matrix for p in parts for matrix in p.vectors.all(SEAL_ROWS))
        entry, segment = self._write(kind, level + 1, lines, words, matrices,
                                     threads=threads)
        with self._lock:
            listed = self._manifest["kinds"][kind]
            names = {e["name"] for e in entries[at:at + MERGE_FAN]}
            listed["segments"] = [e for e in listed["segments"] if e["name"] not in names]
            listed["segments"].insert(at, entry)
            atomic_write_json(self.folder / MANIFEST, self._manifest)
            self.segments[kind] = [s for s in self.segments[kind] if s.name not in names]
            self.segments[kind].insert(at, segment)
        for name in names:
            for suffix in SUFFIXES:
                with contextlib.suppress(FileNotFoundError):
                    (self.folder / f"{name}{suffix}").unlink()
        return True

    def _write(self, kind: str, level: int, lines: Any, words: Any, matrices: Any, *,
               threads: int) -> tuple[dict[str, Any], Segment]:
        """A segment's files, written and synced, with its manifest entry (not listed)."""
        import numpy as np
        Hnsw = _hnsw()

        with self._lock:
            number = int(self._manifest.get("next", 0))
            self._manifest["next"] = number + 1
        name = f"{kind}-{number:05d}-{level}-{int(lines[-1])}"
        graph, side, stored = (self.folder / f"{name}{suffix}" for suffix in SUFFIXES)
        index = Hnsw(ndim=DIMENSIONS, metric="hamming", dtype="b1", connectivity=CONNECTIVITY,
                     expansion_add=EXPANSION_ADD, expansion_search=EXPANSION_SEARCH)
        start = 0
        with stored.open("wb") as out:
            for matrix in matrices:  # a part at a time: a merge never holds all as float32
                quantized = quantize(matrix)
                out.write(quantized.tobytes())
                index.add(np.arange(start, start + len(matrix), dtype=np.uint64),
                          np.packbits(quantized > 0, axis=1), threads=threads)
                start += len(matrix)
        index.save(str(graph))
        del index
        buffer = io.BytesIO()
        arrays: dict[str, Any] = {"lines": np.asarray(lines, dtype=np.int64)}
        if words is not None:
            arrays["words"] = np.asarray(words, dtype=np.float32)
        np.savez(buffer, allow_pickle=False, **arrays)
        side.write_bytes(buffer.getvalue())
        for path in (graph, side, stored):
            os.chmod(path, 0o600)
            _fsync(path)
        fsync_dir(self.folder)
        entry = {"name": name, "rows": len(lines), "level": level,
                 "graph_bytes": graph.stat().st_size, "graph_sha256": _sha256(graph),
                 "side_bytes": side.stat().st_size, "side_sha256": _sha256(side),
                 "vectors_bytes": stored.stat().st_size, "vectors_sha256": _sha256(stored)}
        return entry, self._load(entry)

    # -- searching -------------------------------------------------------------------------------

    def search(self, kind: str, query: Any, count: int, also: Any) -> Found:
        """The ``count`` closest rows of each segment of ``kind`` (of the ``RESCORED`` its
        graph of signs finds, by their int8 similarity), and every row of the lines in ``also``
        (numpy int64, sorted: keyword candidates, which need their similarity)."""
        import numpy as np

        lines, sims, words = [], [], []
        with self._lock:
            segments = self.segments[kind]
        signs = np.packbits(query > 0)
        for segment in segments:
            matches = segment.index.search(
                signs, count=min(max(count, RESCORED), len(segment.lines)), threads=1)
            rows = np.asarray(matches.keys, dtype=np.int64)
            inside = also[(also >= segment.lines[0]) & (also <= segment.lines[-1])]
            named = np.zeros(0, np.int64)
            if len(inside):
                named = _spans(np.searchsorted(segment.lines, inside, side="left"),
                               np.searchsorted(segment.lines, inside, side="right"))
            # the walk's rows and the named ones in one read: one gathering, one release
            wanted = np.concatenate([rows, np.setdiff1d(named, rows)])
            every = segment.vectors.similarities(wanted, query)
            best = np.argsort(-every[:len(rows)], kind="stable")[:count]
            found = [(rows[best], every[best])]
            extra = np.setdiff1d(named, rows[best])
            if len(extra):
                order = np.argsort(wanted, kind="stable")
                at = order[np.searchsorted(wanted, extra, sorter=order)]
                found.append((extra, every[at]))
            for rows_found, sims_found in found:
                lines.append(segment.lines[rows_found])
                sims.append(sims_found)
                if segment.words is not None:
                    words.append(segment.words[rows_found])
        if not lines:
            return Found(np.zeros(0, np.int64), np.zeros(0, np.float32),
                         np.zeros(0, np.float32) if kind == "parts" else None)
        return Found(np.concatenate(lines), np.concatenate(sims).astype(np.float32),
                     np.concatenate(words) if words else None)

    def rows(self, kind: str) -> int:
        with self._lock:
            return sum(len(s.lines) for s in self.segments[kind])


def _spans(starts: Any, ends: Any) -> Any:
    """Every row of the spans [start, end), in order (a line's sentences are several rows)."""
    import numpy as np

    lengths = ends - starts
    total = int(lengths.sum())
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    return (offsets + np.arange(total)).astype(np.int64)


def _hnsw() -> Any:
    """usearch's index class, with onnxruntime's library loaded first where it is installed:
    loaded after usearch's, the next onnxruntime session made killed the process (SIGSEGV;
    tests/search/test_ann_segments.py), as when a memory switches to the shipped model."""
    with contextlib.suppress(ImportError):
        import onnxruntime  # noqa: F401

    from usearch.index import Index

    return Index


def folder(index: Path) -> Path:
    """Where the segments of the index at ``index`` are (``index.sqlite.ann/``)."""
    return index.with_name(index.name + ".ann")


def remove(folder: Path) -> None:
    """The whole store gone (a purge: the vectors of forgotten entries with it)."""
    shutil.rmtree(folder, ignore_errors=True)
    if folder.exists():  # ignore_errors hid why: say it
        shutil.rmtree(folder)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
