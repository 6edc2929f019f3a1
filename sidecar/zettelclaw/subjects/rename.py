"""Renaming a subject in the log: only the ``subject`` field of matching entries changes.

The spec's ``sed`` over log.jsonl would also rewrite free text that happens to contain the slug.
Instead the rewrite parses each line, changes the field of entries whose subject is the old slug,
and copies every other byte as it was (invalid lines and a torn tail included). It writes the new
log beside the old one, checks that it holds the same entries, fsyncs it, and renames it over the
old log. The caller holds the data lock.

Other programs may append to the log meanwhile (README invites ``echo >> log.jsonl``; they do
not take the lock). Nothing they append is lost: after the bulk copy, the rewrite keeps copying
whole lines appended to the old file until a pass finds none; it then replaces the file, and
carries over what still reached the old file (a writer that opened it just before the replace)
by appending it to the new one, right away and once more after ``GRACE_SECONDS``. A line still
unfinished then is carried with a newline added, so that the next append starts a line of its
own. A temp file left by a crash is removed by the next
rename, and at start (``remove_leftover``).
"""

from __future__ import annotations

import bisect
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from zettelclaw.errors import LogRewriteError
from zettelclaw.files import fsync_dir, remove_if_present, write_all
from zettelclaw.home import FILE_MODE, Home
from zettelclaw.log.lines import Line, Position, entry_start, parse_line, read_lines

CHUNK = 1 << 20
MAX_PASSES = 50  # catch-up passes before the replace; a writer faster than the copy wins later
GRACE_SECONDS = 0.05  # after the replace, for writers that opened the old file just before


@dataclass(frozen=True)
class RewriteResult:
    rewritten: int  # entries whose subject changed
    entries: int  # entries in the log, before and after
    size: int  # the new log's size
    starts: tuple[int, ...] = ()  # where each rewritten line began in the old file
    totals: tuple[int, ...] = ()  # bytes the rewrite had added once that line was written

    def new_offset(self, old_offset: int) -> int:
        """Where a line boundary of the old file is in the new one."""
        i = bisect.bisect_left(self.starts, old_offset)  # rewritten lines that begin before it
        return old_offset + (self.totals[i - 1] if i else 0)


def temp_path(home: Home) -> Path:
    return home.log.with_name(f".{home.log.name}.rename.tmp")


def remove_leftover(home: Home) -> bool:
    """Remove the temp file of a rename that a crash cut short; True when there was one."""
    return remove_if_present(temp_path(home))


def rewrite_subject_locked(home: Home, old: str, new: str) -> RewriteResult:
    """Rewrite ``subject: old`` to ``subject: new`` in the log, atomically."""
    tmp = temp_path(home)
    remove_leftover(home)
    src = os.open(home.log, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        copier = _Copier(src, old, new)
        dst = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
        try:
            copier.dst = dst
            for _ in range(MAX_PASSES):  # the bulk, then what others appended meanwhile
                if not copier.copy(os.fstat(src).st_size):
                    break
            os.fsync(dst)
        except BaseException:  # a failed copy (disk full, log shrank) leaves no temp file
            os.unlink(tmp)
            raise
        finally:
            os.close(dst)
        try:
            after = _count(tmp, old, new)
            counts = copier.counts
            if after != (counts.entries, 0, counts.rewritten + counts.already_new):
                raise LogRewriteError(
                    f"the rewritten log would hold {after[0]} entries ({after[1]} still "
                    f"{old!r}) where the log holds {counts.entries}; the log is unchanged")
            os.replace(tmp, home.log)
        except BaseException:
            os.unlink(tmp)
            raise
        fsync_dir(home.log.parent)
        _carry_over(copier, home)
    finally:
        os.close(src)
    return RewriteResult(copier.counts.rewritten, copier.counts.entries,
                         os.stat(home.log).st_size, tuple(copier.starts), tuple(copier.totals))


def _carry_over(copier: _Copier, home: Home) -> None:
    """Append to the new log what reached the old file after the last pass."""
    dst = os.open(home.log, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW)
    try:
        copier.dst = dst
        copier.copy(os.fstat(copier.src).st_size)
        time.sleep(GRACE_SECONDS)
        copier.copy(os.fstat(copier.src).st_size, final=True)
        os.fsync(dst)
    finally:
        os.close(dst)


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

    def copy(self, stop: int, final: bool = False) -> bool:
        """Carry over the whole lines in ``[done, stop)`` (with ``final``, an unfinished last
        line too); True when there was something to carry."""
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
        if final and pending:  # unfinished after the grace: ended here, so that the next
            self._lines(bytes(pending) + b"\n")  # append starts on a line of its own
            self.done -= 1  # the newline is ours, not the old file's
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
