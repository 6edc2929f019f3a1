"""Rewriting the log in place: a subject rename (only the ``subject`` field of matching entries
changes), and a purge's dropped lines (``forget/purge.py``) share it.

A ``sed`` over log.jsonl would also rewrite free text that happens to contain the slug.
Instead the rewrite parses each line, changes the field of entries whose subject is the old slug,
and copies every other byte as it was (invalid lines and a torn tail included).

Other programs append to the log meanwhile without the lock (README invites ``echo >>
log.jsonl``), and one may hold it open for days (a long-running appender). So the log keeps its
file: a rewrite never renames a new file over it, which would leave such a writer appending to
a file nobody reads. The rewrite copies the log's whole lines to a journal beside it, changed
(until a pass finds nothing new), and checks it. Others only ever append, at the end, so the
bytes before the end are the rewrite's to replace: it writes the journal's bytes over the
start of the log, in place, and what others appended after it stays after it. When the new
text is shorter, a line of spaces fills the difference (a blank line, which every reader
skips); when it is longer, a line of spaces is appended first to make the room (and what others
appended before it moves up behind the new text). The journal holds the exact bytes of that
start, fsynced, and a record (``.log.jsonl.rewrite.json``: the file's identity and the length)
says it is to be written: a crash mid-write is finished at the next start (``recover_locked``),
as the bytes to write are all in the journal. The caller holds the data lock.
"""

from __future__ import annotations

import bisect
import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from zettelclaw.errors import LogRewriteError
from zettelclaw.files import atomic_write_json, fsync_dir, remove_if_present, write_all
from zettelclaw.home import FILE_MODE, Home
from zettelclaw.log.lines import Line, Position, entry_start, parse_line, read_lines
from zettelclaw.log.store import LogStore

CHUNK = 1 << 20
MAX_PASSES = 50  # catch-up passes before the write; what others append later stays after it
GRACE_SECONDS = 0.05  # for a line another writer has begun at the end to be finished
# temp files of the rewrites of earlier versions (a rename, a purge: renamed over the log)
_OLD_TEMPS = (".rename.tmp", ".purge.tmp")


@dataclass(frozen=True)
class RewriteResult:
    rewritten: int  # entries whose subject changed
    entries: int  # entries in the log, before and after
    size: int  # the log's size after the rewrite
    starts: tuple[int, ...] = ()  # where each rewritten line began in the old file
    totals: tuple[int, ...] = ()  # bytes the rewrite had added once that line was written
    end: int = 0  # where the rewritten part of the old file ended (what others appended after)
    moved: int = 0  # how far what lay after ``end`` moved up (the new text was longer)

    def new_offset(self, old_offset: int) -> int:
        """Where a line boundary of the old file is in the new one."""
        if old_offset >= self.end:
            return old_offset + self.moved
        i = bisect.bisect_left(self.starts, old_offset)  # rewritten lines that begin before it
        return old_offset + (self.totals[i - 1] if i else 0)


def temp_path(home: Home) -> Path:
    """The journal: the new bytes of the log's start, before they are written in place."""
    return home.log.with_name(f".{home.log.name}.rewrite.tmp")


def record_path(home: Home) -> Path:
    return home.log.with_name(f".{home.log.name}.rewrite.json")


def recover_locked(home: Home) -> bool:
    """At start (and before a purge runs again): finish an in-place write a crash cut short,
    from its journal; remove what a rewrite left. True when there was something."""
    found = False
    record = record_path(home)
    with contextlib.suppress(FileNotFoundError, ValueError, KeyError, TypeError):
        wanted = orjson.loads(record.read_bytes())
        found = True
        _redo(home, int(wanted["dev"]), int(wanted["ino"]), int(wanted["length"]))
    found = remove_if_present(record) or found
    found = remove_if_present(temp_path(home)) or found
    for old in _OLD_TEMPS:
        found = remove_if_present(home.log.with_name(f".{home.log.name}{old}")) or found
    return found


def leftover(home: Home) -> bool:
    names = [temp_path(home), record_path(home),
             *(home.log.with_name(f".{home.log.name}{old}") for old in _OLD_TEMPS)]
    return any(p.exists() for p in names)


