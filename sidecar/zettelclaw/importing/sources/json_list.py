"""A JSON list read as a stream and cut into its elements, each parsed alone.

The list is read in chunks and cut by a scanner that follows strings and brackets; each element
is then parsed by itself with orjson. Memory is bounded by the largest element (at most
``ELEMENT_CAP``; a larger one is skipped with a Problem), not by the stream. Each fault is a
``Problem`` naming the stream and the place (an element's index, a byte offset), and what can
still be read is yielded before and after it; a fault in the list itself (truncated, not JSON
after some point) ends the stream: a JSON text cannot be resynchronised after a syntax error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from zettelclaw.importing import cancel
from zettelclaw.importing.items import Problem

CHUNK = 1 << 20
ELEMENT_CAP = 64 << 20  # one conversation: held whole, and its parse beside it
WS_CAP = 1 << 20  # white space in a row between values: an export's indentation is far less
SCALAR_CAP = 256  # a number, true, false or null
PROGRESS_BYTES = 256 << 20  # a scan says how far it got each time it reads this much more
_SCALAR_END = re.compile(rb"[,\]\s]")
_WS_RUN = re.compile(rb"[ \t\r\n]*+")
_STRING_BODY = re.compile(rb'(?:[^"\\]++|\\.)*+', re.DOTALL)  # a string's inside, escapes whole
# a run of anything but brackets, whole strings included (a string cut by the buffer's end is
# not: the run stops at its opening quote); possessive, so it never backtracks
_BETWEEN = re.compile(rb'(?:[^"\[\]{}]++|"(?:[^"\\]++|\\.)*+")*+', re.DOTALL)


class Readable(Protocol):
    def read(self, size: int, /) -> bytes: ...


@dataclass(frozen=True)
class Element:
    """One element of a conversations list, parsed: its file, its index, and the value."""

    file: str  # "conversations.json", or "export.zip:conversations.json"
    index: int
    value: Any

    @property
    def place(self) -> str:
        return f"{self.file}, conversation {self.index}"


class _Truncated(Exception):
    pass


class _Broken(Exception):
    """What cannot be a chat export from this byte on: the file's reading ends there."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset, self.message = offset, message


class _Scanner:
    """A window on a byte stream: ``buf`` holds from ``anchor`` (the value being cut out) on."""

    def __init__(self, raw: Readable, name: str = "") -> None:
        self.raw = raw
        self.name = name
        self.buf = bytearray()
        self.pos = 0
        self.anchor = 0
        self.offset = 0  # the stream offset of buf[0]
        self.skipping = False  # inside a value too large to keep: bytes before pos are dropped

    def more(self) -> bool:
        """Read more, dropping what is before the anchor; False at the end of the stream."""
        cancel.check()  # a chunk at a time: a long scan stops when the sidecar does
        keep = self.pos if self.skipping else self.anchor
        del self.buf[:keep]
        self.offset += keep
        self.pos -= keep
        self.anchor = max(self.anchor - keep, 0)
        # at least as much as is still to be scanned, so that rescanning a long string stays
        # linear in its length
        data = self.raw.read(max(CHUNK, len(self.buf) - self.pos))
        if not data:
            return False
        read = self.offset + len(self.buf)
        if (read + len(data)) // PROGRESS_BYTES > read // PROGRESS_BYTES:
            cancel.progress(f"reading {self.name}: {(read + len(data)) >> 20:,} MiB so far")
        self.buf += data
        return True

    def skip_ws(self) -> bool:
        """Move to the next byte that is not white space; False at the end of the stream.
        Nothing before it is needed, so a long run is not kept; a run longer than
        ``WS_CAP`` is no export's (``_Broken``)."""
        start = self.offset + self.pos
        while True:
            self.pos = _WS_RUN.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            if self.offset + self.pos - start > WS_CAP:
                raise _Broken(start, f"more than {WS_CAP:,} bytes of white space: not a chat "
                                     "export's JSON")
            if self.pos < len(self.buf):
                return True
            self.anchor = self.pos
            if not self.more():
                return False

    def _grown(self) -> None:
        if self.pos - self.anchor > ELEMENT_CAP:
            self.skipping = True

    def value_end(self) -> int:
        """Move past the JSON value at ``pos``; its end. Raises _Truncated at the stream's end,
        _Broken where it cannot be JSON. Each byte is scanned once, strings included, so a
        value held is at most ``ELEMENT_CAP`` and a value skipped costs no memory."""
        first = self.buf[self.pos]
        if first == 0x22:
            self.pos += 1
            self._string_rest()
            return self.pos
        if first not in b"[{":
            return self._scalar_end()
        depth = 0
        while True:
            self._grown()
            buf = self.buf
            # past everything up to the next bracket, whole strings included, in one match
            self.pos = _BETWEEN.match(buf, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(buf) and buf[self.pos] != 0x22:
                depth += 1 if buf[self.pos] in b"[{" else -1
                self.pos += 1
                if depth == 0:
                    return self.pos
                continue
            if self.pos < len(buf):  # a string the buffer cuts: through it, reading on
                self.pos += 1
                self._string_rest()
                continue
            if not self.more():
                raise _Truncated

    def _string_rest(self) -> None:
        """Move past the closing quote of the string ``pos`` is inside."""
        while True:
            self._grown()
            self.pos = _STRING_BODY.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.buf) and self.buf[self.pos] == 0x22:
                self.pos += 1
                return
            # at the buffer's end, or at a backslash that ends it: read on
            if not self.more():
                raise _Truncated

    def _scalar_end(self) -> int:
        """A number, true, false or null: never longer than ``SCALAR_CAP``."""
        while True:
            end = _SCALAR_END.search(self.buf, self.pos, self.pos + SCALAR_CAP + 1)
            if end is not None:
                self.pos = end.start()
                return self.pos
            if len(self.buf) - self.pos > SCALAR_CAP:
                raise _Broken(self.offset + self.pos, f"{SCALAR_CAP}+ bytes that are neither "
                                                      "a string nor a list nor an object: not "
                                                      "JSON")
            if not self.more():
                self.pos = len(self.buf)
                return self.pos


