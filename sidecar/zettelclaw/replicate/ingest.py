"""The engine-neutral core of replication: other machines' lines in, this machine's lines out.

The log is a grow-only set of lines keyed by id (entries, and the hide records of
``log/hides.py``), so merging two machines' logs is a union by id. An engine (git: ``git_sync``;
Postgres) moves lines between machines; this module is all it needs of the log:

- ``Replica.machine_id``: this data directory's id (``machine.py``);
- ``Replica.take_foreign(lines)``: other machines' lines appended to the local log, under the
  data lock, as whole fsynced lines, each id at most once;
- ``Replica.own_lines_since(cursor)``: the lines this machine must publish (the ones it did not
  receive from elsewhere), from a cursor the engine saves (``save_cursor``) once they are
  published. Publishing must be insert-if-absent by id: after a crash between publishing and
  saving the cursor, or after the log was rewritten (a purge, a subject rename), lines already
  published come again.

Crash safety (kill -9 anywhere; tests/replicate/test_replicate_ingest.py): a received line's id is
written to ``HOME/replicate/received`` (fsynced) before the line reaches the log, so a line in the
log is never mistaken for this machine's own and published again under its id; a kill between the
two leaves an id in ``received`` and not in the log, and the next ``take_foreign`` of the same line
appends it (it dedups by the log, not by ``received``). A batch torn by a kill leaves its whole
lines (skipped next time: they are in the log) and one torn line (reported as invalid, as any torn
line of the log).

Ids purged here (``add_purged``) are never taken again: a machine that was offline during the
purge cannot bring them back.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from zettelclaw import failpoints, lock
from zettelclaw.files import atomic_write_json, read_json_object
from zettelclaw.home import Home
from zettelclaw.log import hides
from zettelclaw.log.lines import (
    START,
    LineContinuedError,
    Position,
    entry_start,
    parse_record_line,
    read_records,
)
from zettelclaw.log.store import LogStore
from zettelclaw.replicate import machine
from zettelclaw.replicate.ids import IdFile


@dataclass(frozen=True, slots=True)
class ForeignLine:
    """A line of another machine's: ``seq`` is its place in that machine's own order (its line
    number in its file of the sync repository, a serial in a database)."""

    machine: str
    seq: int
    data: bytes  # without the newline


@dataclass
class Taken:
    appended: int = 0
    known: int = 0  # already in the log, or twice in the batch
    purged: int = 0  # purged here: refused
    invalid: int = 0  # neither an entry nor a hide record
    own: int = 0  # this machine's own lines, handed back by the engine: never appended twice


@dataclass(frozen=True, slots=True)
class OwnLine:
    id: str
    data: bytes  # without the newline


@dataclass(frozen=True)
class Cursor:
    """Where the last publish stopped: the log file (its inode: a rewrite that renames a new
    file over it makes a new one) and a position in it, with the last entry or hide record read
    before it (``anchor``: its id and where its line began). A rewrite in place (a purge, a
    subject rename: ``subjects/rename.py``) keeps the inode and moves lines: the anchor is then
    not where it was, and the scan starts again from the top rather than from a place that now
    lies inside other lines (lines moved before it would never be published)."""

    inode: int = 0
    offset: int = 0
    lines: int = 0
    open_tail: bool = False
    anchor_id: str = ""
    anchor_offset: int = -1


@dataclass(frozen=True)
class OwnLines:
    lines: list[OwnLine]
    cursor: Cursor
    #: the log was rewritten since the cursor: ``lines`` are all of this machine's again
    rescanned: bool = False


@dataclass(frozen=True, slots=True)
class Parsed:
    id: str
    replaces: str | None


def parse(data: bytes) -> Parsed | None:
    """A line's id (and the id it replaces), or None when it is neither an entry nor a hide
    record (a line of the log's own rules: ``log/lines.py``)."""
    if hides.looks_like(data):
        try:
            return Parsed(hides.parse(data).id, None)
        except ValueError:
            return None
    line = parse_record_line(0, 0, data)
    if line.entry is None or line.error is not None:
        return None
    return Parsed(line.entry["id"], line.entry.get("replaces"))


@dataclass
class _Known:
    """The ids in the log, read incrementally (``inode`` and ``position`` say how far)."""

    inode: int = -1
    position: Position = START
    ids: set[str] = field(default_factory=set)


class Replica:
    def __init__(self, home: Home) -> None:
        self.home = home
        self.store = LogStore(home)
        self.received = IdFile(machine.directory(home) / "received")
        self.purged = IdFile(machine.directory(home) / "purged")
        self._known = _Known()
        self._known_guard = threading.Lock()

    @property
    def machine_id(self) -> str:
        return machine.machine_id(self.home)

    # -- in ---------------------------------------------------------------------------------

    def take_foreign(self, lines: Iterable[ForeignLine]) -> Taken:
        """Append other machines' lines to the log, skipping ids it already holds.

        Order: by source machine id, then by the line's place in that machine's order; a line
        whose ``replaces`` names an entry later in the same batch is moved just after that
        entry. Both keys come from the lines, not from when or by which engine they arrived,
        so every machine appends the same batch in the same order, and a replacement never
        lands before the entry it replaces (where it would replace nothing: log/resolve.py).
        """
        with lock.exclusive(self.home.lock):
            return self.take_foreign_locked(lines)

    def take_foreign_locked(self, lines: Iterable[ForeignLine]) -> Taken:
        taken = Taken()
        mine = self.machine_id
        known = self.known_ids()
        purged = self.purged.ids()
        chosen: list[tuple[ForeignLine, Parsed]] = []
        batch_ids: set[str] = set()
        for line in sorted(lines, key=lambda f: (f.machine, f.seq)):
            if line.machine == mine:
                taken.own += 1
                continue
            parsed = parse(line.data) if b"\n" not in line.data else None
            if parsed is None:
                taken.invalid += 1
            elif parsed.id in purged:
                taken.purged += 1
            elif parsed.id in known or parsed.id in batch_ids:
                taken.known += 1
            else:
                batch_ids.add(parsed.id)
                chosen.append((line, parsed))
        ordered = list(_replacements_after_targets(chosen))
        if not ordered:
            return taken
        self.received.add(parsed.id for _, parsed in ordered)
        failpoints.reach("take-after-received")
        self.store.append_lines_locked(b"".join(line.data + b"\n" for line, _ in ordered))
        failpoints.reach("take-after-append")
        taken.appended = len(ordered)
        with self._known_guard:
            self._known.ids.update(batch_ids)
        return taken

    def known_ids(self) -> set[str]:
        """The ids of the log's entries and hide records (a copy)."""
        with self._known_guard:
            known = self._known
            fd = os.open(self.home.log, os.O_RDONLY)
            try:
                st = os.fstat(fd)
                if st.st_ino != known.inode or st.st_size < known.position.offset:
                    known = self._known = _Known(inode=st.st_ino)
                try:
                    self._read_ids(fd, st.st_size, known)
                except LineContinuedError:
                    known = self._known = _Known(inode=st.st_ino)
                    self._read_ids(fd, st.st_size, known)
            finally:
                os.close(fd)
            return set(known.ids)

    @staticmethod
    def _read_ids(fd: int, end: int, known: _Known) -> None:
        for line, position in read_records(fd, known.position, end):
            if line.entry is not None:
                known.ids.add(line.entry["id"])
            elif line.error is None and hides.looks_like(line.data):
                known.ids.add(hides.parse(line.data).id)
            known.position = position

    # -- out --------------------------------------------------------------------------------

    def own_lines_since(self, cursor: Cursor | None = None, limit: int | None = None
                        ) -> OwnLines:
        """This machine's lines after ``cursor`` (None: from the start), at most ``limit``.

        Own means not received from another machine (``received``); lines that are not
        entries or hide records are never published; an id written twice is published once.
        When the log was rewritten since the cursor (another inode, or shorter), the scan starts
        again from the top and ``rescanned`` says so."""
        cursor = cursor or Cursor()
        received = self.received.ids()
        fd = os.open(self.home.log, os.O_RDONLY)
        try:
            st = os.fstat(fd)
            rescanned = (cursor.inode not in (0, st.st_ino) or cursor.offset > st.st_size
                         or not _anchored(fd, cursor))
            start = START if rescanned else Position(cursor.offset, cursor.lines,
                                                     cursor.open_tail)
            anchor = (cursor.anchor_id, cursor.anchor_offset) if not rescanned else ("", -1)
            try:
                found, end, anchor = self._own(fd, start, st.st_size, received, limit,
                                                   anchor=anchor)
            except LineContinuedError:
                rescanned = True
                found, end, anchor = self._own(fd, START, st.st_size, received, limit,
                                               anchor=("", -1))
        finally:
            os.close(fd)
        return OwnLines(found, Cursor(st.st_ino, end.offset, end.lines, end.open_tail, *anchor),
                        rescanned)

    @staticmethod
    def _own(fd: int, start: Position, end: int, received: frozenset[str], limit: int | None,
             *, anchor: tuple[str, int]
             ) -> tuple[list[OwnLine], Position, tuple[str, int]]:
        found: list[OwnLine] = []
        seen: set[str] = set()
        position = start
        for line, after in read_records(fd, start, end):
            if limit is not None and len(found) >= limit:
                break
            position = after
            if line.entry is not None:
                entry_id = line.entry["id"]
                data = line.data if line.error is None else line.data[entry_start(line.data):]
            elif line.error is None and hides.looks_like(line.data):
                entry_id, data = hides.parse(line.data).id, line.data.strip()
            else:
                continue
            anchor = (entry_id, line.offset)
            if entry_id in received or entry_id in seen:
                continue
            seen.add(entry_id)
            found.append(OwnLine(entry_id, data))
        return found, position, anchor

    def load_cursor(self, engine: str) -> Cursor:
        """The cursor ``engine`` saved, or the start."""
        value = read_json_object(self._cursor_path(engine))
        if value is None:
            return Cursor()
        return Cursor(int(value["inode"]), int(value["offset"]), int(value["lines"]),
                      bool(value["open_tail"]), str(value.get("anchor_id", "")),
                      int(value.get("anchor_offset", -1)))

    def save_cursor(self, engine: str, cursor: Cursor) -> None:
        """Durably: call it once what ``own_lines_since`` gave is published."""
        atomic_write_json(self._cursor_path(engine), asdict(cursor))

    def _cursor_path(self, engine: str) -> Path:
        if not engine.isidentifier():
            raise ValueError(f"not an engine name: {engine!r}")
        return machine.directory(self.home) / f"cursor.{engine}.json"

    # -- purges -----------------------------------------------------------------------------

    def add_purged(self, ids: Iterable[str]) -> None:
        """Remember ``ids`` as purged here (under the data lock): never taken again."""
        self.purged.add(sorted(set(ids) - self.purged.ids()))


def record_purged_locked(home: Home, ids: Iterable[str]) -> None:
    """Remember ``ids`` as purged (the caller holds the data lock): ``take_foreign`` refuses
    them from then on, and a sync publishes the purge to the other machines."""
    Replica(home).add_purged(ids)


def _replacements_after_targets(chosen: list[tuple[ForeignLine, Parsed]]
                                ) -> Iterator[tuple[ForeignLine, Parsed]]:
    """``chosen`` in its order, except that a line replacing an entry that comes later in it
    waits until just after that entry (a cycle of such lines goes last, in its order)."""
    later = {parsed.id for _, parsed in chosen}
    waiting: dict[str, list[tuple[ForeignLine, Parsed]]] = {}
    emitted: set[str] = set()

    def emit(item: tuple[ForeignLine, Parsed]) -> Iterator[tuple[ForeignLine, Parsed]]:
        stack = [item]
        while stack:
            current = stack.pop()
            if current[1].id in emitted:
                continue
            emitted.add(current[1].id)
            yield current
            stack.extend(reversed(waiting.pop(current[1].id, [])))

    for item in chosen:
        target = item[1].replaces
        if target is not None and target in later and target not in emitted \
                and target != item[1].id:
            waiting.setdefault(target, []).append(item)
            continue
        yield from emit(item)
    for item in chosen:  # a cycle: its lines wait on each other; they go last, in order
        if item[1].id not in emitted:
            yield from emit(item)


ANCHOR_READ = 1 << 20  # bytes of the anchor's line read to check it: an entry's line is shorter


def _anchored(fd: int, cursor: Cursor) -> bool:
    """Whether the cursor's anchor (its last entry or hide record) still begins where it did:
    if not, the log was rewritten in place since and the cursor's offset means nothing now."""
    if not cursor.anchor_id or cursor.anchor_offset < 0:
        return True  # nothing read before it (or a cursor saved before anchors): nothing moved
    if cursor.anchor_offset >= cursor.offset:
        return False
    data = os.pread(fd, min(cursor.offset - cursor.anchor_offset, ANCHOR_READ),
                    cursor.anchor_offset)
    line = data.split(b"\n", 1)[0]
    if cursor.anchor_offset > 0 and os.pread(fd, 1, cursor.anchor_offset - 1) != b"\n":
        return False  # not the start of a line any more
    parsed = parse(line)
    return parsed is not None and parsed.id == cursor.anchor_id
