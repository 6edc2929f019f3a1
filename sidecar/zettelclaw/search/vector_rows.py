"""The vectors a query is compared with: the log's entries and their sentences, the memory
files' chunks; and the similarities of a query to them.

The newest rows of the log (up to ``ann.SEAL_ROWS`` of each kind) are kept in memory as
float32 and compared exactly; older ones are in sealed segments (``search/ann.py``), searched
approximately for the closest few hundred, and exactly for the rows a caller names (keyword
candidates, whose similarity the fusion needs). The chunks of the memory files are few and
stay exact. The background seals (``seal_due``); searches only read.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from zettelclaw import priority
from zettelclaw.index import vectors
from zettelclaw.index.database import Index, text_hash
from zettelclaw.search import ann, weights
from zettelclaw.search.pieces import compared_texts

if TYPE_CHECKING:
    from zettelclaw.search.matrix import Matrix

# closest rows asked of each segment: on the generated log, 200 found no more of the exact
# first ten (bench/README.md#semantic-search-at-a-million-entries)
SEGMENT_CANDIDATES = 64
SEAL_NICE = 10  # sealing a segment yields the cores to requests, as embedding does
T = TypeVar("T")


@dataclass
class Rows:
    keys: Any  # numpy int64 array: entry lines or chunk ids, ascending
    matrix: Any  # numpy float32 array, one unit vector per key
    words: Any = None  # numpy float32 array: an entry sentence's words (search/pieces.py)


class VectorRows:
    """What ``Semantic`` compares a query with, kept up to date incrementally."""

    def __init__(self, index: Index, model: Callable[[], str]) -> None:
        self.index = index
        self._model = model  # the embedder's name (its vectors are the ones read)
        self._lock = threading.Lock()
        self._seal_lock = threading.Lock()
        self._entries: Rows | None = None  # after the store's sealed rows
        self._entries_upto = 0
        self._parts: Rows | None = None  # the sentences of entries (search/pieces.py)
        self._parts_upto = 0
        self._generation: object = None
        self._store: ann.Store | None = None
        self._chunks: Rows | None = None
        # the chunks' stamp and the two generations below when the matrix was made
        self._chunks_stamp: tuple[object, int, int] | None = None
        self._chunks_missing = 0  # the texts it lacked a vector for
        # Bumped whenever this process writes or drops vectors (only it does, while it runs),
        # and the second when those were the chunks' (or a model's): the chunks' matrix is made
        # again after the second, or after the first if it lacked vectors. A count(*) of the
        # vectors table would read every row of it on every search (bench/README.md).
        self.vectors_generation = 0
        self.chunk_vectors_generation = 0

    def written(self, chunks: bool) -> None:
        with self._lock:
            self.vectors_generation += 1
            if chunks:
                self.chunk_vectors_generation += 1

    # -- similarities -------------------------------------------------------------------------

    def entry_similarities(self, query: Matrix, also: Iterable[int] = ()) -> tuple[Any, Any]:
        """(lines, similarities), lines ascending: every entry in memory, the closest of the
        sealed ones, and the entries of ``also`` (each once, its similarity)."""
        import numpy as np

        rows, _, store = self._entry_rows()
        lines, sims = rows.keys, (rows.matrix @ query if len(rows.keys)
                                  else np.zeros(0, dtype=np.float32))
        if store is not None and store.rows("entries"):
            found = store.search("entries", query, SEGMENT_CANDIDATES, _sorted(also))
            return _best_of_each(np.concatenate([found.lines, lines]),
                                 np.concatenate([found.sims, sims]))
        return lines, sims

    def sentence_similarities(self, query: Matrix, floor: float, also: Iterable[int] = ()
                              ) -> tuple[Any, Any]:
        """(lines, similarities) for the entries compared by their sentences too: each one's
        best sentence, damped for its few words as a whole text is
        (``weights.damped_similarity``, ``floor`` the query's scale's)."""
        import numpy as np

        _, rows, store = self._entry_rows()
        lines, sims, words = rows.keys, (rows.matrix @ query if len(rows.keys)
                                         else np.zeros(0, dtype=np.float32)), rows.words
        if store is not None and store.rows("parts"):
            found = store.search("parts", query, SEGMENT_CANDIDATES, _sorted(also))
            lines = np.concatenate([found.lines, lines])
            sims = np.concatenate([found.sims, sims])
            words = np.concatenate([found.words, words])
        if not len(lines):
            return lines, sims
        return _best_of_each(lines, weights.damped_similarities(sims, words, floor))

    def chunk_similarities(self, query: Matrix) -> tuple[Any, Any]:
        """(chunk ids, similarities): a chunk's best piece."""
        import numpy as np

        rows = self._chunk_rows()
        if not len(rows.keys):
            return rows.keys, np.zeros(0, dtype=np.float32)
        return _best_of_each(rows.keys, rows.matrix @ query)

    # -- the rows ---------------------------------------------------------------------------

    def _bounds(self, conn: Any) -> tuple[object, int, int]:
        """(the index's generation and model, the line up to which every entry has its own
        vector, and up to which its sentences' too). The vectorizer walks the log
        (``vector_line``: each entry up to it has its vectors, written before it moved on; for
        the entries' own, ``wholes_line`` too, where a walk began again for the sentences
        alone). Not beyond: an entry ahead whose text an earlier one shares has its vectors
        already, and reading up to it would skip the entries the walk has yet to reach."""
        meta = self.index.meta(conn)
        generation = (meta.get("ino"), meta.get("generation"), meta.get("vector_model"))
        walked = int(str(meta.get("vector_line", 0)))
        return generation, max(walked, int(str(meta.get("wholes_line", 0)))), walked

    def _store_for(self, generation: object) -> ann.Store:
        """The sealed segments for ``generation`` (opened, and checked, once); under _lock."""
        if self._store is None or self._store.generation != str(generation):
            self._store = ann.Store(ann.folder(self.index.path), self._model(), generation)
        return self._store

    def _entry_rows(self) -> tuple[Rows, Rows, ann.Store | None]:
        """The entries' vectors and their sentences' that are not sealed, in log order; what
        the vectorizer added since the last call is read and appended."""
        with self._lock, self.index.read() as conn:
            generation, wholes, walked = self._bounds(conn)
            store = self._store_for(generation)
            if (generation != self._generation or self._entries is None
                    or self._parts is None or wholes < self._entries_upto
                    or walked < self._parts_upto):
                self._entries, self._entries_upto, self._generation = _empty(), 0, generation
                self._parts, self._parts_upto = _empty(), 0
            # what was sealed since leaves memory
            self._entries = _after(self._entries, store.upto["entries"])
            self._parts = _after(self._parts, store.upto["parts"])
            name = self._model()
            # No more than two segments' worth waits in memory: a log whose vectors all wait
            # (a purge made the segments again) is searched over its newest entries until
            # the background has sealed the rest, rather than read whole into memory.
            floor = vectors.line_before(conn, wholes, 2 * ann.SEAL_ROWS)
            start = max(self._entries_upto, store.upto["entries"], floor)
            if wholes > start:
                self._entries = _appended(self._entries, vectors.entry_vectors_after(
                    conn, name, start, wholes))
                self._entries_upto = wholes
            start = max(self._parts_upto, store.upto["parts"], floor)
            if walked > start:
                self._parts = _appended(self._parts, vectors.part_vectors_after(
                    conn, name, start, walked))
                self._parts_upto = walked
            return self._entries, self._parts, store

    def seal_due(self, threads: int) -> int:
        """Seal what is due into segments (the background: seconds); returns the rows sealed."""
        sealed = 0
        with self._seal_lock:  # one sealer; searches go on meanwhile
            while True:
                with self.index.read() as conn:
                    generation, wholes, walked = self._bounds(conn)
                with self._lock:  # (searches wait for this, not for the reading below)
                    store = self._store_for(generation)
                with self.index.read() as conn:
                    name = self._model()
                    upto = store.upto
                    found: Sequence[tuple[Any, ...]]
                    if vectors.entries_between(conn, upto["entries"], wholes) >= ann.SEAL_ROWS:
                        kind, found = "entries", vectors.entry_vectors_after(
                            conn, name, upto["entries"], wholes, ann.SEAL_ROWS)
                    elif vectors.parts_between(conn, upto["parts"], walked) > ann.SEAL_ROWS:
                        kind, found = "parts", vectors.part_vectors_after(
                            conn, name, upto["parts"], walked, ann.SEAL_ROWS + 1)
                        # a line's sentences stay together: the last line may have more
                        whole = [r for r in found if r[0] != found[-1][0]]
                        found = whole or found
                    else:
                        break
                if len(found) < ann.SEAL_ROWS // 2:  # many entries without a vector yet
                    break
                rows = _appended(_empty(), found)
                _lowered(functools.partial(
                    store.seal, kind, rows.keys, rows.matrix,
                    rows.words if kind == "parts" else None, upto=int(rows.keys[-1]),
                    threads=threads))
                sealed += len(found)
            for kind in ann.KINDS:  # fewer, larger segments: fewer graphs for a query to walk
                while _lowered(functools.partial(store.merge_due, kind, threads)):
                    pass
        return sealed

    def _chunk_rows(self) -> Rows:
        import numpy as np

        with self._lock, self.index.read() as conn:
            # The log's entries are embedded a batch at a time: their vectors cannot change a
            # matrix that had every chunk text's, and making it again after each batch cost the
            # next hybrid search its lookups again (bench/README.md#search-at-a-million-entries).
            now = (vectors.chunks_stamp(conn), self.chunk_vectors_generation,
                   self.vectors_generation)
            made = self._chunks_stamp
            if (self._chunks is None or made is None or now[:2] != made[:2]
                    or (self._chunks_missing > 0 and now[2] != made[2])):
                found: list[tuple[int, bytes]] = []
                missing = 0
                name = self._model()
                for chunk_id, text in vectors.chunks_in_order(conn):
                    for piece in compared_texts(text):
                        vec = vectors.vector(conn, name, text_hash(piece))
                        if vec is None:
                            missing += 1
                        else:
                            found.append((chunk_id, vec))
                keys = np.fromiter((r[0] for r in found), dtype=np.int64, count=len(found))
                self._chunks = Rows(keys, _matrix([r[1] for r in found]))
                self._chunks_stamp, self._chunks_missing = now, missing
            assert self._chunks is not None
            return self._chunks


