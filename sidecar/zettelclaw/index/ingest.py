"""Bringing the index up to date with the log: read on after appends, start over after rewrites.

``catch_up`` reads only the bytes appended since the last call. It tells an append from anything
else by a fingerprint stored with the position: the log's device and inode (a rewrite renames a
new file in), its size (a truncation), and hashes of its first and last indexed bytes (an edit in
place). Anything but an append makes it index the log again from the start.

Work is committed in batches, so a build interrupted by a crash resumes where it stopped, and
readers in this process are never locked out for longer than one batch.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from zettelclaw.index import counts
from zettelclaw.index.database import Index, drop_indexes, make_indexes, new_epoch, text_hash
from zettelclaw.log.lines import Line, Position, read_lines
from zettelclaw.log.resolve import effective_target
from zettelclaw.log.schema import TaskEntry, parse_timestamp
from zettelclaw.subjects.registry import title_case

logger = logging.getLogger(__name__)

BATCH = 20_000
DEFER_INDEXES_BYTES = 16 << 20  # a build from the start of a log larger than this (~60k
# entries) makes some indexes at its end (database.DEFERRABLE_INDEXES)
FINGERPRINT_BYTES = 4096
MAX_WARNINGS = 20

Progress = Callable[[int, int], None]  # (bytes done, bytes in all)


@dataclass(frozen=True)
class LogStat:
    dev: int
    ino: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, path: Path) -> LogStat | None:
        try:
            st = os.stat(path)
        except FileNotFoundError:
            return None
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


@dataclass
class CatchUpReport:
    entries: int = 0
    invalid: int = 0
    rebuilt: bool = False
    subjects: set[str] = field(default_factory=set)  # the subjects of the new entries


Display = Callable[[str], str]  # a subject slug -> its display name
# An entry as the term index takes it: line, type, status, subject, session, ts, content,
# detail, subject display name, replaced
Row = tuple[int, str, str | None, str | None, str, float, str, str | None, str | None, bool]


class Ingester:
    def __init__(self, index: Index, log_path: Path, display: Display = title_case) -> None:
        self.index = index
        self.log_path = log_path
        self.display = display  # searched with the entry's text (BM25's third column)
        self._dropped = False  # the deferrable indexes, by a large build not finished yet

    def catch_up(self, progress: Progress | None = None) -> CatchUpReport:
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
                    if first and _rewritten(self.index.meta(conn), st, fd, position):
                        logger.info("log.jsonl was rewritten or edited; indexing it again")
                        _reset(conn)
                        position = Position()
                        report.rebuilt = True
                    if first and position.offset == 0 and end > DEFER_INDEXES_BYTES:
                        drop_indexes(conn)  # made again, sorted, at the end
                        self._dropped = True
                    first = False
                    tally = counts.Tally()
                    position, done = self._ingest(conn, fd, position, end, report, tally=tally)
                    counts.add(conn, tally)
                    if done and self._dropped:  # (a build that failed midway: at the next
                        make_indexes(conn)        # catch-up that reaches the end)
                        self._dropped = False
                    Index.set_meta(conn, {
                        "dev": st.st_dev, "ino": st.st_ino, "offset": position.offset,
                        "lines": position.lines, "open_tail": int(position.open_tail),
                        **_fingerprint(fd, position.offset),
                    })
                if progress is not None:
                    progress(position.offset, end)
                if done:
                    return report
        finally:
            os.close(fd)

    def _ingest(self, conn: sqlite3.Connection, fd: int, position: Position, end: int,
                report: CatchUpReport, *, tally: counts.Tally) -> tuple[Position, bool]:
        names: dict[str, str] = {}  # display names met in this batch: a subject's name is looked
        # up (a stat of subjects.json) and recorded once per batch, not once per entry

        def display(slug: str) -> str:
            if slug in names:
                return names[slug]
            name = names[slug] = self.display(slug)
            conn.execute("INSERT OR IGNORE INTO subject_names VALUES (?, ?)", (slug, name))
            return name

        for count, (line, after) in enumerate(read_lines(fd, position, end), start=1):
            if line.entry is not None:
                if _insert(conn, line, display, tally):
                    report.entries += 1
                    if line.entry.subject is not None:
                        report.subjects.add(line.entry.subject)
                else:
                    report.invalid += 1
                    self._warn(report, line.number, _duplicate_reason(conn, line))
            elif line.error is not None:
                _record_invalid(conn, line.number, line.error, line.data)
                report.invalid += 1
                self._warn(report, line.number, line.error)
            position = after
            if count >= BATCH:
                return position, False
        return position, True

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
            _set_subject(conn, old_subject, new_subject, self.display(new_subject))
            fd = os.open(self.log_path, os.O_RDONLY)
            try:
                fingerprint = _fingerprint(fd, offset)
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
            stale = [(slug, self.display(slug)) for slug, name in pairs
                     if self.display(slug) != name]
            for slug, name in stale:
                _set_subject(conn, slug, slug, name)
        return len(stale)


def _set_subject(conn: sqlite3.Connection, old: str, new: str, name: str) -> None:
    """Give the entries of subject ``old`` the subject ``new`` named ``name`` (the term index
    takes the change at its next update)."""
    conn.execute("INSERT INTO terms_dirty (line) SELECT line FROM entries WHERE subject = ?",
                 (old,))
    conn.execute("UPDATE entries SET subject = ?, subject_name = ? WHERE subject = ?",
                 (new, name, old))
    conn.execute("DELETE FROM subject_names WHERE subject = ?", (old,))
    conn.execute("INSERT OR REPLACE INTO subject_names VALUES (?, ?)", (new, name))


def entry_text(content: str, detail: str | None) -> str:
    """What an entry's embedding is made from."""
    return content if not detail else f"{content}\n{detail}"


