"""The results of the memory and subjects methods, as pydantic models: the other half of the
contract protocol.md documents (``params.py`` is the first).

Field names are snake_case here and camelCase on the wire (``startLine``, ``replacedBy``), so
mypy checks the code that fills them and protocol.md names what they send. memory-core's
fields (``path``, ``startLine``, ``endLine``, ``citation``, ``source``) are made here, from the
domain's hits, and nowhere else. A field left unset is left out of the answer; one set to None
is sent as null (so no field has a default that should be sent).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from zettelclaw.index.entries import ENTRY_COLUMNS
from zettelclaw.search.engine import Answer, ChunkHit, EntryHit

# A result's content and detail in a list: an entry of 50 MB (written by hand) must not make
# every search answer 50 MB; memory.get returns the whole entry.
RESULT_TEXT_CHARS = 16_384


class Result(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True,
                              extra="forbid")

    def wire(self) -> dict[str, Any]:
        """The JSON object sent: camelCase, unset optional fields left out."""
        return self.model_dump(by_alias=True, exclude_unset=True)


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


def search_wire(answer: Answer) -> dict[str, Any]:
    """``memory.search``'s answer as sent: ``SearchResult``'s wire form, built directly (through
    the models it was a sizeable share of a quick search's whole call; bench/README.md).
    ``search_result`` checks it against the models, which stay the contract;
    tests/test_results.py holds the two equal, key order included, over generated answers."""
    out: dict[str, Any] = {"results": [
        _log_wire(hit) if isinstance(hit, EntryHit) else _memory_wire(hit)
        for hit in answer.hits], "mode": answer.mode}
    if answer.fallback is not None:
        out["fallback"] = {"reason": answer.fallback}
    if answer.stale is not None:
        out["stale"] = {"reason": answer.stale}
    return out


def search_result(answer: Answer) -> SearchResult:
    """``search_wire(answer)`` as the models: validated, field by field."""
    return SearchResult.model_validate(search_wire(answer))


def _log_wire(hit: EntryHit) -> dict[str, Any]:
    entry = hit.entry
    out: dict[str, Any] = {key: entry[key] for key in ENTRY_COLUMNS}  # LogResult's order
    cut: dict[str, bool] = {}
    for key in ("content", "detail"):
        text = out[key]
        if text is not None and len(text) > RESULT_TEXT_CHARS:
            out[key] = text[:RESULT_TEXT_CHARS]
            cut[f"{key}Truncated"] = True
    line = hit.line
    out.update(path=entry["id"], startLine=line, endLine=line, line=line,
               replacedBy=hit.replaced_by, source="log", citation=f"log.jsonl#L{line}",
               snippet=hit.snippet, score=round(hit.score, 6))
    if hit.keyword is not None:
        out["textScore"] = round(hit.keyword, 6)
    if hit.semantic is not None:
        out["vectorScore"] = round(hit.semantic, 6)
    out.update(cut)
    return out


def _memory_wire(hit: ChunkHit) -> dict[str, Any]:
    lines = (f"#L{hit.start_line}" if hit.start_line == hit.end_line
             else f"#L{hit.start_line}-L{hit.end_line}")
    out: dict[str, Any] = {
        "path": hit.path, "startLine": hit.start_line, "endLine": hit.end_line,
        "source": "memory", "citation": f"{hit.path}{lines}", "snippet": hit.snippet,
        "score": round(hit.score, 6), "textScore": round(hit.keyword, 6)}
    if hit.semantic is not None:
        out["vectorScore"] = round(hit.semantic, 6)
    return out


def restricted(reason: str) -> SearchResult:
    return SearchResult(results=[], mode="restricted", restricted=Reason(reason=reason))


class PromptContext(Result):
    prepend_context: str | None


class EntryWithChain(Result):
    """``memory.get`` of an entry id: the entry as in the log (absent fields left out)."""

    entry: dict[str, Any]
    line: int
    current: bool
    replaces: list[dict[str, Any]]
    replaced_by: list[dict[str, Any]]


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


class ForgotEntry(Result):
    id: str
    line: int
    type: str
    session: str
    subject: str | None
    content: str  # cut to 160 characters
    hidden: bool  # hidden before this call


class Forgot(Result):
    """``memory.forget`` and ``memory.unforget``: what went (or, on a dry run, would go)."""

    action: Literal["hide", "purge", "unhide"]
    dry_run: bool
    by: str
    entries: list[ForgotEntry]
    changed: int  # entries hidden, purged or given back by this call (would be, on a dry run)
    removed: dict[str, Any] | None = None  # purge: what left the disk, counted per place
    briefing: bool | None = None  # the MEMORY.md block was written again


class Remembered(Result):
    """``memory.remember``: the receipt."""

    id: str
    line: int
    entry: dict[str, Any]
