"""The log's term index: BM25 over every entry's words, top-k by tantivy (block-max WAND).

Derived like the rest of the index: it follows the ``entries`` table of ``index.sqlite`` (which
follows the log), lives in its own directory (``HOME/terms/``) and can be deleted at any time.
Why tantivy rather than SQLite FTS5: FTS5 computes BM25 for every row that matches, so a query of
two words found in a third of the entries scores a hundred thousand rows; tantivy skips blocks of
postings that cannot reach the top k, and answers the same query over a million entries in a
few milliseconds (bench/README.md#search-at-a-million-entries).

The documents (``index/term_documents.py``) are split by line over ``SHARDS`` tantivy indexes
(``index/term_shard.py``), searched side by side: tantivy scores an intersection of two common
words in full (block-max pruning serves single words and unions only), so the one way to answer
it faster is to share it between cores; the Python bindings search one index on one thread.
Two shards halve such a search on a 2-core machine (bench/README.md#search-at-a-million-entries).
Scores are those of one index of the entries searched (``index/term_query.py``: each word
boosted by its IDF over all the shards searched).

Entries a later one replaced live in shards of their own (``replaced``, by the same split),
searched only when a search asks for them: a search of current entries needs no clause to leave
them out, and such a clause (MustNot) takes tantivy off its pruned path for a single word, which
then costs about twice as much (bench/README.md#search-at-a-million-entries).

Each shard's marker document (line 0) holds the ``terms_epoch`` of the SQLite index it was built
from and how far it was fed: a rebuilt SQLite index has a new epoch, and the shards start over in
the same commits that record it. What changes in place (an entry replaced later, a subject
renamed) is queued in SQLite's ``terms_dirty`` and re-indexed by the next update
(``index/terms_update.py``).

Writers are one at a time across threads and processes (``HOME/terms.lock``), and tantivy's own
lock backs that up.

Deleted or damaged under a running sidecar, it heals (tests/index/test_derived_heal.py): ``intact``
(two lstats) tells the freshness check that the directory is gone or is not the one opened, and
the next update opens it again, empty, and feeds it from SQLite. What stands where the directory
should be is never followed: a symbolic link or a file at ``terms/`` or ``terms/vN`` is removed
(the link, not what it points to) and a directory made; an empty directory at ``terms.lock`` is
removed, anything else there is refused with a line that names it.
"""

from __future__ import annotations

import errno
import logging
import os
import shutil
import stat
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import tantivy
from tantivy import Occur, Query

from zettelclaw import lock
from zettelclaw.errors import DataDirError
from zettelclaw.index import term_documents, term_query
from zettelclaw.index.database import Index
from zettelclaw.index.entries import Filters
from zettelclaw.index.term_documents import unstamp
from zettelclaw.index.term_query import ShardQuery
from zettelclaw.index.term_shard import Shard
from zettelclaw.index.terms_update import Update

logger = logging.getLogger(__name__)

FORMAT = 5  # of the documents: another value, another directory (the old one is removed);
# 2: an entry's type and status as one number (KINDS), read with its time from the fast fields;
# 3: SHARDS shards, each in its own directory (v3/0, v3/1); the number and the time in one fast
# field (term_documents.stamp); 4: replaced entries in shards of their own (v4/0-replaced), and
# how far a shard was fed in its marker; 5: symbols (emoji) are words (term_documents.spelled)
SHARDS = 2  # one per core of a small machine; more would cost a thread hand-off per search
# A query whose postings in a shard are fewer than this searches the shards one after the other
# on the caller's thread: a rare word's search of a shard costs about what a hand-off does.
PARALLEL_POSTINGS = 20_000
T = TypeVar("T")


class Hit(NamedTuple):  # a tuple: a hundred made per search, a dataclass's init is 3x slower
    line: int
    bm25: float
    type: str
    status: str | None
    ts: float


