"""Bringing the index up to date with the log: read on after appends, start over after rewrites.

``catch_up`` reads only the bytes appended since the last call. It tells an append from anything
else by a fingerprint stored with the position: the log's device and inode (a rewrite renames a
new file in), its size (a truncation), and hashes of its first and last indexed bytes (an edit in
place): ``index/log_fingerprint.py``. Anything but an append makes it index the log again from
the start.

Work is committed in batches, so a build interrupted by a crash resumes where it stopped, and
readers in this process are never locked out for longer than one batch. A large build from the
start drops the indexes that random inserts make slow (``database.DEFERRABLE_INDEXES``), the
ids' unique one among them, and knows its ids from memory until it makes them at its end;
it hands SQLite its rows a run at a time (``executemany``), not one call per entry.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from zettelclaw.index import counts, log_fingerprint, subject_counts
from zettelclaw.index.database import Index, drop_indexes, has_ids_index, make_indexes, new_epoch
from zettelclaw.index.entry_rows import Display, EntryValues, LineOf, flush, indexed_line, insert
from zettelclaw.log import hides
from zettelclaw.log.lines import Position, read_records
from zettelclaw.subjects.registry import title_case

logger = logging.getLogger(__name__)

BATCH = 20_000
DEFER_INDEXES_BYTES = 16 << 20  # a build from the start of a log larger than this (~60k
# entries) makes some indexes at its end (database.DEFERRABLE_INDEXES)
IDS_IN_MEMORY_BYTES = 1 << 30  # and the ids' too, up to a log of this size (~4M entries; their
# ids are held in memory meanwhile); a larger log's build keeps the ids' index
MAX_WARNINGS = 20

Progress = Callable[[int, int], None]  # (bytes done, bytes in all)


@dataclass
class CatchUpReport:
    entries: int = 0
    invalid: int = 0
    rebuilt: bool = False
    subjects: set[str] = field(default_factory=set)  # the subjects of the new entries


# An entry as the term index takes it: line, type, status, subject, session, ts, content,
# detail, subject display name, replaced
Row = tuple[int, str, str | None, str | None, str, float, str, str | None, str | None, bool]


class Ingester:
    def __init__(self, index: Index, log_path: Path,
                 names: Callable[[], Display] = lambda: title_case) -> None:
        self.index = index
        self.log_path = log_path
        # the subjects' display names as they are now (searched with the entries' words), asked
        # once per batch: a stat of subjects.json per subject per batch was a visible share of a
        # large build (bench/README.md#search-at-a-million-entries)
        self.names = names
        self._dropped = False  # the deferrable indexes, by a large build not finished yet
        self._ids: tuple[dict[str, int], int] | None = None  # its ids, and the offset they reach
        # a build from the start: the ids hidden at its end (log/hides.py), left out as read
        self._skip: set[str] | None = None
        self._recount = False  # rows were deleted (entries hidden): counts made again

    def catch_up(self, progress: Progress | None = None) -> CatchUpReport:
        """Read what the log gained; from the start when an ``unforget`` record gives back an
        entry the index left out (its row is made again from its line)."""
        try:
            return self._catch_up(progress)
        except _ReadAgainError:
            logger.info("entries were given back (unforget); indexing the log again")
            self.reset()
            report = self._catch_up(progress)
            report.rebuilt = True
            return report

    def _catch_up(self, progress: Progress | None = None) -> CatchUpReport:
        report = CatchUpReport()
        try:
            fd = os.open(self.log_path, os.O_RDONLY)
        except FileNotFoundError:
            fd = None
        if fd is None:  # no log (yet): an empty index is the truth
            with self.index.write() as conn:
                if self.index.meta(conn).get("offset"):
                    _reset(conn)
                    report.rebuilt = True
            return report
        try:
            st = os.fstat(fd)
            end = st.st_size
            first = True
            while True:
                with self.index.write() as conn:
                    position = _position(self.index.meta(conn))
                    if first and log_fingerprint.rewritten(self.index.meta(conn), st, fd, position):
                        logger.info("log.jsonl was rewritten or edited; indexing it again")
                        _reset(conn)
                        position = Position()
                        report.rebuilt = True
                    ids = self._build_ids(conn, position)
                    self._begin(fd, end, position, first=first)
                    if first and position.offset == 0 and end > DEFER_INDEXES_BYTES:
                        in_memory = end <= IDS_IN_MEMORY_BYTES
                        drop_indexes(conn, ids=in_memory)  # made again, sorted, at the end
                        if in_memory:
                            ids = dict(conn.execute("SELECT id, line FROM entries"))  # (none)
                        self._dropped = True
                    first = False
                    tally = counts.Tally()
                    position, done = self._ingest(conn, fd, position, end, report, tally=tally,
                                                  ids=ids)
                    counts.add(conn, tally)
                    self._settle_hidden(conn)
                    if done and self._dropped:
                        make_indexes(conn)
                        self._dropped, ids = False, None
                    if not self._dropped:  # with the subject index there to look in
                        subject_counts.settle(conn)
                    Index.set_meta(conn, {
                        "dev": st.st_dev, "ino": st.st_ino, "offset": position.offset,
                        "lines": position.lines, "open_tail": int(position.open_tail),
                        **log_fingerprint.fingerprint(fd, position.offset),
                    })
                self._ids = (ids, position.offset) if ids is not None else None  # committed
                if progress is not None:
                    progress(position.offset, end)
                if done:
                    return report
        finally:
            os.close(fd)

    def _build_ids(self, conn: sqlite3.Connection, position: Position) -> dict[str, int] | None:
        """The ids (to their lines) of a large build that dropped the ids' index, or None when
        that index answers. Taken out, and given back only when the batch commits: a batch
        that failed leaves them behind, and so does another writer that came in between
        (the offset moved); then the indexes are made now, and the build goes on with them."""
        kept, self._ids = self._ids, None
        if kept is not None and kept[1] == position.offset:
            return kept[0]
        if self._dropped and not has_ids_index(conn):
            make_indexes(conn)
            self._dropped = False
        return None

    def _ingest(self, conn: sqlite3.Connection, fd: int, position: Position, end: int,
                report: CatchUpReport, *, tally: counts.Tally, ids: dict[str, int] | None
                ) -> tuple[Position, bool]:
        current = self.names()
        names: dict[str, str] = {}  # display names met in this batch, recorded once

        def display(slug: str) -> str:
            if slug in names:
                return names[slug]
            name = names[slug] = current(slug)
            conn.execute("INSERT OR IGNORE INTO subject_names VALUES (?, ?)", (slug, name))
            return name

        line_of: LineOf = ids.get if ids is not None else partial(indexed_line, conn)
        # a large build (ids known from memory) writes its rows in one call per run of them
        pending: list[EntryValues] | None = [] if ids is not None else None
        skip = self._skip
        for count, (line, after) in enumerate(read_records(fd, position, end), start=1):
            record = line.entry
            if record is not None and skip and record["id"] in skip:  # hidden at the end
                conn.execute("INSERT OR IGNORE INTO hidden VALUES (?, ?)",
                             (record["id"], line.number))
            elif record is not None:
                first = line_of(record["id"])
                if first is None:
                    insert(conn, line.number, record, display=display, tally=tally,
                           line_of=line_of, pending=pending)
                    if ids is not None:
                        ids[record["id"]] = line.number
                    report.entries += 1
                    if (subject := record.get("subject")) is not None:
                        report.subjects.add(subject)
                    if line.error is not None:  # torn bytes, then this entry (log/lines.py)
                        _record_invalid(conn, line.number, line.error, line.data)
                        report.invalid += 1
                        self._warn(report, line.number, line.error)
                else:  # the id is taken: the first one wins
                    reason = f"duplicate id {record['id']} (first at line {first})"
                    _record_invalid(conn, line.number, reason, line.data)
                    report.invalid += 1
                    self._warn(report, line.number, reason)
            elif line.error is not None:
                _record_invalid(conn, line.number, line.error, line.data)
                report.invalid += 1
                self._warn(report, line.number, line.error)
            elif skip is None and hides.looks_like(line.data):  # (a build applied them all)
                flush(conn, pending)
                self._hide_record(conn, hides.parse(line.data), line_of, ids)
                report.entries += 1  # the entries readers see changed
            position = after
            if count >= BATCH:
                flush(conn, pending)
                return position, False
        flush(conn, pending)
        return position, True

    def _begin(self, fd: int, end: int, position: Position, *, first: bool) -> None:
        """At a catch-up's first batch: a build from the start leaves out the entries hidden at
        its end (read once, by a byte search for the hide records)."""
        if first:
            self._skip = hides.final_hidden(fd, end) if position.offset == 0 else None

    def _settle_hidden(self, conn: sqlite3.Connection) -> None:
        """Rows deleted (entries hidden): counted again, as no tally or trigger followed them."""
        if self._recount:
            counts.store(conn, *counts.count(conn))
            subject_counts.recount(conn)
            self._recount = False

    def _hide_record(self, conn: sqlite3.Connection, record: hides.HideRecord, line_of: LineOf,
                     ids: dict[str, int] | None) -> None:
        """A ``forget`` record read on after an append: its entries' rows leave the index
        (the term index deletes their documents: ``terms_dirty``). An ``unforget`` of an entry
        left out: the log is read again from the start."""
        if not record.hides:
            hidden = conn.execute(
                f"SELECT 1 FROM hidden WHERE id IN ({','.join('?' * len(record.ids))})",  # noqa: S608
                record.ids).fetchone()
            if hidden is not None:
                raise _ReadAgainError
            return
        for entry_id in record.ids:
            number = line_of(entry_id)
            if number is None:
                continue
            conn.execute("DELETE FROM entries WHERE line = ?", (number,))
            conn.execute("INSERT OR IGNORE INTO hidden VALUES (?, ?)", (entry_id, number))
            conn.execute("INSERT INTO terms_dirty (line) VALUES (?)", (number,))
            if ids is not None:
                ids.pop(entry_id, None)
            self._recount = True

    def _warn(self, report: CatchUpReport, number: int, reason: str) -> None:
        if report.invalid <= MAX_WARNINGS:
            logger.warning("%s line %d skipped: %s", self.log_path.name, number, reason)
        elif report.invalid == MAX_WARNINGS + 1:
            logger.warning("%s: more invalid lines skipped; `zettelclaw status` counts them",
                           self.log_path.name)

    def adopt_rewrite(self, old_subject: str, new_subject: str,
                      new_offset: Callable[[int], int]) -> None:
        """After a subject rename rewrote the log (under the data lock, with the index caught
        up just before): carry the change into the index instead of indexing everything again.
        ``new_offset`` says where the index's position is in the new file (lines others
        appended meanwhile lie after it, and are read as new)."""
        st = os.stat(self.log_path)
        with self.index.write() as conn:
            meta = self.index.meta(conn)
            position = _position(meta)
            offset = new_offset(position.offset)
            _set_subject(conn, old_subject, new_subject, self.names()(new_subject))
            subject_counts.settle(conn)  # the renamed entries' newest (the index is caught up)
            fd = os.open(self.log_path, os.O_RDONLY)
            try:
                fingerprint = log_fingerprint.fingerprint(fd, offset)
            finally:
                os.close(fd)
            Index.set_meta(conn, {"dev": st.st_dev, "ino": st.st_ino, "offset": offset,
                                  **fingerprint})


    def reset(self) -> None:
        """Forget everything indexed from the log; the next catch_up reads it all again."""
        with self.index.write() as conn:
            _reset(conn)

    def refresh_subject_names(self) -> int:
        """Search under the current display names (subjects.json was edited); returns how many
        subjects changed."""
        with self.index.write() as conn:
            pairs = conn.execute("SELECT subject, name FROM subject_names").fetchall()
            display = self.names()
            stale = [(slug, now) for slug, name in pairs if (now := display(slug)) != name]
            for slug, name in stale:
                _set_subject(conn, slug, slug, name)
        return len(stale)


class _ReadAgainError(Exception):
    """An ``unforget`` gave back an entry whose row the index left out."""


def _set_subject(conn: sqlite3.Connection, old: str, new: str, name: str) -> None:
    """Give the entries of subject ``old`` the subject ``new`` named ``name`` (the term index
    takes the change at its next update)."""
    conn.execute("INSERT INTO terms_dirty (line) SELECT line FROM entries WHERE subject = ?",
                 (old,))
    conn.execute("UPDATE entries SET subject = ?, subject_name = ? WHERE subject = ?",
                 (new, name, old))
    conn.execute("DELETE FROM subject_names WHERE subject = ?", (old,))
    conn.execute("INSERT OR REPLACE INTO subject_names VALUES (?, ?)", (new, name))


def _position(meta: dict[str, object]) -> Position:
    return Position(int(str(meta.get("offset", 0))), int(str(meta.get("lines", 0))),
                    bool(int(str(meta.get("open_tail", 0)))))


def _reset(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM entries")
    conn.execute("DELETE FROM terms_dirty")
    conn.execute("DELETE FROM invalid_lines")
    conn.execute("DELETE FROM subject_names")
    conn.execute("DELETE FROM hidden")
    conn.execute("DELETE FROM meta WHERE key != 'schema_version'")
    Index.set_meta(conn, {"terms_epoch": new_epoch()})
    counts.store(conn, {}, 0)
    subject_counts.clear(conn)


def _record_invalid(conn: sqlite3.Connection, number: int, reason: str, data: bytes) -> None:
    excerpt = data[:200].decode("utf-8", "replace")
    conn.execute("INSERT OR REPLACE INTO invalid_lines VALUES (?, ?, ?)", (number, reason, excerpt))
