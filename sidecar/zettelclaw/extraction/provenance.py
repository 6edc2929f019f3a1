"""The conversations entries came from, kept by the sidecar whatever the host does.

What is kept and for how long: docs/04-extraction.md#what-is-kept-and-for-how-long.

Each stretch of transcript a hook delivers is appended to ``HOME/transcripts/<sessionId>.jsonl``
(user and assistant text only, one message per line, fsynced). It is also what tells a new
message from one already received: the keys of the lines in that file.

After ``retention.transcriptDays`` without a new message, the text goes (``prune``,
extraction/retention.py): ``<sessionId>.keys`` keeps each message's key and timestamp, so a
conversation sent again is still known as received and is not extracted twice.

``<sessionId>.seen`` holds when the host last read the session's transcript for a hook (its
``readAt``, epoch ms): the sweep leaves out a session whose host activity is not newer. The
newest message received cannot say that: the host stamps a session's activity after its last
message, and a reset stamps it again, so every session would be sent at every sweep.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from zettelclaw.errors import InvalidParamsError, NotFoundError
from zettelclaw.extraction.transcript import Message
from zettelclaw.files import atomic_write_bytes, ends_with_newline, fsync_dir, write_all
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
        return _records(self.path(session_id), start)

    def keys(self, session_id: str) -> set[str]:
        """The keys of every message received for the session (read incrementally): those of
        its transcript, and those kept after its text was pruned (``<sessionId>.keys``)."""
        keys = self._file_keys(self.path(session_id),
                               lambda start: self._lines(session_id, start))
        pruned = self.keys_path(session_id)
        if not pruned.exists():
            return keys
        return keys | self._file_keys(pruned, lambda start: _records(pruned, start))

    def _file_keys(self, path: Path,
                   read: Callable[[int], Iterator[tuple[int, dict[str, Any]]]]) -> set[str]:
        size, keys = self._keys.get(path.name, (0, set()))
        try:
            current = path.stat().st_size
        except FileNotFoundError:
            current = 0
        if current < size:  # the file was replaced, truncated or pruned: read it again
            size, keys = 0, set()
        if current > size:
            keys = set(keys)
            for offset, record in read(size):
                keys.add(str(record.get("key")))
                size = offset
        self._keys[path.name] = (size, keys)
        return keys

    def keys_path(self, session_id: str) -> Path:
        """What is left of a pruned transcript: each message's key and timestamp, no text, so
        that a conversation the host sends again is still recognised as received."""
        return self.dir / f"{check_session_id(session_id)}.keys"

    def prune(self, session_id: str) -> int:
        """Drop the session's transcript text, keeping the keys (``keys_path``). Returns the
        bytes freed. The keys file is written (durably, atomically) before the text goes; a
        crash between the two leaves both, and the next prune merges them again."""
        path = self.path(session_id)
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return 0
        kept = [r for _, r in _records(self.keys_path(session_id))]
        known = {r.get("key") for r in kept}
        kept += [{"key": r.get("key"), "timestamp": r.get("timestamp")}
                 for _, r in self._lines(session_id) if r.get("key") not in known]
        atomic_write_bytes(self.keys_path(session_id),
                           b"".join(orjson.dumps(r) + b"\n" for r in kept), FILE_MODE)
        path.unlink()
        fsync_dir(self.dir)
        self._keys.pop(path.name, None)
        return size

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
            if self.keys_path(session_id).exists():
                raise NotFoundError(f"the transcript of session {session_id} was pruned "
                                    "(retention.transcriptDays)",
                                    {"path": f"session:{session_id}"})
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

    def keys_of_jobs(self, session_id: str, job_ids: set[str]) -> list[str]:
        """The keys of the session's messages these jobs carried (its copy still holds which
        job each came in; once pruned, that is not known)."""
        return [str(record.get("key")) for _, record in self._lines(session_id)
                if record.get("job") in job_ids]

    def release(self, session_id: str, keys: set[str]) -> int:
        """Forget that these messages were received (their writer's work was rolled back), in
        the copy and in the pruned keys: the same conversation sent again is new. Under the
        data lock. Returns how many records went."""
        gone = 0
        for path in (self.path(session_id), self.keys_path(session_id)):
            records = [r for _, r in _records(path)]
            kept = [r for r in records if r.get("key") not in keys]
            if len(kept) == len(records):
                continue
            gone += len(records) - len(kept)
            if kept:
                atomic_write_bytes(path, b"".join(orjson.dumps(r) + b"\n" for r in kept),
                                   FILE_MODE)
            else:
                path.unlink()
                fsync_dir(self.dir)
            self._keys.pop(path.name, None)
        return gone

    def last(self, session_id: str) -> dict[str, Any] | None:
        records = [record for _, record in self._lines(session_id)]
        if not records:  # pruned: the keys file still says where the session was received to
            records = [record for _, record in _records(self.keys_path(session_id))]
        return records[-1] if records else None


def _records(path: Path, start: int = 0) -> Iterator[tuple[int, dict[str, Any]]]:
    """(offset after the line, record) for each whole line of ``path`` from byte ``start``."""
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
