"""Hide records: the log's own lines that take entries out of recall, and give them back.

A hide record is a line of the log, appended like an entry (whole, fsynced, under the data
lock), but not an entry: ``{"forget": [ids], "id", "timestamp", "session", "by"}`` hides the
entries it names from every reader (search, get, the handoff, the briefing, the receipts), and
``{"unforget": [ids], ...}`` gives them back. The first key names the kind, so ``grep forget
log.jsonl`` finds them. They hold ids and how the owner chose them (``by``: ``id``, ``session``,
``subject`` or ``text``), never the forgotten text itself (a search for the words would find
them again). Where they take effect: the index (``index/ingest.py``) drops the hidden entries'
rows, so nothing that reads the index sees them; an ``unforget`` makes it read the log again.
"""

from __future__ import annotations

import mmap
from typing import Annotated, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from zettelclaw.log.schema import EntryId, SessionId, Timestamp, new_id, now_timestamp

KINDS = ("forget", "unforget")
PREFIXES = (b'{"forget":', b'{"unforget":')
By = Literal["id", "session", "subject", "text", "purge", "vault"]


class HideRecord(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    forget: Annotated[list[EntryId], Field(min_length=1)] | None = None
    unforget: Annotated[list[EntryId], Field(min_length=1)] | None = None
    id: EntryId
    timestamp: Timestamp
    session: SessionId = "manual"
    by: By | None = None

    @property
    def hides(self) -> bool:
        return self.forget is not None

    @property
    def ids(self) -> list[str]:
        return self.forget if self.forget is not None else (self.unforget or [])


def looks_like(data: bytes) -> bool:
    """Whether a line is meant as a hide record (its first key is ``forget`` or ``unforget``)."""
    return data.lstrip().startswith(PREFIXES)


def parse(data: bytes) -> HideRecord:
    """A hide record; ValueError with a one-line reason when the line is not a valid one."""
    try:
        record = HideRecord.model_validate_json(data)
    except ValidationError as exc:
        raise ValueError("; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
                                   for e in exc.errors(include_url=False))) from None
    if (record.forget is None) == (record.unforget is None):
        raise ValueError("a hide record has either forget or unforget")
    return record


def line(ids: list[str], *, hide: bool, by: str | None = None, session: str = "manual") -> bytes:
    """A new hide (or unhide) record as one log line, newline included."""
    value: dict[str, object] = {"forget" if hide else "unforget": ids, "id": new_id(),
                                "timestamp": now_timestamp(), "session": session}
    if by is not None:
        value["by"] = by
    parse(orjson.dumps(value))  # the writer's check: what it writes, the reader accepts
    return orjson.dumps(value) + b"\n"


def final_hidden(fd: int, end: int) -> set[str]:
    """The ids hidden once the log's first ``end`` bytes are read: found by a byte search for
    the records, without parsing the entries (a build from the start skips them)."""
    if end <= 0:
        return set()
    hidden: set[str] = set()
    with mmap.mmap(fd, end, prot=mmap.PROT_READ) as data:
        starts: list[int] = []
        for prefix in PREFIXES:
            if data[:len(prefix)] == prefix:
                starts.append(0)
            at = data.find(b"\n" + prefix)
            while at >= 0:
                starts.append(at + 1)
                at = data.find(b"\n" + prefix, at + 1)
        for start in sorted(starts):
            stop = data.find(b"\n", start)
            if stop < 0:
                continue  # unfinished: not read yet
            try:
                record = parse(data[start:stop])
            except ValueError:
                continue
            for entry_id in record.ids:
                if record.hides:
                    hidden.add(entry_id)
                else:
                    hidden.discard(entry_id)
    return hidden


__all__ = ["KINDS", "HideRecord", "final_hidden", "line", "looks_like", "now_timestamp", "parse"]