def _redo(home: Home, dev: int, ino: int, length: int) -> None:
    fd = os.open(home.log, os.O_WRONLY | os.O_NOFOLLOW)
    try:
        st = os.fstat(fd)
        journal = temp_path(home)
        if (st.st_dev, st.st_ino) != (dev, ino) or st.st_size < length \
                or journal.stat().st_size != length:
            return  # not the file it was for (replaced by hand since): nothing to finish
        _copy_into(journal, fd, length)
    finally:
        os.close(fd)


def _copy_into(journal: Path, fd: int, length: int) -> None:
    src = os.open(journal, os.O_RDONLY)
    try:
        at = 0
        while at < length:
            chunk = os.pread(src, min(CHUNK, length - at), at)
            if not chunk:
                raise LogRewriteError("the rewrite's journal is shorter than it says")
            written = os.pwrite(fd, chunk, at)
            at += written
        os.fsync(fd)
    finally:
        os.close(src)


def rewrite_subject_locked(home: Home, old: str, new: str) -> RewriteResult:
    """Rewrite ``subject: old`` to ``subject: new`` in the log, in place."""
    copier = _Copier(-1, old, new)

    def check(journal: Path) -> None:
        after = _count(journal, old, new)
        counts = copier.counts
        if after != (counts.entries, 0, counts.rewritten + counts.already_new):
            raise LogRewriteError(
                f"the rewritten log would hold {after[0]} entries ({after[1]} still "
                f"{old!r}) where the log holds {counts.entries}; the log is unchanged")

    end, moved = rewrite_in_place_locked(home, copier, check)
    return RewriteResult(copier.counts.rewritten, copier.counts.entries,
                         os.stat(home.log).st_size, tuple(copier.starts), tuple(copier.totals),
                         end, moved)