class TermIndex:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / f"v{FORMAT}"
        self.lock_path = root.parent / f"{root.name}.lock"
        self.analyzer = term_documents.analyzer()
        self.schema = term_documents.schema()
        self._opened: tuple[tuple[int, int], tuple[int, int]] | None = None
        self.shards, self.replaced = self._open()
        self._helpers: ThreadPoolExecutor | None = None  # made at the first long search
        self._helpers_free = threading.Lock()  # taken: another search has them; go alone

    def _open(self) -> tuple[tuple[Shard, ...], tuple[Shard, ...]]:
        """(the current entries' shards, the replaced entries' shards), by number."""
        _check_lock_path(self.lock_path)
        _real_directory(self.root)
        for other in self.root.iterdir():  # another format's documents: of no use now
            if other != self.path:
                _remove(other)
        _real_directory(self.path)
        current, replaced = (tuple(Shard(self.path / f"{number}{suffix}", self.schema,
                                         self.analyzer) for number in range(SHARDS))
                             for suffix in ("", "-replaced"))
        self._opened = (_identity(self.root), _identity(self.path))
        return current, replaced

    def intact(self) -> bool:
        """Whether the directories opened are still there, themselves (two lstats): False when
        ``terms/`` was deleted, moved, or replaced by a file or a link."""
        try:
            return self._opened == (_identity(self.root), _identity(self.path))
        except OSError:
            return False

    def heal(self) -> bool:
        """Open the shards again when ``intact`` says they are gone (an update then feeds them
        from SQLite); True when it did."""
        if self.intact():
            return False
        logger.warning("the term index %s is missing or was replaced; it is made again from the "
                       "index", self.root)
        self.shards, self.replaced = self._open()
        return True

    # -- words --------------------------------------------------------------------------------

    def tokens(self, words: Iterable[str]) -> tuple[str, ...]:
        """The indexed forms of ``words`` (stemmed, folded), each once, in order."""
        found: dict[str, None] = {}
        for word in words:
            for token in self.analyzer.analyze(term_documents.spelled(word)):
                found.setdefault(token)
        return tuple(found)

    # -- reading -------------------------------------------------------------------------------

    def search(self, tokens: Sequence[str], *, every: bool, filters: Filters, limit: int
               ) -> list[Hit]:
        """The ``limit`` best entries by BM25 with every token (``every``) or any of them,
        passing ``filters``; best first."""
        if not tokens or limit <= 0:
            return []
        parts = self.shards + (self.replaced if filters.include_replaced else ())
        searchers = [shard.searcher() for shard in parts]
        frequencies = [[searcher.doc_freq("text", token) for token in tokens]
                       for searcher in searchers]
        weights = term_query.boosts([searcher.num_docs for searcher in searchers], frequencies)
        others = self._filters(filters)
        queries = [ShardQuery(self.schema, tokens, mine, every, others) for mine in weights]
        postings = max(sum(counts) for counts in frequencies)
        found = self._each(len(parts), lambda number: queries[number].best(
            searchers[number], limit), wide=postings >= PARALLEL_POSTINGS)
        # the best of all shards first (each shard's hits are best first: ties keep that
        # order), then the fast fields of those only (a call's cost hardly depends on how many)
        best = sorted((-score, rank, number) for number, hits in enumerate(found)
                      for rank, (score, _) in enumerate(hits))[:limit]
        fields: list[dict[int, tuple[Any, Any]]] = []
        for number, searcher in enumerate(searchers):
            ranks = [rank for _, rank, mine in best if mine == number]
            addresses = [found[number][rank][1] for rank in ranks]
            columns = [searcher.fast_field_values(name, addresses) if addresses else []
                       for name in ("line", "stamp")]
            fields.append(dict(zip(ranks, zip(*columns, strict=True), strict=True)))
        hits: list[Hit] = []
        for score, rank, number in best:
            line, stamp = fields[number][rank]
            if line is not None:
                hits.append(Hit(int(line), -score, *unstamp(int(stamp))))
        return hits

    def _each(self, count: int, search: Callable[[int], T], *, wide: bool) -> list[T]:
        """``search`` of parts ``0..count``: side by side when ``wide`` and no other search has
        the helper threads (then one after the other here: queueing behind it would be
        slower), a group of parts a thread (``SHARDS`` groups, the caller's first)."""
        if not wide or not self._helpers_free.acquire(blocking=False):
            return [search(number) for number in range(count)]
        try:
            if self._helpers is None:
                self._helpers = ThreadPoolExecutor(SHARDS - 1,
                                                   thread_name_prefix="zettelclaw-terms")
            groups = [range(first, count, SHARDS) for first in range(SHARDS)]
            later = [self._helpers.submit(lambda group: [search(n) for n in group], group)
                     for group in groups[1:]]
            found: dict[int, T] = {number: search(number) for number in groups[0]}
            for group, future in zip(groups[1:], later, strict=True):
                found.update(zip(group, future.result(), strict=True))
            return [found[number] for number in range(count)]
        finally:
            self._helpers_free.release()

    def held(self, weights: Mapping[str, float], lines: Sequence[int], *, replaced: bool
             ) -> dict[int, float]:
        """For each of ``lines``, the sum of the ``weights`` of the tokens it holds: one search
        a shard, each token a constant score (a search per token and shard cost a third of a
        search: bench/README.md#ranking)."""
        found: dict[int, float] = {}
        parts = self.shards + (self.replaced if replaced else ())
        for number, shard in enumerate(parts):
            mine = [line for line in lines if line % SHARDS == number % SHARDS]
            if not mine:
                continue
            query = Query.boolean_query([
                (Occur.Must, Query.const_score_query(
                    Query.term_set_query(self.schema, "line", mine), 0.0)),
                *((Occur.Should, Query.const_score_query(
                    Query.term_query(self.schema, "text", token), weight))
                  for token, weight in weights.items())])
            searcher = shard.searcher()
            hits = searcher.search(query, len(mine), count=False).hits
            values = searcher.fast_field_values("line", [address for _, address in hits])
            for (score, _), line in zip(hits, values, strict=True):
                if line is not None:
                    found[int(line)] = found.get(int(line), 0.0) + score
        return found

    def frequencies(self, tokens: Sequence[str]) -> tuple[int, dict[str, int]]:
        """(documents, how many of them hold each token): BM25's inputs, for weighing words."""
        searchers = [shard.searcher() for shard in self.shards]
        documents = sum(max(searcher.num_docs - 1, 0) for searcher in searchers)  # no markers
        return documents, {token: sum(int(searcher.doc_freq("text", token))
                                      for searcher in searchers) for token in tokens}

    def postings(self, tokens: Sequence[str], *, replaced: bool) -> int:
        """How many postings a search of ``tokens`` reads at most (each token's in each shard
        searched, the replaced entries' with ``replaced``): what bounds its cost."""
        parts = self.shards + (self.replaced if replaced else ())
        return sum(int(shard.searcher().doc_freq("text", token))
                   for shard in parts for token in tokens)

    def count(self, tokens: Sequence[str], *, every: bool = True) -> int:
        """How many current entries hold the tokens (the benchmark reports it)."""
        occur = Occur.Must if every else Occur.Should
        query = Query.boolean_query([
            (occur, Query.term_query(self.schema, "text", t)) for t in tokens])
        found: list[Any] = [shard.searcher().search(query, 1, count=True)
                            for shard in self.shards]
        return sum(int(result.count or 0) for result in found)

    def documents(self) -> list[tuple[int, bool]]:
        """Every entry's document as (line, replaced), by line: what a check compares with
        SQLite (a line twice would be a duplicate; a line in a shard that is not its place is
        given as its negative)."""
        query = Query.boolean_query([
            (Occur.Must, Query.all_query()),
            (Occur.MustNot, Query.term_query(self.schema, "line", 0))])
        found: list[tuple[int, bool]] = []
        for number, shard in enumerate(self.shards + self.replaced):
            searcher = shard.searcher()
            hits = searcher.search(query, max(searcher.num_docs, 1), count=False).hits
            addresses = [address for _, address in hits]
            lines = searcher.fast_field_values("line", addresses)
            flags = searcher.fast_field_values("replaced", addresses)
            for line, flag in zip(lines, flags, strict=True):
                if line is None:
                    continue
                placed = (int(line) % SHARDS == number % SHARDS
                          and bool(flag) == (number >= SHARDS))
                found.append((int(line) if placed else -int(line), bool(flag)))
        return sorted(found)

    def _filters(self, filters: Filters) -> list[tuple[Occur, Query]]:
        """Clauses for the filters (``include_replaced`` chooses the shards)."""
        clauses: list[tuple[Occur, Query]] = []
        for name in ("type", "subject", "status", "session"):
            value = getattr(filters, name)
            if value is not None:
                clauses.append((Occur.Must, Query.const_score_query(
                    Query.term_query(self.schema, name, value), 0.0)))
        if filters.since is not None or filters.until is not None:
            clauses.append((Occur.Must, Query.const_score_query(Query.range_query(
                self.schema, "ts", tantivy.FieldType.Float, filters.since, filters.until), 0.0)))
        return clauses

    # -- writing -------------------------------------------------------------------------------

    @contextmanager
    def updating(self, index: Index) -> Iterator[Update]:
        """Bring the shards up to the SQLite ``index``: ``Update.pull`` as it grows (a cold
        build feeds tantivy's threads while SQLite takes the next batch), then the commits. A
        shard's writer (threads, memory) is made only when there is something to write."""
        with lock.exclusive(self.lock_path):
            self.heal()
            update = Update(self.shards, self.replaced, index)
            try:
                update.pull()
                yield update
                update.pull()
                update.commit()
            except BaseException:
                update.rollback()
                raise
            if update.wrote:
                update.done()
                for shard in self.shards + self.replaced:
                    shard.reload()

    def collect_garbage(self) -> None:
        """Remove the files of segments no commit uses any more (a purge: their words must
        leave the disk now, not at some later merge)."""
        with lock.exclusive(self.lock_path):
            for shard in self.shards + self.replaced:
                shard.reload()
                writer = shard.writer(15_000_000, 1)
                try:
                    writer.garbage_collect_files()
                finally:
                    writer.wait_merging_threads()

    def close(self) -> None:
        """The helper thread goes; tantivy's files are closed with the objects."""
        if self._helpers is not None:
            self._helpers.shutdown(wait=False)



