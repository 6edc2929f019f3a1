"""The injection trace: what ``hook.beforePromptBuild`` injected, turn by turn, per memory.

Only turns that got something are recorded (and only the owner's private sessions get anything),
with what was injected (the handoff's id, the receipt's entry ids), the sizes and why. Bounded:
the last ``KEEP`` in memory, and in ``HOME/trace.jsonl`` (one unsynced ``O_APPEND`` write of
~200 bytes per recorded turn, on a descriptor kept open; when it holds ``FILE_LINES`` it is
rewritten with the last ``KEEP``, unsynced). A line lost in a crash is a lost trace line,
nothing more.
"""

from __future__ import annotations

import logging
import os
from collections import deque
from pathlib import Path
from typing import Any

import orjson

from zettelclaw.files import atomic_write_bytes
from zettelclaw.home import FILE_MODE, Home
from zettelclaw.log.schema import now_timestamp

logger = logging.getLogger(__name__)

KEEP = 100
FILE_LINES = 10 * KEEP  # the file is cut back to the last KEEP when it reaches this (~250 KB)


class Trace:
    def __init__(self, home: Home) -> None:
        self.path: Path = home.root / "trace.jsonl"
        self.turns: deque[dict[str, Any]] = deque(self._read(), maxlen=KEEP)
        self._lines = len(self.turns)
        self._fd: int | None = None  # kept open: one write per recorded turn

    def _read(self) -> list[dict[str, Any]]:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        turns = []
        for raw in data.splitlines()[-KEEP:]:
            try:
                value = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue  # a line torn by a crash
            if isinstance(value, dict):
                turns.append(value)
        return turns

    def record(self, session_key: str | None, session_id: str | None,
               items: list[dict[str, Any]], why: str) -> None:
        """One turn's injection (not called for a turn that got nothing)."""
        turn = {"at": now_timestamp(), "sessionKey": session_key, "sessionId": session_id,
                "items": items, "chars": sum(int(i.get("chars", 0)) for i in items),
                "why": why}
        self.turns.append(turn)
        try:
            if self._fd is None:
                self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT
                                   | os.O_NOFOLLOW, FILE_MODE)
            os.write(self._fd, orjson.dumps(turn) + b"\n")
            self._lines += 1
            if self._lines >= FILE_LINES:  # bounded: the last KEEP, replaced (no fsync: a trace)
                atomic_write_bytes(self.path, b"".join(orjson.dumps(t) + b"\n"
                                                       for t in self.turns), durable=False)
                self.close()
                self._lines = len(self.turns)
        except OSError as exc:  # a trace must never fail a turn
            logger.warning("trace not written: %s", exc)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def last(self, limit: int) -> list[dict[str, Any]]:
        """The last ``limit`` turns, newest first."""
        return list(reversed(self.turns))[:limit]
