"""Reading OpenClaw's own session store (``<state>/agents/<agent>/agent/openclaw-agent.sqlite``,
OpenClaw 2026.9), read-only, for the import of sessions that ended before Zettelclaw was
installed (``importing/sources/openclaw_sessions.py``).

It is here because SQL lives in ``index/`` only (tests/repo/test_architecture.py); it knows nothing
of Zettelclaw's index. The database is opened read-only (``mode=ro``), so a running gateway's
writes are never disturbed; its tables, as OpenClaw creates them: ``session_windows`` (one row
per session id, with its key and times), ``session_nodes`` (a key's entry and current session)
and ``transcript_events`` (each event's JSON, or zstd-compressed bytes, by session and seq),
and ``session_transcript_cold_archives`` (a session's events moved to cold storage).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class StoredSession:
    session_id: str
    session_key: str
    created_at: int  # epoch ms
    updated_at: int
    channel: str | None  # telegram, whatsapp, ... (None: the gateway's own chat)


@dataclass(frozen=True)
class StoredEvent:
    seq: int
    json: str | None  # None: stored compressed (OpenClaw zstd-compresses events of 1 KiB
    compressed: bytes | None  # and more when its Node has zstd): these bytes,
    size: int | None  # this many bytes of UTF-8 once decompressed


@dataclass(frozen=True)
class ColdArchive:
    """A session's events moved to OpenClaw's cold storage (``session.maintenance.coldStorage``,
    opt-in): zstd-compressed JSONL, in ``blob`` or in the file ``name`` of the agent's
    ``sessions/cold/`` folder; the events after ``last_seq`` are in ``transcript_events``."""

    name: str
    blob: bytes | None  # None: stored as a file
    last_seq: int


class StoreError(Exception):
    """The file is not an OpenClaw session store this reader knows."""


def _connect(path: Path) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        conn.execute("SELECT 1 FROM session_windows LIMIT 1").fetchall()
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path} is not an OpenClaw session store ({exc})") from None
    return conn


def sessions(path: Path) -> list[StoredSession]:
    """Every session window, oldest first."""
    conn = _connect(path)
    try:
        rows = conn.execute(
            "SELECT session_id, session_key, created_at, updated_at, channel"
            " FROM session_windows ORDER BY created_at, session_id").fetchall()
    finally:
        conn.close()
    return [StoredSession(str(r[0]), str(r[1]), int(r[2] or 0), int(r[3] or 0),
                          None if r[4] is None else str(r[4])) for r in rows]


def events(path: Path, session_id: str) -> Iterator[StoredEvent]:
    """The session's transcript events, in order."""
    conn = _connect(path)
    try:
        for seq, text, blob, size in conn.execute(
                "SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events"
                " WHERE session_id = ? ORDER BY seq", (session_id,)):
            yield StoredEvent(int(seq), text, None if blob is None else bytes(blob),
                              None if size is None else int(size))
    finally:
        conn.close()


def cold_archive(path: Path, session_id: str) -> ColdArchive | None:
    """The session's cold archive, or None (none, or a store older than cold storage)."""
    conn = _connect(path)
    try:
        row = conn.execute("SELECT archive_name, archive_blob, last_seq FROM"
                           " session_transcript_cold_archives WHERE session_id = ?",
                           (session_id,)).fetchone()
    except sqlite3.OperationalError:  # no such table
        return None
    finally:
        conn.close()
    if row is None:
        return None
    return ColdArchive(str(row[0]), None if row[1] is None else bytes(row[1]), int(row[2]))
