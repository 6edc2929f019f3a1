"""The handoff context injected before an agent turn (docs/05-recall.md).

The last current handoff, then the open tasks and the decisions of the handoff's session, so the
agent knows where things stand without a tool call. Bounded, so a chatty session cannot blow up
every prompt. ``Handoff`` keeps it formatted: refreshed by the index's freshness after a sync
that changed entries (in that thread), read by the hook as a string, and given only to the
owner's private sessions.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from zettelclaw.index import entries
from zettelclaw.session_keys import Audience

logger = logging.getLogger(__name__)

MAX_ITEMS = 10
MAX_TEXT = 400


def _clip(text: str, limit: int = MAX_TEXT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_handoff(handoff: Mapping[str, Any], items: Sequence[Mapping[str, Any]]) -> str:
    head = f"Session: {handoff['session']} ({handoff['timestamp']})"
    if handoff.get("subject"):
        head += f" · subject: {handoff['subject']}"
    lines = ["## Last Session Handoff", head, _clip(handoff["content"], 2 * MAX_TEXT)]
    if handoff.get("detail"):
        lines.append("Detail: " + _clip(handoff["detail"], 4 * MAX_TEXT))
    tasks = [i for i in items if i["type"] == "task"][-MAX_ITEMS:]
    decisions = [i for i in items if i["type"] == "decision"][-MAX_ITEMS:]
    if tasks:
        lines += ["", "Open tasks from that session:"]
        lines += [_item(task) for task in tasks]
    if decisions:
        lines += ["", "Decisions from that session:"]
        lines += [_item(decision, why=True) for decision in decisions]
    return "\n".join(lines)


def _item(entry: Mapping[str, Any], why: bool = False) -> str:
    text = "- " + _clip(entry["content"])
    if why and entry.get("detail"):
        text += " (why: " + _clip(entry["detail"], MAX_TEXT // 2) + ")"
    if entry.get("subject"):
        text += f" [{entry['subject']}]"
    return text + f" (id {entry['id']})"


class Handoff:
    def __init__(self) -> None:
        self._text: str | None = None
        self.entry_id: str | None = None  # the handoff's (the injection trace names it)

    def refresh(self, conn: sqlite3.Connection) -> None:
        """Format the last handoff again (``Freshness.on_change``)."""
        handoff = entries.last_handoff(conn)
        if handoff is None:
            self._text = self.entry_id = None
            return
        self.entry_id = str(handoff["id"])
        items = entries.open_items(conn, handoff["session"], 2 * MAX_ITEMS)
        self._text = format_handoff(entries.entry_dict(handoff),
                                    [entries.entry_dict(i) for i in items])

    def context(self, audience: Audience) -> str | None:
        """The prependContext for a turn: the handoff, for private main sessions only."""
        reason = audience.private_reason()
        if reason is not None:
            logger.debug("no handoff for %s: %s", audience.session_key, reason)
            return None
        return self._text
