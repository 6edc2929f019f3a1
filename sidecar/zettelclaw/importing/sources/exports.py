"""Opening a chat export (ChatGPT's or Claude's) and reading its conversations one at a time.

Both services export a zip holding ``conversations.json``: one JSON list of conversation
objects, which for years of use runs to gigabytes. It is never loaded whole: the list is read in
chunks from the file or, for a zip, from the member as it is decompressed (nothing is extracted
to disk), and cut into its elements, each parsed alone (``json_list.py``). Memory is bounded by
the largest conversation (at most ``json_list.ELEMENT_CAP``), not by the file.

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

import re
import zipfile
import zlib
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import IO, Literal

from zettelclaw.importing.items import Conversation, Item, Message, Problem
from zettelclaw.importing.sources import json_list
from zettelclaw.importing.sources.json_list import Element
from zettelclaw.safe_open import regular_stream

# what read_export yields, named with it
__all__ = ["Element", "Kind", "clean_text", "fill_times", "from_epoch", "from_iso",
           "read_conversations", "read_export", "sniff"]

MEMBER_CAP = 16 << 30  # one zip member, decompressed: a bound on a zip bomb's work
SNIFF_BYTES = 256 << 10
# a file whose first conversations are all unreadable is taken for another kind of file
FOREIGN_AFTER = 10
_MEMBER = re.compile(r"conversations(?:-\d+)?\.json")
_WS = b" \t\r\n"

Kind = Literal["chatgpt", "claude"]


def read_export(path: Path) -> Iterator[Element | Problem]:
    """Every conversation of the export at ``path`` (zip, json or unpacked folder), in order."""
    try:
        if path.is_dir():
            yield from _read_folder(path)
        elif _is_zip(path):
            yield from _read_zip(path)
        else:
            with regular_stream(path) as raw:
                yield from json_list.elements(raw, path.name)
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
                yield from json_list.elements(raw, file.name)
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
                yield from json_list.elements(_Capped(raw, MEMBER_CAP), name)
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
