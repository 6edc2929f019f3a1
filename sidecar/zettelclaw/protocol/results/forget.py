"""``memory.forget`` and ``memory.unforget``: the entries, and what a purge took off the
disk, per place."""

from __future__ import annotations

from typing import Literal

from zettelclaw.protocol.results.base import Result


class ForgotEntry(Result):
    id: str
    line: int
    type: str
    session: str
    subject: str | None
    content: str  # cut to 160 characters
    hidden: bool  # hidden before this call


class RemovedLog(Result):
    lines: int
    bytes: int


class RemovedFiles(Result):
    files: int
    bytes: int


class RemovedSpool(Result):
    jobs: int
    entries: int


class RemovedVault(Result):
    pages: int
    lines: int


class RemovedIndex(Result):
    rows: int
    vectors: int


class Removed(Result):
    """What a purge took off the disk, per place; a dry run names the transcripts it would
    delete instead."""

    log: RemovedLog | None = None
    transcripts: RemovedFiles | list[str] | None = None
    spool: RemovedSpool | None = None
    vault: RemovedVault | None = None
    index: RemovedIndex | None = None
    seconds: float | None = None


class FileCopy(Result):
    """A line of the workspace's memory files that holds forgotten text (the person's file:
    not edited by a forget, and found by search until it is)."""

    path: str  # relative to the workspace: MEMORY.md, memory/NAME.md
    line: int
    text: str  # cut to 160 characters
    deleted: bool = False  # taken out of the file (editFiles); else still there


class Forgot(Result):
    """``memory.forget`` and ``memory.unforget``: what went (or, on a dry run, would go)."""

    action: Literal["hide", "purge", "unhide"]
    dry_run: bool
    by: str
    entries: list[ForgotEntry]
    changed: int  # entries hidden, purged or given back by this call (would be, on a dry run)
    removed: Removed | None = None  # purge: what left the disk, counted per place
    briefing: bool | None = None  # the MEMORY.md block was written again
    # hide and purge: the memory files' lines that still hold the text (at most 50, then 51)
    in_memory_files: list[FileCopy] | None = None
