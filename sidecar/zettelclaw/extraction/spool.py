"""The extraction spool: one JSON file per job under ``HOME/spool``, replaced atomically.

A job is born in a hook (its new messages, durably, before the hook answers), gets the model's
entries saved into it before any of them reaches the log, and is deleted once they all have.
So after a crash at any point, the job on disk says exactly what is left to do: call the model
(no result yet) or finish the append (a result whose entries are not all in the log).
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, NotRequired

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from typing_extensions import TypedDict  # pydantic's, before Python 3.12

from zettelclaw.extraction.transcript import Message
from zettelclaw.files import atomic_write_bytes, fsync_dir
from zettelclaw.home import DIR_MODE, Home
from zettelclaw.log.schema import EARLIEST, parse_timestamp

logger = logging.getLogger(__name__)

JobState = Literal["pending", "waiting", "failed"]
MAX_ATTEMPTS = 2  # the first call and one retry (docs/04-extraction.md#the-model)


class SpooledMessage(TypedDict):
    """A message as a job keeps it (``Message.to_json``). Validated when a job is read, so that
    a job file that someone edited or wrote by hand is set aside as unreadable instead of failing
    the extraction loop when its messages are used."""

    key: str
    role: str
    text: str
    timestamp: NotRequired[str | None]
    refs: NotRequired[list[str]]  # entry ids the memory tools read (transcript.py)


class Job(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    job_id: str = Field(alias="jobId")
    session_id: str = Field(alias="sessionId")
    session_key: str | None = Field(None, alias="sessionKey")
    agent_id: str | None = Field(None, alias="agentId")
    trigger: str
    reason: str | None = None
    created_at: str = Field(alias="createdAt")
    messages: list[SpooledMessage]
    state: JobState = "pending"
    attempts: int = 0  # model calls that failed in a way that counts (not waiting for a key)
    last_error: str | None = Field(None, alias="lastError")
    not_before: float | None = Field(None, alias="notBefore")  # Unix time of the next try
    sweep_retried: bool = Field(False, alias="sweepRetried")
    # The route that made its result, or that it waits for or failed on (llm/route.py).
    route: str | None = None
    result: dict[str, Any] | None = None  # {"entries": [...], "report": {...}, "at": ...}
    # An import's job (importing/): the import's id, and the time its entries take (the
    # conversation's, not the day it was imported). None for a live conversation's.
    imported: str | None = None
    entries_at: str | None = Field(None, alias="entriesAt")
    # an import's continued conversation: the end of what an earlier import sent, shown to the
    # model before ``messages`` as context (extraction.service.prompt), not extracted again
    context: list[SpooledMessage] = []

    def message_objects(self) -> list[Message]:
        return [Message.from_json(m) for m in self.messages]

    def said_at(self, now: datetime | None = None) -> str:
        """The ``timestamp`` its entries take: when the conversation said them, not when the
        model read it (docs/04-extraction.md#when-an-entry-is-dated). An import's time; else
        the last message's that has one (a hook's stretch, extracted minutes or, after an
        outage, days later), never later than ``now`` (a host's clock ahead); else ``now``.
        The log stays ordered by append: such an entry's line is where it landed."""
        if self.entries_at:
            return self.entries_at
        now = now or datetime.now(UTC)
        stamp = next((m.get("timestamp") for m in reversed(self.messages)
                      if m.get("timestamp")), None)
        try:
            said = parse_timestamp(stamp) if stamp else now
            said = min(said.astimezone(UTC), now) if said >= EARLIEST else now
        except (ValueError, OverflowError):  # a job file edited by hand
            said = now
        return said.strftime("%Y-%m-%dT%H:%M:%SZ")

    def summary(self) -> JobSummary:
        return JobSummary(job_id=self.job_id, session_id=self.session_id, state=self.state,
                          trigger=self.trigger, created_at=self.created_at,
                          messages=len(self.messages), attempts=self.attempts,
                          last_error=self.last_error, has_result=self.result is not None,
                          route=self.route, not_before=self.not_before,
                          import_id=self.imported)


@dataclass(frozen=True, slots=True)
class JobSummary:
    """A job as ``jobs.list`` shows it (its messages counted, its result only said to be there)."""

    job_id: str
    session_id: str
    state: JobState
    trigger: str
    created_at: str
    messages: int
    attempts: int
    last_error: str | None
    has_result: bool
    route: str | None
    not_before: float | None
    import_id: str | None = None  # the import that spooled it (importing/), if one did


def new_job_id() -> str:
    """Sortable by creation time, unique: ``20261121T051500.123456Z-3f9a1c``. Microseconds, so
    that two jobs of one second (two stretches of a session) still sort in the order they came."""
    return f"{datetime.now(UTC):%Y%m%dT%H%M%S.%fZ}-{secrets.token_hex(3)}"


class Spool:
    def __init__(self, home: Home) -> None:
        self.dir = home.root / "spool"
        # Parsed jobs by file name, with the (inode, mtime, size) they were parsed at: the
        # worker lists the spool after every hook and every finished job, and a burst (a sweep
        # after a long outage) can leave a thousand jobs there. A listing stats every file but
        # parses only the ones that changed, instead of all of them every time.
        self._parsed: dict[str, tuple[tuple[int, int, int], Job]] = {}
        self._lock = threading.Lock()

    def path(self, job_id: str) -> Path:
        if "/" in job_id or job_id.startswith("."):
            raise ValueError(f"bad job id {job_id!r}")
        return self.dir / f"{job_id}.json"

    def save(self, job: Job) -> None:
        """Write the job atomically and durably (the hook answers only after this)."""
        self.dir.mkdir(mode=DIR_MODE, exist_ok=True)
        atomic_write_bytes(self.path(job.job_id),
                           orjson.dumps(job.model_dump(by_alias=True)) + b"\n")

    def load(self, job_id: str) -> Job | None:
        try:
            return Job.model_validate_json(self.path(job_id).read_bytes())
        except FileNotFoundError:
            return None

    def delete(self, job_id: str) -> None:
        try:
            self.path(job_id).unlink()
        except FileNotFoundError:
            return
        fsync_dir(self.dir)

    def jobs(self) -> list[Job]:
        """Every job on disk, oldest first (copies: change a job with ``save``). A file that is
        not a job is set aside, not lost."""
        if not self.dir.is_dir():
            return []
        with self._lock:
            parsed: dict[str, tuple[tuple[int, int, int], Job]] = {}
            for path in sorted(self.dir.glob("*.json")):
                try:
                    st = path.stat()
                    stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
                    known = self._parsed.get(path.name)
                    if known is not None and known[0] == stamp:
                        parsed[path.name] = known
                        continue
                    parsed[path.name] = (stamp, Job.model_validate_json(path.read_bytes()))
                except FileNotFoundError:
                    continue  # finished (deleted) between the listing and the read
                except ValidationError:
                    logger.warning("%s is not a job; set aside as %s.unreadable", path,
                                   path.name)
                    with contextlib.suppress(FileNotFoundError):
                        os.replace(path, path.with_suffix(".json.unreadable"))
            self._parsed = parsed
            return [job.model_copy() for _, job in parsed.values()]
