"""Reading the log as numbered lines from a resumable position.

A reader resumes where it left off (a ``Position``: byte offset, lines read, and whether the last
line read had no newline yet). Complete lines are always yielded. An unterminated last line is
yielded only when it already holds a whole valid entry (someone appended by hand without a final
newline); anything else there is a write in progress or torn by a crash, and waits: the next
writer terminates it (see ``store``), and then it is read, and reported, as an invalid line.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

import orjson

from zettelclaw.log import hides
from zettelclaw.log.schema import (
    Entry,
    EntryRecord,
    InvalidEntry,
    parse_entry_json,
    parse_entry_record,
)

CHUNK = 1 << 20
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Position:
    offset: int = 0
    lines: int = 0
    #: the last line read had no newline: a newline at ``offset`` still belongs to it
    open_tail: bool = False


START = Position()


class LineContinuedError(Exception):
    """The entry read without its newline (an open tail) was continued by more bytes on the same
    line: what was yielded as an entry is now part of a longer, different line. A reader that
    resumes from such a position cannot take back what it yielded; it must read from the start
    (the index does: see ``index.ingest``)."""


@dataclass(frozen=True, slots=True)
class Line:
    number: int  # 1-based
    offset: int
    data: bytes  # without the newline
    entry: Entry | None
    error: str | None  # why the line is not an entry; None for entries and blank lines

    @property
    def blank(self) -> bool:
        """A blank line, or a hide record (``log/hides.py``): no entry and no error."""
        return self.entry is None and self.error is None


def parse_line(number: int, offset: int, data: bytes) -> Line:
    return Line(number, offset, data, *_parsed(parse_entry_json, data))


@dataclass(frozen=True, slots=True)
class RecordLine:
    """A ``Line`` whose entry is a validated dict (``schema.EntryRecord``), not a model."""

    number: int
    offset: int
    data: bytes
    entry: EntryRecord | None
    error: str | None


def parse_record_line(number: int, offset: int, data: bytes) -> RecordLine:
    return RecordLine(number, offset, data, *_parsed(parse_entry_record, data))


def _parsed(parse: Callable[[bytes], T], data: bytes) -> tuple[T | None, str | None]:
    """(the entry, None), (None, why it is not one), or (None, None) for a blank line; or
    (the entry, why the bytes before it are not one) for a line torn and then continued."""
    if not data.strip():
        return None, None
    if hides.looks_like(data):  # a hide record: not an entry, read by the index (ingest.py)
        try:
            hides.parse(data)
        except ValueError as exc:
            return None, f"hide record: {exc}"
        return None, None
    try:
        return parse(data), None
    except InvalidEntry as exc:
        return _after_torn_bytes(parse, data, exc.reason)


TORN_TRIES = 16  # places a continued entry may start, tried at most


def _after_torn_bytes(parse: Callable[[bytes], T], data: bytes, reason: str
                      ) -> tuple[T | None, str | None]:
    """A line torn by a crash (or ``printf`` without a newline) and continued by a whole entry
    before the tail mender ended it (``echo >>`` within its second: tests/log/test_lines.py): the
    entry is the longest end of the line that is one, starting at a ``{"``; the bytes before it are
    reported as the invalid part. Only when the line is no JSON at all: a JSON object that is
    not an entry stays one invalid line, whatever it holds."""
    found = _entry_after_torn_bytes(parse, data)
    if found is None:
        return None, reason
    start, entry = found
    return entry, f"torn bytes before an entry ({start} bytes, then the entry): {reason}"


def _entry_after_torn_bytes(parse: Callable[[bytes], T], data: bytes) -> tuple[int, T] | None:
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    else:
        return None
    start = 0
    for _ in range(TORN_TRIES):
        start = data.find(b'{"', start + 1)
        if start < 0:
            return None
        try:
            return start, parse(data[start:])
        except InvalidEntry:
            continue
    return None


def entry_start(data: bytes) -> int:
    """Where the entry of a line that is one starts: 0, or past the torn bytes before it."""
    found = _entry_after_torn_bytes(parse_entry_record, data)
    return 0 if found is None else found[0]


L = TypeVar("L", Line, RecordLine)


def read_lines(fd: int, start: Position, end: int) -> Iterator[tuple[Line, Position]]:
    """Lines from ``start`` up to byte ``end``, each with the position just after it.

    Reads with ``pread``, so a caller may hold other positions in the same file.
    """
    return _read(fd, start, end, parse_line)


def read_records(fd: int, start: Position, end: int) -> Iterator[tuple[RecordLine, Position]]:
    """``read_lines`` with each entry validated into a dict instead of a model: the same lines
    accepted and refused, in half the time (the index's builds read every line of the log)."""
    return _read(fd, start, end, parse_record_line)


def _read(fd: int, start: Position, end: int, parse: Callable[[int, int, bytes], L]
          ) -> Iterator[tuple[L, Position]]:
    offset = start.offset  # the next byte to read
    number = start.lines
    # Unconsumed bytes, the file offset of buffer[0], and how far buffer is known to hold no
    # newline: a line of 50 MB is read in chunks without copying or scanning it again per chunk.
    buffer, buffer_at, scanned = bytearray(), offset, 0
    skip_newline = start.open_tail
    while offset < end:
        chunk = os.pread(fd, min(CHUNK, end - offset), offset)
        if not chunk:  # the file shrank under us: stop; the caller's fingerprint check notices
            break
        offset += len(chunk)
        buffer += chunk
        pos = 0
        if skip_newline:
            if not buffer.startswith(b"\n"):
                raise LineContinuedError(f"line {number} went on after it was read")
            pos, skip_newline = 1, False
        while (newline := buffer.find(b"\n", max(pos, scanned))) >= 0:
            number += 1
            line = parse(number, buffer_at + pos, bytes(buffer[pos:newline]))
            yield line, Position(buffer_at + newline + 1, number, False)
            pos = newline + 1
            scanned = pos
        buffer_at += pos
        del buffer[:pos]
        scanned = len(buffer)
    if buffer and not skip_newline:
        line = parse(number + 1, buffer_at, bytes(buffer))
        if line.entry is not None:
            yield line, Position(buffer_at + len(buffer), number + 1, True)
