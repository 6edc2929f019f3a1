"""A large catch-up's term index, built in a second process while SQLite takes the entries.

A cold build is two jobs: SQLite takes the parsed entries (``index/ingest.py``), tantivy their
words (``index/terms.py``). In one process they share one GIL, so the Python half of each
(parsing and inserting; reading the rows back and turning them into documents) runs one after
the other: ~30 s for a million entries on this 2-core machine. The follower is the term index's
half in a child process: it reads each batch SQLite commits (WAL lets a reader beside the
writer) and hands it to tantivy while the parent parses the next one.

Nothing depends on the follower for correctness. It commits only rows SQLite has committed, and
after it the parent runs its usual update, which adds whatever the follower did not get to (it
failed to start, crashed, was killed, or the build stopped early). The parent closes the child's
stdin when its build is done, or by dying: the child pulls once more, commits and exits. It
ignores SIGINT: a Ctrl-C at a terminal reaches the whole process group, and the parent decides.
"""

from __future__ import annotations

import logging
import os
import select
import signal
import subprocess
import sys
from pathlib import Path
from types import TracebackType

from zettelclaw import priority
from zettelclaw.index.database import Index, IndexMissingError
from zettelclaw.index.terms import TermIndex

logger = logging.getLogger(__name__)

FOLLOW_BYTES = 32 << 20  # a catch-up of more log than this (~125k entries) is followed
POLL_SECONDS = 0.1  # how often the child looks for newly committed rows
# The child and tantivy's threads yield the cores to the parent, whose parse-and-insert is the
# build's critical path: at the same priority their three threads took a share of the parent's
# core and lengthened the build; lower, the child still ends soon after the parent
# (bench/README.md#search-at-a-million-entries).
# A request the sidecar answers meanwhile comes first too.
FOLLOWER_NICE = 10
FINISH_SECONDS = 600.0  # the child's last pull and commit; far more than a million entries take


class Follower:
    """The child process, from the parent's side: ``with Follower(...) as f: build; f.finish()``.
    Leaving the block by an exception kills the child (what it had fed is not committed)."""

    def __init__(self, index_path: Path, terms_root: Path) -> None:
        self._args = [*self.command(), str(index_path), str(terms_root)]
        self._process: subprocess.Popen[bytes] | None = None

    @staticmethod
    def command() -> list[str]:
        return [sys.executable, "-m", __name__]

    def __enter__(self) -> Follower:
        try:
            self._process = subprocess.Popen(self._args, stdin=subprocess.PIPE,
                                             stdout=subprocess.DEVNULL)
        except OSError as exc:  # the parent's own update does the work
            logger.warning("term index: no follower process (%s)", exc)
        return self

    def finish(self) -> bool:
        """The build is done: let the child take the last rows and commit. True when it did."""
        process, self._process = self._process, None
        if process is None:
            return False
        assert process.stdin is not None
        process.stdin.close()
        try:
            code = process.wait(FINISH_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            code = process.wait()
        if code != 0:
            logger.warning("term index: the follower process exited with %s; indexing the "
                           "rest here", code)
        return code == 0

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        process, self._process = self._process, None
        if process is not None:  # not finished: the build failed or was stopped
            process.kill()
            process.wait()
            assert process.stdin is not None
            process.stdin.close()


def follow(index_path: Path, terms_root: Path) -> None:
    """The child: pull what SQLite committed until stdin closes, then commit."""
    index = Index(index_path, create=False)
    terms = TermIndex(terms_root)
    try:
        with terms.updating(index) as update:
            while not _closed(sys.stdin.fileno(), POLL_SECONDS):
                update.pull()
    finally:
        index.close()


def _closed(fd: int, timeout: float) -> bool:
    """Wait up to ``timeout`` s for end of file on ``fd`` (the parent writes nothing)."""
    readable, _, _ = select.select([fd], [], [], timeout)
    return bool(readable) and not os.read(fd, 1)


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    priority.lower_this_process(FOLLOWER_NICE)  # before tantivy's threads: they inherit it
    logging.basicConfig(level=logging.WARNING, format="zettelclaw: %(levelname)s: %(message)s")
    if len(argv) != 2:
        print("usage: python -m zettelclaw.index.terms_follower INDEX_SQLITE TERMS_DIR",
              file=sys.stderr)
        return 2
    try:
        follow(Path(argv[0]), Path(argv[1]))
    except IndexMissingError as exc:
        logger.error("term index follower: %s", exc)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
