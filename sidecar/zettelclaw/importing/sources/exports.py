"""Opening a chat export (ChatGPT's or Claude's) and reading its conversations one at a time.

Both services export a zip holding ``conversations.json``: one JSON list of conversation
objects, which for years of use runs to gigabytes. It is never loaded whole: the list is read in
chunks from the file or, for a zip, from the member as it is decompressed (nothing is extracted
to disk), and cut into its elements by a scanner that follows strings and brackets; each element
(one conversation) is then parsed by itself with orjson. Memory is bounded by the largest
conversation (at most ``ELEMENT_CAP``; a larger one is skipped with a Problem), not by the file.

What may be given: the zip, the bare ``conversations.json`` (or a shard,
``conversations-000.json``), or the folder the zip was unpacked into. In a zip, only members
named ``conversations.json`` or ``conversations-NNN.json`` at the top or one folder down are
read; names with ``..``, absolute names and backslashes are ignored; a member larger than
``MEMBER_CAP`` (declared, or found while reading) is refused.

Bad input never stops the reading silently: each fault is a ``Problem`` naming the file and the
place (a conversation's index, a byte offset), and what can still be read is yielded before and
after it. A fault in the list itself (truncated, not JSON after some point) ends that file: a
JSON text cannot be resynchronised after a syntax error.
"""

from __future__ import annotations

import json
import re
import zipfile
import zlib
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import IO, Any, Literal

import orjson

from zettelclaw.importing import cancel
from zettelclaw.importing.items import Conversation, Item, Message, Problem
from zettelclaw.safe_open import regular_stream

CHUNK = 1 << 20
ELEMENT_CAP = 64 << 20  # one conversation: held whole, and its parse beside it
MEMBER_CAP = 16 << 30  # one zip member, decompressed: a bound on a zip bomb's work
SNIFF_BYTES = 256 << 10
WS_CAP = 1 << 20  # white space in a row between values: an export's indentation is far less
SCALAR_CAP = 256  # a number, true, false or null
PROGRESS_BYTES = 256 << 20  # a scan says how far it got each time it reads this much more
# a file whose first conversations are all unreadable is taken for another kind of file
FOREIGN_AFTER = 10
_MEMBER = re.compile(r"conversations(?:-\d+)?\.json")
_WS = b" \t\r\n"
_SCALAR_END = re.compile(rb"[,\]\s]")
_WS_RUN = re.compile(rb"[ \t\r\n]*+")
_STRING_BODY = re.compile(rb'(?:[^"\\]++|\\.)*+', re.DOTALL)  # a string's inside, escapes whole
# a run of anything but brackets, whole strings included (a string cut by the buffer's end is
# not: the run stops at its opening quote); possessive, so it never backtracks
_BETWEEN = re.compile(rb'(?:[^"\[\]{}]++|"(?:[^"\\]++|\\.)*+")*+', re.DOTALL)

Kind = Literal["chatgpt", "claude"]


@dataclass(frozen=True)
class Element:
    """One element of a conversations list, parsed: its file, its index, and the value."""

    file: str  # "conversations.json", or "export.zip:conversations.json"
    index: int
    value: Any

    @property
    def place(self) -> str:
        return f"{self.file}, conversation {self.index}"


def read_export(path: Path) -> Iterator[Element | Problem]:
    """Every conversation of the export at ``path`` (zip, json or unpacked folder), in order."""
    try:
        if path.is_dir():
            yield from _read_folder(path)
        elif _is_zip(path):
            yield from _read_zip(path)
        else:
            with regular_stream(path) as raw:
                yield from _elements(raw, path.name)
    except OSError as error:
        yield Problem(str(path), f"cannot be read: {error.strerror or error}")


def read_conversations(path: Path, service: str,
                       convert: Callable[[Element], Iterator[Item]]) -> Iterator[Item]:
    """``convert`` applied to every element of the export at ``path``; stops, with a Problem,
    when the first ``FOREIGN_AFTER`` elements gave no conversation (a foreign JSON list)."""
    unread, read = 0, False
    for got in read_export(path):
        items = [got] if isinstance(got, Problem) else list(convert(got))
        for item in items:
            read = read or isinstance(item, Conversation)
            unread += isinstance(item, Problem)
            yield item
        if not read and unread >= FOREIGN_AFTER:
            yield Problem(str(path), f"none of its first {unread} elements is a {service} "
                                     f"conversation: not a {service} export; stopped reading")
            return


def sniff(path: Path) -> Kind | None:
    """Which service's export ``path`` looks like, from the start of its conversations list."""
    try:
        head = _head(path)
    except (OSError, zipfile.BadZipFile, zlib.error, EOFError):
        return None
    if head is None or not head.lstrip(b"\xef\xbb\xbf" + _WS).startswith((b"[", b"{")):
        return None
    if b'"mapping"' in head and (b'"current_node"' in head or b'"create_time"' in head):
        return "chatgpt"
    if b'"chat_messages"' in head:
        return "claude"
    return None


