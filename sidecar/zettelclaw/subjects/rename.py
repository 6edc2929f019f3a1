"""Renaming a subject in the log: only the ``subject`` field of matching entries changes.

The spec's ``sed`` over log.jsonl would also rewrite free text that happens to contain the slug.
Instead the rewrite parses each line, changes the field of entries whose subject is the old slug,
and copies every other byte as it was (invalid lines and a torn tail included). It writes the new
log beside the old one, checks that it holds the same entries, fsyncs it, and renames it over the
old log. The caller holds the data lock.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import orjson

from zettelclaw.errors import LogRewriteError
from zettelclaw.files import fsync_dir, write_all
from zettelclaw.home import FILE_MODE, Home
from zettelclaw.log.lines import START, Position, read_lines


@dataclass(frozen=True)
class RewriteResult:
    rewritten: int  # entries whose subject changed
    entries: int  # entries in the log, before and after
    size: int  # the new log's size


def rewrite_subject_locked(home: Home, old: str, new: str) -> RewriteResult:
    """Rewrite ``subject: old`` to ``subject: new`` in the log, atomically."""
    tmp = home.log.with_name(f".{home.log.name}.rename.tmp")
    src = os.open(home.log, os.O_RDONLY)
    try:
        end = os.fstat(src).st_size
        dst = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
        try:
            before = _copy_rewriting(src, dst, end, old, new)
            os.fsync(dst)
        except BaseException:  # a failed copy (disk full, log shrank) leaves no temp file
            tmp.unlink(missing_ok=True)
            raise
        finally:
            os.close(dst)
    finally:
        os.close(src)
    try:
        after = _count(tmp, old, new)
        if after != (before.entries, 0, before.rewritten + before.already_new):
            raise LogRewriteError(
                f"the rewritten log would hold {after[0]} entries ({after[1]} still {old!r}) "
                f"where the log holds {before.entries}; the log is unchanged"
            )
        size = tmp.stat().st_size
        os.replace(tmp, home.log)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(home.log.parent)
    return RewriteResult(before.rewritten, before.entries, size)


@dataclass
class _Counts:
    entries: int = 0
    rewritten: int = 0
    already_new: int = 0


def _copy_rewriting(src: int, dst: int, end: int, old: str, new: str) -> _Counts:
    counts = _Counts()
    copied = 0  # bytes of the source already carried over to the destination
    for line, _ in read_lines(src, START, end):
        if line.entry is None:
            continue
        counts.entries += 1
        if line.entry.subject == new:
            counts.already_new += 1
        elif line.entry.subject == old:
            obj = orjson.loads(line.data)
            obj["subject"] = new
            _copy_range(src, dst, copied, line.offset)
            write_all(dst, orjson.dumps(obj))
            copied = line.offset + len(line.data)
            counts.rewritten += 1
    _copy_range(src, dst, copied, end)  # the rest, invalid lines and a torn tail included
    return counts


def _copy_range(src: int, dst: int, start: int, stop: int) -> None:
    while start < stop:
        chunk = os.pread(src, min(1 << 20, stop - start), start)
        if not chunk:
            raise LogRewriteError("the log shrank while it was being rewritten")
        write_all(dst, chunk)
        start += len(chunk)


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