def rewrite_in_place_locked(home: Home, copier: _Copier, check: Callable[[Path], None],
                            before_write: Callable[[], None] | None = None) -> tuple[int, int]:
    """The log's whole lines as ``copier`` carries them, written over the log in place (the
    module's docstring). ``check`` raises when the journal is not what it should be (the log is
    then unchanged). Returns where the rewritten part of the old file ended, and how far what
    lay after it moved up."""
    recover_locked(home)
    journal = temp_path(home)
    fd = os.open(home.log, os.O_RDWR | os.O_NOFOLLOW)
    try:
        copier.src = fd
        dst = os.open(journal, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
        try:
            copier.dst = dst
            for _ in range(MAX_PASSES):  # the bulk, then what others appended meanwhile
                if not copier.copy(os.fstat(fd).st_size):
                    break
            _end_open_line(home, fd, copier)
            end = copier.done
            new_size = os.fstat(dst).st_size
            os.fsync(dst)
            check(journal)
            length, moved = _make_room(home, fd, end, new_size)
            tail = _read(fd, end, length - new_size - _pad_length(end, new_size, moved))
            write_all(dst, _pad(_pad_length(end, new_size, moved)) + tail)
            os.fsync(dst)
        except BaseException:  # a failed copy or check (disk full, log shrank): no journal
            os.close(dst)
            journal.unlink(missing_ok=True)
            raise
        os.close(dst)
        st = os.fstat(fd)
        try:
            atomic_write_json(record_path(home), {"dev": st.st_dev, "ino": st.st_ino,
                                                  "length": length})
        except BaseException:  # not recorded: nothing is written in place, nothing to finish
            journal.unlink(missing_ok=True)
            raise
        # from here a failure leaves the record and the journal: the next start finishes it
        if before_write is not None:
            before_write()
        _copy_into(journal, fd, length)
    finally:
        os.close(fd)
    remove_if_present(record_path(home))
    journal.unlink(missing_ok=True)
    fsync_dir(home.log.parent)
    return end, moved


def _end_open_line(home: Home, fd: int, copier: _Copier) -> None:
    """A last line without its newline (torn by a crash, typed without one, or being written):
    given ``GRACE_SECONDS`` to be finished, then ended with a newline if the log has not moved
    since, and rewritten with the rest, so that no entry of it keeps the old subject."""
    size = os.fstat(fd).st_size
    if size <= copier.done:
        return
    time.sleep(GRACE_SECONDS)
    copier.copy(os.fstat(fd).st_size)
    size = os.fstat(fd).st_size
    if size > copier.done and LogStore(home).end_last_line_locked(size):
        copier.copy(os.fstat(fd).st_size)


def _make_room(home: Home, fd: int, end: int, new_size: int) -> tuple[int, int]:
    """The length of the log's start the rewrite writes, and how far what others appended after
    ``end`` moves up. Longer new text: a line of spaces appended (where an append goes, so
    nobody's append is overwritten) makes the room."""
    if new_size <= end:
        return end, 0
    grow = new_size - end
    app = os.open(home.log, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW)
    try:
        write_all(app, _pad(grow))
        after = os.lseek(app, 0, os.SEEK_CUR)  # the end of our own write
        os.fsync(app)
    finally:
        os.close(app)
    return after, grow


def _pad_length(end: int, new_size: int, moved: int) -> int:
    return end - new_size if not moved else 0


def _pad(length: int) -> bytes:
    """A blank line of ``length`` bytes (none for 0)."""
    return b" " * (length - 1) + b"\n" if length else b""


def _read(fd: int, at: int, length: int) -> bytes:
    out = bytearray()
    while len(out) < length:
        chunk = os.pread(fd, min(CHUNK, length - len(out)), at + len(out))
        if not chunk:
            raise LogRewriteError("the log shrank while it was being rewritten")
        out += chunk
    return bytes(out)


@dataclass
class _Counts:
    entries: int = 0
    rewritten: int = 0
    already_new: int = 0


@dataclass
class _Copier:
    """Copies the old log to ``dst`` line by line from where it stopped, rewriting the subject."""

    src: int
    old: str
    new: str
    dst: int = -1
    done: int = 0  # bytes of the old file carried over
    added: int = 0  # bytes the rewrite added (or removed) so far
    counts: _Counts = field(default_factory=_Counts)
    starts: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)

    def copy(self, stop: int) -> bool:
        """Carry over the whole lines in ``[done, stop)``; True when there was something to
        carry."""
        start = self.done
        pending = bytearray()
        at = start
        while at < stop:
            chunk = os.pread(self.src, min(CHUNK, stop - at), at)
            if not chunk:
                raise LogRewriteError("the log shrank while it was being rewritten")
            at += len(chunk)
            pending += chunk
            cut = pending.rfind(b"\n") + 1
            if cut:
                self._lines(bytes(pending[:cut]))
                del pending[:cut]
        return self.done > start

    def _lines(self, data: bytes) -> None:
        """Whole lines (``data`` ends with a newline), from offset ``done`` of the old file,
        each carried over as ``_carry`` makes it (the purge's copier drops lines instead)."""
        out = bytearray()
        begin = 0
        while begin < len(data):
            end = data.index(b"\n", begin)
            line = parse_line(0, self.done + begin, data[begin:end])
            if line.entry is not None:
                self.counts.entries += 1
            out += self._carry(line, data[begin:end + 1], self.done + begin)
            begin = end + 1
        write_all(self.dst, bytes(out))
        self.done += len(data)

    def _carry(self, line: Line, raw: bytes, at: int) -> bytes:
        """What of one line (``raw``, at offset ``at`` of the old file) goes into the new log:
        an entry of the old subject with the new one."""
        if line.entry is None or line.entry.subject not in (self.old, self.new):
            return raw
        if line.entry.subject == self.new:
            self.counts.already_new += 1
            return raw
        start = 0 if line.error is None else entry_start(line.data)  # torn bytes before it
        value = orjson.loads(line.data[start:])
        value["subject"] = self.new
        rewritten = line.data[:start] + orjson.dumps(value) + b"\n"
        self.counts.rewritten += 1
        self.added += len(rewritten) - len(raw)
        self.starts.append(at)
        self.totals.append(self.added)
        return rewritten


def _count(path: os.PathLike[str], old: str, new: str) -> tuple[int, int, int]:
    fd = os.open(path, os.O_RDONLY)
    try:
        entries = olds = news = 0
        for line, _ in read_lines(fd, Position(), os.fstat(fd).st_size):
            if line.entry is not None:
                entries += 1
                olds += line.entry.subject == old
                news += line.entry.subject == new
        return entries, olds, news
    finally:
        os.close(fd)
