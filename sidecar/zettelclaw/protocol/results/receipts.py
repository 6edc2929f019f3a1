"""What was written and what turns were given: ``memory.remember``, ``memory.receipts``,
``memory.trace``."""

from __future__ import annotations

from typing import Literal

from zettelclaw.protocol.results.base import Result
from zettelclaw.protocol.results.memory import LogEntry


class Remembered(Result):
    """``memory.remember``: the receipt."""

    id: str
    line: int
    entry: LogEntry
    # true: a current entry of this session had the same text, type and subject; nothing was
    # written, and this is that entry
    existing: bool = False


class ReceiptEntry(Result):
    id: str
    type: str | None  # None: no longer in recall (hidden, purged, replaced away)
    content: str | None
    present: bool


class Conversation(Result):
    session_id: str | None
    source: str | None  # "extraction" or "remember"
    job_id: str | None
    at: str | None
    told: bool
    entries: list[ReceiptEntry]


class Receipts(Result):
    """``memory.receipts``: what each conversation wrote, newest first."""

    conversations: list[Conversation]


class TraceItem(Result):
    """One thing a turn was given: the handoff (``id``) or the receipt line (``ids``)."""

    kind: Literal["handoff", "receipt"]
    id: str | None = None
    ids: list[str] | None = None
    chars: int


class TraceTurn(Result):
    at: str
    session_key: str | None
    session_id: str | None
    items: list[TraceItem]
    chars: int
    why: str


class Trace(Result):
    """``memory.trace``: what the last turns were given before the prompt."""

    turns: list[TraceTurn]
