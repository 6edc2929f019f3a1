"""Write receipts: what each conversation put in memory, and one line telling the owner so.

``HOME/receipts.json`` keeps, per conversation that wrote entries, the ids it wrote, where from
(``extraction``, ``remember``) and whether the owner was told: the last ``KEEP`` of them. The
extraction's finish records its job's entries under the data lock, once per job (by job id:
a finish run again after a crash records the same receipt, not a second one); ``memory.remember``
records its entry, already told (its answer was the receipt).

Before the owner's next turn in a private main session (the handoff's audience), the hook
prepends one line naming the entries not told yet; the line is shown once. It is formatted when
the index changes (``refresh``, in the syncing thread, where entries hidden or purged since are
left out), so the hook only reads a string; marking it told is written to the file after the hook
has answered (a crash in between can show it once more, never lose an entry).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from zettelclaw import lock
from zettelclaw.files import atomic_write_bytes
from zettelclaw.home import Home
from zettelclaw.index import entries
from zettelclaw.log.schema import EntryRecord, now_timestamp
from zettelclaw.session_keys import Audience

logger = logging.getLogger(__name__)

KEEP = 200  # conversations remembered in receipts.json
SHOWN_ITEMS = 3
ITEM_CHARS = 60


def path(home: Home) -> Path:
    return home.root / "receipts.json"


def load(home: Home) -> list[dict[str, Any]]:
    try:
        value = orjson.loads(path(home).read_bytes())
    except FileNotFoundError:
        return []
    except orjson.JSONDecodeError:
        logger.warning("%s is unreadable; receipts start over", path(home))
        return []
    found = value.get("conversations") if isinstance(value, dict) else None
    return [c for c in found if isinstance(c, dict)] if isinstance(found, list) else []


def _save_locked(home: Home, conversations: list[dict[str, Any]]) -> None:
    atomic_write_bytes(path(home), orjson.dumps({"conversations": conversations[-KEEP:]},
                                                option=orjson.OPT_INDENT_2) + b"\n")


def record_locked(home: Home, session_id: str, ids: list[str], *, source: str,
                  job_id: str | None = None, told: bool = False) -> None:
    """Record what a conversation wrote (the caller holds the data lock). A job's receipt is
    recorded once, whatever the number of times its finish runs."""
    if not ids:
        return
    conversations = load(home)
    if job_id is not None and any(c.get("jobId") == job_id for c in conversations):
        return
    conversations.append({"sessionId": session_id, "jobId": job_id, "source": source,
                          "ids": ids, "at": now_timestamp(), "told": told})
    _save_locked(home, conversations)


def remembered(home: Home, session_id: str) -> set[str]:
    """The ids ``memory.remember`` wrote for this conversation."""
    return {i for c in load(home) if c.get("sessionId") == session_id
            and c.get("source") == "remember" for i in c.get("ids", [])}


def mark_told(home: Home, job_keys: list[str]) -> None:
    """The receipts ``job_keys`` (``at`` + session) were shown to the owner."""
    with lock.exclusive(home.lock):
        conversations = load(home)
        changed = False
        for c in conversations:
            if _key(c) in job_keys and not c.get("told"):
                c["told"] = True
                changed = True
        if changed:
            _save_locked(home, conversations)


def _key(conversation: dict[str, Any]) -> str:
    return f"{conversation.get('at')}|{conversation.get('sessionId')}|{conversation.get('jobId')}"


@dataclass(frozen=True, slots=True)
class Landed:
    """An entry a conversation wrote, and whether it is still in recall (``present``: not
    hidden, purged or replaced away; then its type and content are None)."""

    id: str
    type: str | None
    content: str | None
    present: bool


@dataclass(frozen=True, slots=True)
class Written:
    """What one conversation wrote: by extraction (its job) or memory.remember."""

    session_id: str | None
    source: str | None
    job_id: str | None
    at: str | None
    told: bool  # the owner's turn was given its receipt line
    entries: list[Landed]


def listing(home: Home, conn: sqlite3.Connection) -> list[Written]:
    """Every receipt kept, newest first, each entry with its content and whether it is still
    in recall."""
    out = []
    for c in reversed(load(home)):  # receipts.json, as kept: JSON objects
        items = []
        for entry_id in c.get("ids", []):
            found = entries.get_entry(conn, entry_id)
            items.append(Landed(id=entry_id,
                                type=found.entry["type"] if found else None,
                                content=found.entry["content"] if found else None,
                                present=found is not None))
        out.append(Written(session_id=c.get("sessionId"), source=c.get("source"),
                           job_id=c.get("jobId"), at=c.get("at"), told=bool(c.get("told")),
                           entries=items))
    return out


class Receipts:
    """The line for the owner's next private turn, kept formatted."""

    def __init__(self, home: Home, enabled: bool = True) -> None:
        self.home = home
        self.enabled = enabled
        self._line: str | None = None
        self._keys: list[str] = []
        self._ids: list[str] = []
        self._lock = threading.Lock()

    def refresh(self, conn: sqlite3.Connection) -> None:
        """Format the line again from the receipts not told (``Freshness.on_change``)."""
        if not self.enabled:
            return
        waiting = [c for c in load(self.home) if not c.get("told")]
        shown: list[EntryRecord] = []
        for c in waiting:
            for entry_id in c.get("ids", []):
                found = entries.get_entry(conn, entry_id)
                if found is not None and found.current:
                    shown.append(found.entry)
        with self._lock:
            self._keys = [_key(c) for c in waiting]
            self._ids = [e["id"] for e in shown]
            self._line = format_line(shown) if shown else None

    def take(self, audience: Audience) -> tuple[str, list[str], list[str]] | None:
        """For a private main turn: (the line, the receipts it tells, the entry ids), once."""
        if not self.enabled or audience.private_reason() is not None:
            return None
        with self._lock:
            if self._line is None:
                return None
            taken = (self._line, self._keys, self._ids)
            self._line, self._keys, self._ids = None, [], []
        return taken


def format_line(shown: Sequence[Mapping[str, Any]]) -> str:
    n = len(shown)
    items = []
    for e in shown[:SHOWN_ITEMS]:
        text = " ".join(str(e["content"]).split())
        text = text if len(text) <= ITEM_CHARS else text[:ITEM_CHARS - 1] + "…"
        items.append(f"{e['type']} \u201c{text}\u201d (id {e['id']})")
    more = f"; and {n - SHOWN_ITEMS} more" if n > SHOWN_ITEMS else ""
    return (f"Remembered from your last conversation: {n} entr{'y' if n == 1 else 'ies'} — "
            + "; ".join(items) + more + "; say 'forget …' to remove one.")