def _identity(path: Path) -> tuple[int, int]:
    """(device, inode) of a real directory at ``path``; OSError when it is not one."""
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        raise NotADirectoryError(errno.ENOTDIR, "not a directory", str(path))
    return st.st_dev, st.st_ino


def _remove(path: Path) -> None:
    """Remove what is at ``path`` (derived data): a link itself, never what it points to."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _real_directory(path: Path) -> None:
    """A directory of our own at ``path``: a link or a file there is removed (the term index is
    derived), never followed."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    if st is not None and not stat.S_ISDIR(st.st_mode):
        kind = "a symbolic link" if stat.S_ISLNK(st.st_mode) else "not a directory"
        logger.warning("%s was %s; it is removed and the term index made there", path, kind)
        path.unlink()
    path.mkdir(mode=0o700, exist_ok=True)


def _check_lock_path(path: Path) -> None:
    """``terms.lock`` must be a file: an empty directory there is removed, anything else that
    is not a file is refused with its name."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISREG(st.st_mode):
        return
    if stat.S_ISDIR(st.st_mode):
        try:
            path.rmdir()
            logger.warning("%s was an empty directory; removed (it is a lock file)", path)
            return
        except OSError:
            pass
    raise DataDirError(f"{path} is not a file (the term index's lock file): move it away; it "
                       "is made again")