def elements(raw: Readable, name: str) -> Iterator[Element | Problem]:
    """The elements of the JSON list in ``raw``, each parsed alone; Problems where it breaks."""
    scan = _Scanner(raw, name)
    try:
        yield from _list(scan, name)
    except _Broken as broken:
        yield Problem(f"{name}, byte {broken.offset}", f"{broken.message}; what came before was "
                                                        "read, the rest cannot be")


def _list(scan: _Scanner, name: str) -> Iterator[Element | Problem]:
    problem = _open(scan, name)
    if problem is not None:
        yield problem
        return
    if scan.buf[scan.pos] == ord("{"):
        # one conversation alone (a single exported chat) is taken as a list of one
        yield from _one(scan, name, 0)
        if scan.skip_ws():
            yield Problem(f"{name}, byte {scan.offset + scan.pos}",
                          "more after the JSON object: not JSON")
        return
    scan.pos += 1
    if not scan.skip_ws():
        yield Problem(name, "ends right after its opening '[': the file is cut short")
        return
    index = 0
    after: Problem | bool = scan.buf[scan.pos] != ord("]") or _closed(scan, name)
    while after is True:
        if not (yield from _one(scan, name, index)):
            return
        after = _after(scan, name, index)
        index += 1
    if isinstance(after, Problem):
        yield after


def _open(scan: _Scanner, name: str) -> Problem | None:
    """Move to the list's (or the object's) first byte; the Problem if there is none."""
    while len(scan.buf) < 4 and scan.more():
        pass
    if scan.buf.startswith(b"\xef\xbb\xbf"):
        scan.pos = 3
    if scan.buf.startswith((b"\xff\xfe", b"\xfe\xff")):
        return Problem(name, "is UTF-16 text: an export is UTF-8 JSON (was it re-saved?)")
    if not scan.skip_ws():
        return Problem(name, "empty: no conversations")
    if scan.buf[scan.pos] not in b"[{":
        return Problem(f"{name}, byte {scan.offset + scan.pos}",
                       "not a JSON list of conversations: not a chat export's conversations.json")
    return None


def _after(scan: _Scanner, name: str, index: int) -> Problem | bool:
    """Past the ',' after conversation ``index``: True; at the list's end: False; or what is
    wrong there."""
    if not scan.skip_ws():
        return Problem(name, f"ends after conversation {index} without closing the list: the "
                             "file is cut short; the conversations before were read")
    mark = scan.buf[scan.pos]
    if mark == ord("]"):
        return _closed(scan, name)
    if mark != ord(","):
        return Problem(f"{name}, byte {scan.offset + scan.pos}",
                       f"not JSON after conversation {index} (expected ',' or ']'); the "
                       "conversations before were read, the rest cannot be")
    scan.pos += 1
    if not scan.skip_ws():
        return Problem(name, f"ends after conversation {index}: the file is cut short")
    return True


def _closed(scan: _Scanner, name: str) -> Problem | bool:
    """At the list's ']': False, or the Problem of what follows it."""
    scan.pos += 1
    if scan.skip_ws():
        return Problem(f"{name}, byte {scan.offset + scan.pos}", "more after the list's end: "
                                                                 "not JSON")
    return False


def _one(scan: _Scanner, name: str, index: int) -> Generator[Element | Problem, None, bool]:
    """Cut out and parse the element at the scanner; return False when the list cannot go on."""
    scan.anchor = scan.pos
    start_offset = scan.offset + scan.pos
    try:
        end = scan.value_end()
    except _Truncated:
        yield Problem(f"{name}, conversation {index} (byte {start_offset})",
                      "the file ends inside this conversation: cut short; the conversations "
                      "before it were read")
        return False
    if scan.skipping:
        scan.skipping = False
        scan.anchor = end
        yield Problem(f"{name}, conversation {index} (byte {start_offset})",
                      f"larger than {ELEMENT_CAP:,} bytes: skipped")
        return True
    raw = bytes(scan.buf[scan.anchor:end])
    scan.anchor = end
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        value = _fallback(raw)
        if value is None:
            yield Problem(f"{name}, conversation {index} (byte {start_offset})",
                          f"not valid JSON or not UTF-8 ({error}): skipped")
            return True
    yield Element(name, index, value)
    return True


def _fallback(raw: bytes) -> Any:
    """The stdlib's reading of what orjson refused: it takes lone surrogate escapes, which
    browsers' JSON.stringify writes for a cut emoji (the texts are cleaned by
    ``exports.clean_text``)."""
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