def entry_text_hash(content: str, detail: str | None) -> str:
    return text_hash(entry_text(content, detail))


def _position(meta: dict[str, object]) -> Position:
    return Position(int(str(meta.get("offset", 0))), int(str(meta.get("lines", 0))),
                    bool(int(str(meta.get("open_tail", 0)))))


def _fingerprint(fd: int, offset: int) -> dict[str, object]:
    head = os.pread(fd, min(FINGERPRINT_BYTES, offset), 0)
    tail_len = min(FINGERPRINT_BYTES, offset)
    tail = os.pread(fd, tail_len, offset - tail_len)
    return {"head_hash": hashlib.blake2b(head, digest_size=16).hexdigest(),
            "tail_hash": hashlib.blake2b(tail, digest_size=16).hexdigest()}


def _rewritten(meta: dict[str, object], st: os.stat_result, fd: int, position: Position) -> bool:
    if "ino" not in meta:
        return False  # a new index: nothing to compare
    if (meta.get("dev"), meta.get("ino")) != (st.st_dev, st.st_ino):
        return True
    if st.st_size < position.offset:
        return True
    if (position.open_tail and st.st_size > position.offset
            and os.pread(fd, 1, position.offset) != b"\n"):
        return True  # read_lines would raise LineContinuedError: it is another line now
    fingerprint = _fingerprint(fd, position.offset)
    return any(meta.get(key) != value for key, value in fingerprint.items())


def _reset(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM entries")
    conn.execute("DELETE FROM terms_dirty")
    conn.execute("DELETE FROM invalid_lines")
    conn.execute("DELETE FROM subject_names")
    conn.execute("DELETE FROM meta WHERE key != 'schema_version'")
    Index.set_meta(conn, {"terms_epoch": new_epoch()})
    counts.store(conn, {}, 0)


def _insert(conn: sqlite3.Connection, line: Line, display: Display, tally: counts.Tally) -> bool:
    """Index one valid entry; False when its id is already taken (the first one wins)."""
    entry = line.entry
    assert entry is not None
    def seen(entry_id: str) -> bool:
        row = conn.execute("SELECT 1 FROM entries WHERE id = ?", (entry_id,)).fetchone()
        return row is not None

    target = effective_target(entry.id, entry.replaces, seen)
    # only tasks have a status (a pydantic getattr that misses costs microseconds)
    status = entry.status if isinstance(entry, TaskEntry) else None
    name = display(entry.subject) if entry.subject else None
    ts = parse_timestamp(entry.timestamp).timestamp()
    inserted = conn.execute(
        "INSERT OR IGNORE INTO entries (line, id, type, status, subject, session, timestamp, ts,"
        " content, detail, replaces, supersedes, subject_name, text_hash)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (line.number, entry.id, entry.type, status, entry.subject, entry.session,
         entry.timestamp, ts, entry.content, entry.detail, entry.replaces, target, name,
         entry_text_hash(entry.content, entry.detail)),
    )
    if not inserted.rowcount:  # the id is taken (the first one wins)
        return False
    tally.by_type[entry.type] += 1
    if target is not None:
        first = conn.execute("UPDATE entries SET replaced_by = ? WHERE id = ?"
                             " AND replaced_by IS NULL", (entry.id, target)).rowcount
        if first:
            tally.replaced += 1
        else:  # replaced before: the newest replacement wins
            conn.execute("UPDATE entries SET replaced_by = ? WHERE id = ?", (entry.id, target))
        conn.execute("INSERT INTO terms_dirty (line) SELECT line FROM entries WHERE id = ?",
                     (target,))
    return True


def _duplicate_reason(conn: sqlite3.Connection, line: Line) -> str:
    assert line.entry is not None
    first = conn.execute("SELECT line FROM entries WHERE id = ?", (line.entry.id,)).fetchone()
    reason = f"duplicate id {line.entry.id} (first at line {first[0]})"
    _record_invalid(conn, line.number, reason, line.data)
    return reason


def _record_invalid(conn: sqlite3.Connection, number: int, reason: str, data: bytes) -> None:
    excerpt = data[:200].decode("utf-8", "replace")
    conn.execute("INSERT OR REPLACE INTO invalid_lines VALUES (?, ?, ?)", (number, reason, excerpt))
