"""An import's manifest: ``HOME/imports/<id>.json``, replaced atomically after each step.

It lists every item the import took (by key: the source's id and a hash of its content), what it
became (the entry ids a note was written as; the session and job a conversation was spooled
under, or why it was not) and whether that write is known to be complete (``state``: an item is
recorded as ``writing`` before its write and ``done`` after, so an import cut short redoes
exactly the items in between, which are written so that doing them again adds nothing). The
keys of every import not rolled back are what a new import of the same source skips.
"""

from __future__ import annotations

import logging
import secrets
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from zettelclaw.errors import NotFoundError
from zettelclaw.files import atomic_write_bytes
from zettelclaw.home import DIR_MODE, Home

logger = logging.getLogger(__name__)

ImportState = Literal["running", "stopped", "done", "rollingBack", "rolledBack"]


class _Model(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="ignore")


class Record(_Model):
    source_id: str = Field(alias="sourceId")
    what: Literal["note", "conversation"]
    origin: str
    state: Literal["writing", "done"] = "writing"
    session: str
    entries: list[str] = []  # a note's entry id
    job_id: str | None = Field(None, alias="jobId")  # a conversation's spool job
    skipped: str | None = None  # why it was not written (nothing new, out of scope, invalid)
    tokens: int = 0  # a conversation's estimate
    # a conversation's: how many of its messages (from the first) the source held, and their
    # hash (reading.messages_digest): a later export of it continued is sent from there on
    sent: int = 0
    digest: str | None = None


class Manifest(_Model):
    id: str
    kind: str
    path: str
    agent: str
    created_at: str = Field(alias="createdAt")
    updated_at: str = Field(alias="updatedAt")
    state: ImportState = "running"
    stop_reason: str | None = Field(None, alias="stopReason")
    budget: int = 0  # tokens; 0: no limit
    spooled_tokens: int = Field(0, alias="spooledTokens")
    since: str | None = None
    until: str | None = None
    items: dict[str, Record] = {}
    problems: list[dict[str, str]] = []
    # what items cut short by a crash may have written (their records were dropped and the
    # items written again): a rollback removes these too
    uncertain_entries: list[str] = Field([], alias="uncertainEntries")
    uncertain_sessions: list[str] = Field([], alias="uncertainSessions")
    # a rollback's: the keys of the host's session messages this import delivered, recorded
    # before the purge (which drops the copy that says which job brought them) and released
    # after it, so the sessions can be imported again
    released: dict[str, list[str]] = {}

    def entry_ids(self) -> list[str]:
        return sorted({i for r in self.items.values() for i in r.entries}
                      | set(self.uncertain_entries))

    def spooled_sessions(self) -> list[str]:
        return sorted({r.session for r in self.items.values() if r.job_id is not None}
                      | set(self.uncertain_sessions))


def directory(home: Home) -> Path:
    return home.root / "imports"


def new_id(kind: str) -> str:
    """Sortable, unique, usable in a session id: ``20261126T091500-chatgpt-3f9a``."""
    return f"{datetime.now(UTC):%Y%m%dT%H%M%S}-{kind}-{secrets.token_hex(2)}"


def _path(home: Home, import_id: str) -> Path:
    if "/" in import_id or import_id.startswith(".") or not import_id:
        raise NotFoundError(f"no import {import_id!r}", {"importId": import_id})
    return directory(home) / f"{import_id}.json"


def save(home: Home, manifest: Manifest) -> None:
    manifest.updated_at = now()
    directory(home).mkdir(mode=DIR_MODE, exist_ok=True)
    atomic_write_bytes(_path(home, manifest.id),
                       manifest.model_dump_json(by_alias=True, exclude_none=True).encode()
                       + b"\n")


def load(home: Home, import_id: str) -> Manifest:
    try:
        raw = _path(home, import_id).read_bytes()
    except FileNotFoundError:
        raise NotFoundError(f"no import {import_id} (zettelclaw import --list names them)",
                            {"importId": import_id}) from None
    return Manifest.model_validate_json(raw)


def every(home: Home) -> list[Manifest]:
    """Every import of this memory, oldest first; a file that is not a manifest is skipped
    (logged): it cannot say what it wrote."""
    found = []
    folder = directory(home)
    if not folder.is_dir():
        return []
    for file in sorted(folder.glob("*.json")):
        try:
            found.append(Manifest.model_validate_json(file.read_bytes()))
        except (ValidationError, OSError) as exc:
            logger.warning("%s is not an import manifest (%s); ignored", file, exc)
    return found


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