def _lowered(job: Callable[[], T]) -> T:
    """``job`` on a thread of its own at a lower priority: usearch's workers are made by it
    and inherit that (a worker thread of trio's is reused, so it is not lowered itself)."""
    done: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        priority.lower_this_thread(SEAL_NICE)
        try:
            done.append(job())
        except BaseException as exc:  # raised again in the caller
            failed.append(exc)

    thread = threading.Thread(target=run, name="zettelclaw-sealing", daemon=True)
    thread.start()
    thread.join()
    if failed:
        raise failed[0]
    return done[0]


def _sorted(keys: Iterable[int]) -> Any:
    import numpy as np

    return np.unique(np.fromiter(keys, dtype=np.int64))


def _matrix(blobs: Sequence[bytes]) -> Any:
    import numpy as np

    if not blobs:
        return np.zeros((0, 0), dtype=np.float32)
    return np.frombuffer(b"".join(blobs), dtype=np.float16).reshape(len(blobs), -1).astype(
        np.float32)


def _appended(old: Rows, found: Sequence[tuple[Any, ...]]) -> Rows:
    """``old`` and the rows read after it: (key, vector bytes) or (key, vector bytes, words)."""
    import numpy as np

    if not found:
        return old
    keys = np.fromiter((r[0] for r in found), dtype=np.int64, count=len(found))
    matrix = _matrix([r[1] for r in found])
    words = (np.fromiter((r[2] for r in found), dtype=np.float32, count=len(found))
             if len(found[0]) > 2 else None)
    if not len(old.keys):
        return Rows(keys, matrix, words)
    return Rows(np.concatenate([old.keys, keys]), np.vstack([old.matrix, matrix]),
                None if words is None else np.concatenate([old.words, words]))


def _after(rows: Rows, line: int) -> Rows:
    """``rows`` without those of lines up to ``line`` (sealed)."""
    import numpy as np

    if not len(rows.keys) or rows.keys[0] > line:
        return rows
    at = int(np.searchsorted(rows.keys, line, side="right"))
    return Rows(rows.keys[at:], rows.matrix[at:],
                None if rows.words is None else rows.words[at:])


def _best_of_each(keys: Any, similarities: Any) -> tuple[Any, Any]:
    """(each key once, its best similarity): a chunk's best piece, an entry's best sentence,
    an entry found both in a segment and as a named row."""
    import numpy as np

    order = np.argsort(keys, kind="stable")
    keys, similarities = keys[order], similarities[order]
    unique, starts = np.unique(keys, return_index=True)
    return unique, np.maximum.reduceat(similarities, starts)


def _empty() -> Rows:
    import numpy as np

    return Rows(np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32),
                np.zeros(0, dtype=np.float32))
