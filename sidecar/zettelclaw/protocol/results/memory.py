"""The answers of the memory's reads: ``memory.search`` (log and memory-file hits, the
restricted answer), ``memory.get``, ``hook.beforePromptBuild``, ``subjects.*`` and
``index.rebuild``.

memory-core's fields (``path``, ``startLine``, ``endLine``, ``citation``, ``source``) are made
here, from the domain's hits, and nowhere else."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from zettelclaw.protocol.results.base import Result


class Reason(Result):
    reason: str


class LogResult(Result):
    id: str
    timestamp: str
    type: str
    content: str
    status: str | None
    detail: str | None
    subject: str | None
    replaces: str | None
    session: str
    path: str
    start_line: int
    end_line: int
    line: int
    replaced_by: str | None
    source: Literal["log"]
    citation: str
    snippet: str
    score: float
    text_score: float | None = None
    vector_score: float | None = None
    content_truncated: bool | None = None
    detail_truncated: bool | None = None


class MemoryResult(Result):
    path: str
    start_line: int
    end_line: int
    source: Literal["memory"]
    citation: str
    snippet: str
    score: float
    text_score: float
    vector_score: float | None = None


class SearchResult(Result):
    results: list[LogResult | MemoryResult]
    mode: Literal["hybrid", "keyword", "filter", "restricted"]
    fallback: Reason | None = None
    restricted: Reason | None = None
    stale: Reason | None = None


def restricted(reason: str) -> SearchResult:
    return SearchResult(results=[], mode="restricted", restricted=Reason(reason=reason))


class PromptContext(Result):
    prepend_context: str | None


class LogEntry(Result):
    """An entry as it stands in the log (log/schema.py): its absent fields left out."""

    id: str
    timestamp: str
    type: str
    content: str
    status: str | None = None
    detail: str | None = None
    subject: str | None = None
    replaces: str | None = None
    session: str


class EntryWithChain(Result):
    """``memory.get`` of an entry id: the entry, its older versions (nearest first) and its
    newer ones up to the current one (nearest first)."""

    entry: LogEntry
    line: int
    current: bool
    replaces: list[LogEntry]
    replaced_by: list[LogEntry]


class TextSlice(Result):
    """``memory.get`` of a memory file or a session's transcript: lines of it."""

    path: str
    text: str
    from_: int = Field(alias="from")
    lines: int
    total_lines: int
    truncated: bool


class SubjectInfo(Result):
    slug: str
    display: str
    type: str


class SubjectRow(Result):
    slug: str
    display: str
    type: str | None
    registered: bool
    entries: int
    last_entry: str | None


class SubjectsList(Result):
    subjects: list[SubjectRow]


class SubjectAdded(Result):
    subject: SubjectInfo


class SubjectRenamed(Result):
    from_: str = Field(alias="from")
    to: str
    merged: bool
    entries_rewritten: int
    subject: SubjectInfo


class Rebuilt(Result):
    entries: int
    invalid_lines: int
    memory_files: int
    chunks: int
    seconds: float
