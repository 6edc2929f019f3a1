"""Keeping the index's chunks of the workspace's Markdown memory files up to date.

Before a search, the kernel is asked whether anything under the workspace's memory files
changed since the last look (``workspace/watch.py``, inotify: one read of an empty queue); only
then, or when another process committed to the index meanwhile (SQLite's ``data_version``), is
each memory file (MEMORY.md, memory/**/*.md) ``stat``ed. Only a file whose mtime or size changed
is read, and only one whose content hash changed is cut into chunks again (its old chunks
replaced). Files that disappeared lose their chunks. Walking a year of daily notes before every
search was a large part of it; with nothing changed, the look is all but free (bench/README.md,
"A year of daily notes").
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from pathlib import Path

from zettelclaw.errors import MarkersError, ZettelclawError
from zettelclaw.index import fts
from zettelclaw.index.chunking import chunk_markdown
from zettelclaw.index.database import Index, new_epoch, text_hash
from zettelclaw.safe_open import read_capped
from zettelclaw.scrub import scrub
from zettelclaw.workspace.markers import layout
from zettelclaw.workspace.memory_files import is_memory_change, list_files, open_real
from zettelclaw.workspace.watch import Watch

MAX_FILE_BYTES = 4 * 1024 * 1024  # larger memory files are indexed up to this size


class WorkspaceIndexer:
    def __init__(self, index: Index, workspace: Path) -> None:
        self.index = index
        self.workspace = workspace
        self._root = os.path.realpath(workspace)
        self._watch = Watch(lambda directory, name, is_dir: is_memory_change(
            directory, name, is_dir, self._root))
        self._looks = threading.Lock()  # one look at a time: a second waits for its answer
        self._index_version: int | None = None  # of the last look: another process's commit

    def reset(self) -> None:
        with self.index.write() as conn:
            for (relative,) in conn.execute("SELECT path FROM files").fetchall():
                _drop(conn, relative)
        self._watch.blind()  # the next sync walks

    def close(self) -> None:
        self._watch.close()

    def sync(self) -> int:
        """Bring the chunks up to date; returns how many files were (re)indexed or dropped."""
        with self._looks:
            version = self._data_version()
            if not self._watch.changed() and version == self._index_version:
                return 0
            self._watch.reset()  # events from here on are the next look's
            self._root = os.path.realpath(self.workspace)
            try:
                changed = self._walk()
            except BaseException:
                self._watch.blind()  # the events it answered are drained: look again next time
                raise
            self._index_version = version
            return changed

    def current(self) -> bool:
        """True when the chunks are known to be up to date, found without waiting or walking:
        no other look under way, no change reported, no other process's commit. When a change
        is reported, the next ``sync`` walks (the news drained here is not lost)."""
        if not self._looks.acquire(blocking=False):
            return False
        try:
            if self._watch.changed():
                self._watch.blind()  # until the walk: ``sync`` must not miss what was drained
                return False
            return self._data_version() == self._index_version
        finally:
            self._looks.release()

    def _data_version(self) -> int:
        """Changes when another connection (another process) commits to the index."""
        with self.index.read() as conn:
            return int(conn.execute("PRAGMA data_version").fetchone()[0])

    def _walk(self) -> int:
        present = (list_files(self.workspace, self._watch) if self.workspace.is_dir()
                   else [])
        stats = {}
        for relative, real in present:
            try:
                st = os.stat(real)
            except FileNotFoundError:
                continue
            stats[relative] = (real, st.st_mtime_ns, st.st_size)
        changed = 0
        with self.index.read() as conn:
            known = {row[0]: (row[1], row[2], row[3]) for row in
                     conn.execute("SELECT path, mtime_ns, size, hash FROM files")}
        todo = [r for r, (_, mtime, size) in stats.items() if known.get(r, (0, -1))[:2]
                != (mtime, size)]
        gone = [r for r in known if r not in stats]
        if not todo and not gone:
            return 0
        with self.index.write() as conn:
            for relative in gone:
                _drop(conn, relative)
                changed += 1
            for relative in todo:
                real, mtime, size = stats[relative]
                try:
                    fd = open_real(self.workspace, real)
                except ZettelclawError:  # swapped for a link or a FIFO since it was listed
                    continue
                try:
                    data = read_capped(fd, MAX_FILE_BYTES)  # a 64 GiB file costs 4 MiB
                finally:
                    os.close(fd)
                digest = hashlib.blake2b(data, digest_size=16).hexdigest()
                if known.get(relative, (0, 0, ""))[2] != digest:
                    _drop(conn, relative)
                    text = data.decode("utf-8", "replace")
                    if "/" not in relative:  # MEMORY.md: its briefing block repeats the log
                        text = without_generated_block(text)
                    # the files are the person's, the index is ours: no secret in its copy (nor
                    # in what a search shows or embeds); the line numbers stay the file's
                    text = scrub(text, keep_lines=True)
                    for chunk in chunk_markdown(text):
                        cursor = conn.execute(
                            "INSERT INTO chunks (path, start_line, end_line, text, text_hash)"
                            " VALUES (?, ?, ?, ?, ?)", (relative, chunk.start_line,
                                                        chunk.end_line, chunk.text,
                                                        text_hash(chunk.text)))
                        conn.execute("INSERT INTO chunks_fts (rowid, text) VALUES (?, ?)",
                                     (cursor.lastrowid, fts.indexed_text(chunk.text)))
                    changed += 1
                conn.execute("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?)",
                             (relative, mtime, size, digest))
            if changed:  # for vectors.chunks_stamp: a replaced chunk may get its id back
                # a name never used before, not a counter: an index reset forgets the meta (not
                # the chunks), and a counter starting again could repeat the stamp of a matrix
                Index.set_meta(conn, {"chunks_version": new_epoch()})
        return changed


def without_generated_block(text: str) -> str:
    """MEMORY.md with the briefing's generated block blanked (line numbers kept): the block
    repeats entries of the log, which search already finds, and would crowd them out."""
    try:
        parts = layout(text)
    except MarkersError:
        return text  # malformed markers: index the file as it is
    if not parts.found:
        return text
    # the marker lines go too: a MEMORY.md that holds only the block (as the briefing writes
    # it) would otherwise be a chunk of two HTML comments, which semantic search ranks close
    # to any question (LoCoMo: 7 hits in 3,964 searches, bench/README.md)
    begin = parts.head.rfind("\n", 0, len(parts.head) - 1) + 1
    end = parts.tail.find("\n")
    end = len(parts.tail) if end < 0 else end
    return parts.head[:begin] + "\n" * (parts.block.count("\n") + 1) + parts.tail[end:]


def _drop(conn: sqlite3.Connection, relative: str) -> None:
    rows = conn.execute("SELECT id, text FROM chunks WHERE path = ?", (relative,)).fetchall()
    conn.executemany("INSERT INTO chunks_fts (chunks_fts, rowid, text) VALUES ('delete', ?, ?)",
                     [(key, fts.indexed_text(text)) for key, text in rows])
    conn.execute("DELETE FROM chunks WHERE path = ?", (relative,))
    conn.execute("DELETE FROM files WHERE path = ?", (relative,))
