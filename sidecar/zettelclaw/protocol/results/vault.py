"""``vault.build`` and ``vault.sync``: the pages written, and what became of each edited
line."""

from __future__ import annotations

from typing import Literal

from zettelclaw.protocol.results.base import Result
from zettelclaw.protocol.results.memory import LogEntry


class SkippedPage(Result):
    page: str
    reason: str


class VaultBuilt(Result):
    vault: str
    entries: int
    lines_added: int
    pages_created: int
    pages_updated: int
    skipped_pages: list[SkippedPage]
    moved_aside: str | None
    seconds: float


class VaultReceipt(Result):
    """What became of one edited line of a page."""

    page: str
    line: str
    of: str  # the id the line shows
    action: Literal["done", "reopen", "correct", "hide", "conflict", "none", "add"]
    applied: bool
    replaces: str | None = None
    entry: LogEntry | None = None  # the entry appended
    hidden: list[str] | None = None  # a hide: the ids hidden now
    reason: str | None = None  # when not applied


class VaultSynced(Result):
    vault: str
    receipts: list[VaultReceipt]  # one per edited line
    corrections: int
    briefing: bool | None = None  # after a hide: the MEMORY.md block was written again