def clean_text(text: str) -> str:
    """``text`` safe to write as UTF-8: lone surrogates (which JSON escapes can carry) replaced."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


def fill_times(messages: tuple[Message, ...], start: datetime | None) -> tuple[Message, ...]:
    """``messages`` with each missing time the time of the message before it (the
    conversation's ``start`` for the first): a conversation keeps the source's date even when
    some of its messages carry none."""
    filled = []
    last = start
    for message in messages:
        last = message.at or last
        filled.append(message if message.at is not None or last is None
                      else Message(message.role, message.text, last))
    return tuple(filled)


def from_epoch(value: object) -> datetime | None:
    """Seconds since the epoch (a JSON number) as an aware UTC datetime; None if not one."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return datetime.fromtimestamp(value, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def from_iso(value: object) -> datetime | None:
    """An ISO 8601 time (``Z`` or an offset; none means UTC) as an aware UTC datetime."""
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def _is_zip(path: Path) -> bool:
    if path.suffix.lower() == ".zip":
        return True
    with regular_stream(path) as raw:
        return raw.read(4) == b"PK\x03\x04"


def _safe_member(name: str) -> bool:
    if "\\" in name or name.startswith("/") or ":" in name:
        return False
    parts = PurePosixPath(name).parts
    return ".." not in parts and 1 <= len(parts) <= 2 and bool(_MEMBER.fullmatch(parts[-1]))


def _members(archive: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    return sorted((info for info in archive.infolist()
                   if not info.is_dir() and _safe_member(info.filename)),
                  key=lambda info: info.filename)


def _read_folder(path: Path) -> Iterator[Element | Problem]:
    files = sorted(child for child in path.iterdir()
                   if _MEMBER.fullmatch(child.name) and child.is_file())
    if not files:
        yield Problem(str(path), "no conversations.json in this folder: is it an unpacked export?")
    for file in files:
        try:
            with regular_stream(file) as raw:
                yield from _elements(raw, file.name)
        except OSError as error:
            yield Problem(str(file), f"cannot be read: {error.strerror or error}")


def _read_zip(path: Path) -> Iterator[Element | Problem]:
    with regular_stream(path) as stream:
        try:
            archive = zipfile.ZipFile(stream)
        except zipfile.BadZipFile as error:
            yield Problem(str(path), f"not a readable zip ({error}): a download cut short? "
                                     "Download the export again, or give its "
                                     "conversations.json")
            return
        with archive:
            yield from _zip_members(path, archive)


def _zip_members(path: Path, archive: zipfile.ZipFile) -> Iterator[Element | Problem]:
    members = _members(archive)
    if not members:
        yield Problem(str(path), "no conversations.json in the zip: not a chat export")
    for info in members:
        name = f"{path.name}:{info.filename}"
        if info.flag_bits & 0x1:
            yield Problem(name, "encrypted: cannot be read")
            continue
        if info.file_size > MEMBER_CAP:
            yield Problem(name, f"{info.file_size:,} bytes once unpacked: more than the "
                                f"{MEMBER_CAP:,} read from one member")
            continue
        try:
            with archive.open(info) as raw:
                yield from _elements(_Capped(raw, MEMBER_CAP), name)
        except (zipfile.BadZipFile, zlib.error, EOFError, _TooLarge) as error:
            yield Problem(name, f"the zip is damaged inside this member ({error}); the "
                                "conversations before this point were read")


def _head(path: Path) -> bytes | None:
    if path.is_dir():
        files = sorted(c for c in path.iterdir() if _MEMBER.fullmatch(c.name) and c.is_file())
        if not files:
            return None
        with regular_stream(files[0]) as raw:
            return raw.read(SNIFF_BYTES)
    if _is_zip(path):
        with regular_stream(path) as stream, zipfile.ZipFile(stream) as archive:
            members = _members(archive)
            if not members:
                return None
            with archive.open(members[0]) as raw:
                return raw.read(SNIFF_BYTES)
    with regular_stream(path) as raw:
        return raw.read(SNIFF_BYTES)


class _TooLarge(Exception):
    pass


class _Capped:
    """A binary stream that refuses to give more than ``cap`` bytes (a lying zip header)."""

    def __init__(self, raw: IO[bytes], cap: int) -> None:
        self._raw, self._left = raw, cap

    def read(self, size: int) -> bytes:
        data = self._raw.read(size)
        self._left -= len(data)
        if self._left < 0:
            raise _TooLarge(f"more than {MEMBER_CAP:,} bytes once unpacked")
        return data


class _Truncated(Exception):
    pass


class _Broken(Exception):
    """What cannot be a chat export from this byte on: the file's reading ends there."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset, self.message = offset, message


class _Scanner:
    """A window on a byte stream: ``buf`` holds from ``anchor`` (the value being cut out) on."""

    def __init__(self, raw: IO[bytes] | _Capped, name: str = "") -> None:
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


def _elements(raw: IO[bytes] | _Capped, name: str) -> Iterator[Element | Problem]:
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
    browsers' JSON.stringify writes for a cut emoji (the texts are cleaned by ``clean_text``)."""
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
