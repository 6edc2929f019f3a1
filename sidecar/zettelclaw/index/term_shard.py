"""One shard of the term index: a tantivy index in its own directory, read and written alone.

A shard holds the documents of the lines that ``TermIndex`` routes to it, and its own marker
(line 0: the SQLite epoch it follows, and how far it was fed), committed with them: shards
committed one after the other are each consistent whatever stops between the commits.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import tantivy
from tantivy import Index as TantivyIndex  # not zettelclaw's Index (index/database.py)
from tantivy import Query

from zettelclaw.index.term_documents import ANALYZER

logger = logging.getLogger(__name__)


class Shard:
    def __init__(self, path: Path, schema: tantivy.Schema, analyzer: tantivy.TextAnalyzer
                 ) -> None:
        self.path = path
        self.schema = schema
        self._analyzer = analyzer
        self.index = self._open()
        self._loaded: tuple[int, int, int] | None = None  # meta.json when last reloaded

    def _open(self) -> TantivyIndex:
        self.path.mkdir(mode=0o700, exist_ok=True)
        try:
            index = TantivyIndex(self.schema, path=str(self.path))
        except ValueError as exc:  # unreadable (a torn copy, another tantivy's format)
            logger.warning("term index %s is unreadable (%s); rebuilding it", self.path, exc)
            shutil.rmtree(self.path, ignore_errors=True)
            self.path.mkdir(mode=0o700)
            index = TantivyIndex(self.schema, path=str(self.path))
        index.register_tokenizer(ANALYZER, self._analyzer)
        return index

    def searcher(self) -> tantivy.Searcher:
        """What was committed last, by this process or another. Every commit replaces
        meta.json (written aside and renamed in), so its stat tells when to reload: a stat is
        far cheaper than a reload, and both are small beside a rare word's whole search."""
        try:
            st = os.stat(self.path / "meta.json")
            stamp: tuple[int, int, int] | None = (st.st_ino, st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            stamp = None
        if stamp is None or stamp != self._loaded:
            with os_errors():
                self.index.reload()
            self._loaded = stamp
        return self.index.searcher()

    def reach(self) -> tuple[str | None, int]:
        """(the epoch the documents belong to, the line up to which the shard was given every
        entry that is its), as its marker says; (None, 0) when it has none."""
        with os_errors():
            self.index.reload()
        searcher = self.index.searcher()
        marker = searcher.search(Query.term_query(self.schema, "line", 0), 1, count=False).hits
        if not marker:
            return None, 0
        document = searcher.doc(marker[0][1])
        epoch, fed = document.get_first("epoch"), document.get_first("fed")
        return (None if epoch is None else str(epoch)), int(fed or 0)

    def writer(self, heap: int, threads: int) -> tantivy.IndexWriter:
        with os_errors():
            return self.index.writer(heap_size=heap, num_threads=threads)

    def reload(self) -> None:
        with os_errors():
            self.index.reload()


_OS_CODE = re.compile(r"\bcode: (\d+)|\(os error (\d+)\)")


@contextmanager
def os_errors() -> Iterator[None]:
    """tantivy reports an operating system's error as a ValueError that names its code (``Os {
    code: 24, ...}``): raised here as the OSError it is, so that the machine's state (no file
    descriptors left, a full disk) is answered as such (-32010), not as a bug
    (tests/hostile/test_issue28_small.py: at the fd limit memory.search answered -32603 where every
    other method answered -32010)."""
    try:
        yield
    except ValueError as exc:
        found = _OS_CODE.search(str(exc))
        if found is None:
            raise
        code = int(found.group(1) or found.group(2))
        raise OSError(code, f"{os.strerror(code)} (the term index: {exc})") from exc
