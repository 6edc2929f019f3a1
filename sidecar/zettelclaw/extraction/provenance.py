"""The conversations entries came from (spec §9.3), kept by the sidecar whatever the host does.

Each stretch of transcript a hook delivers is appended to ``HOME/transcripts/<sessionId>.jsonl``
(user and assistant text only, one message per line, fsynced). It is also what tells a new
message from one already received: the keys of the lines in that file.

``<sessionId>.seen`` holds when the host last read the session's transcript for a hook (its
``readAt``, epoch ms): the sweep leaves out a session whose host activity is not newer. The
newest message received cannot say that: the host stamps a session's activity after its last
message, and a reset stamps it again, so every session would be sent at every sweep.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from zettelclaw.errors import InvalidParamsError, NotFoundError
from zettelclaw.extraction.transcript import Message
from zettelclaw.files import atomic_write_bytes, ends_with_newline, write_all
from zettelclaw.home import DIR_MODE, FILE_MODE, Home

#: what a session id may look like before it names a file: no separators, no leading dot
SESSION_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")


def check_session_id(session_id: str) -> str:
    if not SESSION_ID_RE.match(session_id) or ".." in session_id:
        raise InvalidParamsError(
            f"sessionId {session_id[:80]!r} is not a valid session id (letters, digits, '_', "
            "'.', ':', '-'; at most 128; no '..')", [{"field": "sessionId",
                                                     "message": "invalid session id",
                                                     "type": "value_error"}])
    return session_id


class Provenance:
    def __init__(self, home: Home) -> None:
        self.dir = home.root / "transcripts"
        # keys already read per session, with the file size they were read up to
        self._keys: dict[str, tuple[int, set[str]]] = {}

    def path(self, session_id: str) -> Path:
        return self.dir / f"{check_session_id(session_id)}.jsonl"

    def _lines(self, session_id: str, start: int = 0) -> Iterator[tuple[int, dict[str, Any]]]:
        """(offset after the line, record) for each whole line from byte ``start``."""
        path = self.path(session_id)
        try:
            data = path.read_bytes()[start:]
        except FileNotFoundError:
            return
        offset = start
        for raw in data.split(b"\n")[:-1]:  # a torn last line (no newline) is not a record
            offset += len(raw) + 1
            try:
                record = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            if isinstance(record, dict):
                yield offset, record

    def keys(self, session_id: str) -> set[str]:
        """The keys of every message received for the session (read incrementally)."""
        size, keys = self._keys.get(session_id, (0, set()))
        try:
            current = self.path(session_id).stat().st_size
        except FileNotFoundError:
            current = 0
        if current < size:  # the file was replaced or truncated by hand: read it again
            size, keys = 0, set()
        if current > size:
            keys = set(keys)
            for offset, record in self._lines(session_id, size):
                keys.add(str(record.get("key")))
                size = offset
        self._keys[session_id] = (size, keys)
        return keys

    def append(self, session_id: str, messages: Iterable[Message], job_id: str | None, *,
               durable: bool = True) -> None:
        """Append messages. A torn last line from a crash is closed first.

        ``durable=False`` skips the fsync: the hook does, because the spooled job holds the same
        messages durably (recovery copies them back here) and ``make_durable`` runs before the
        job is deleted. That saves a hook one of its three fsyncs.
        """
        self.dir.mkdir(mode=DIR_MODE, exist_ok=True)
        data = b"".join(orjson.dumps({**m.to_json(), "job": job_id}) + b"\n" for m in messages)
        if not data:
            return
        fd = os.open(self.path(session_id), os.O_RDWR | os.O_APPEND | os.O_CREAT, FILE_MODE)
        try:
            if not ends_with_newline(fd):
                data = b"\n" + data
            write_all(fd, data)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)

    def make_durable(self, session_id: str) -> None:
        """fsync the session's transcript (before the job that carries its messages goes)."""
        try:
            fd = os.open(self.path(session_id), os.O_RDONLY)
        except FileNotFoundError:
            return
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def messages(self, session_id: str) -> list[dict[str, Any]]:
        records = [record for _, record in self._lines(session_id)]
        if not records and not self.path(session_id).exists():
            raise NotFoundError(f"no transcript kept for session {session_id}",
                                {"path": f"session:{session_id}"})
        return records

    def seen(self, session_id: str) -> float | None:
        """When the host last read this session's transcript for a hook (epoch ms), if known."""
        try:
            return float(self._seen_path(session_id).read_bytes())
        except (FileNotFoundError, ValueError):  # never said, or a file torn by a crash
            return None

    def mark_seen(self, session_id: str, read_at: float) -> None:
        """Remember that the host read the transcript at ``read_at``; an older time is ignored."""
        current = self.seen(session_id)
        if current is not None and current >= read_at:
            return
        self.dir.mkdir(mode=DIR_MODE, exist_ok=True)
        # Not fsynced (two fsyncs doubled a hook's acknowledgement, bench/extraction.py): lost
        # or left empty by a crash, the mark reads as unknown, and the next sweep sends the
        # session once more, which is recognised as received.
        atomic_write_bytes(self._seen_path(session_id), repr(float(read_at)).encode(), FILE_MODE,
                           durable=False)

    def _seen_path(self, session_id: str) -> Path:
        return self.dir / f"{check_session_id(session_id)}.seen"

    def last(self, session_id: str) -> dict[str, Any] | None:
        records = [record for _, record in self._lines(session_id)]
        return records[-1] if records else None
