"""An import's notes written as entries: each note's entry id derived from the import's id and
the note's key, the batch recorded in the manifest before and after its append, and only what
the log does not hold yet appended, so a write done again after a crash appends nothing."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any, Protocol

from zettelclaw import failpoints, lock
from zettelclaw.home import Home
from zettelclaw.importing import manifest as manifests
from zettelclaw.importing.items import Note
from zettelclaw.importing.manifest import Manifest, Record
from zettelclaw.index import entries
from zettelclaw.index.database import Index
from zettelclaw.index.freshness import Freshness
from zettelclaw.log.schema import ID_ALPHABET, ID_LENGTH, Entry, InvalidEntry, validate_entry
from zettelclaw.log.store import LogStore
from zettelclaw.subjects.registry import SubjectRegistry


class Memory(Protocol):
    """What of a memory (``app.App``) writing notes uses."""

    home: Home
    index: Index
    freshness: Freshness
    subjects: SubjectRegistry


def _note_id(import_id: str, key: str) -> str:
    digest = hashlib.blake2b(f"{import_id}\x00{key}".encode(), digest_size=ID_LENGTH).digest()
    return "".join(ID_ALPHABET[b % len(ID_ALPHABET)] for b in digest)


def timestamp(at: datetime | None) -> str:
    moment = at or datetime.now(UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_notes(app: Memory, current: Manifest, batch: list[tuple[str, Note]]) -> None:
    session = f"import:{current.id}"
    made: list[Entry] = []
    for key, note in batch:
        record = Record(source_id=note.source_id, what="note", origin=note.origin,
                        session=session)
        value: dict[str, Any] = {"id": _note_id(current.id, key), "timestamp": timestamp(note.at),
                                 "type": note.kind, "content": note.content, "session": session}
        if note.detail:
            value["detail"] = note.detail
        if note.subject:
            value["subject"] = note.subject
        if note.kind == "task":
            value["status"] = note.status or "open"
        try:
            entry = validate_entry(value)
        except InvalidEntry as exc:
            record.state, record.skipped = "done", f"not a valid entry: {exc.reason}"
            current.problems.append({"origin": note.origin, "message": record.skipped})
        else:
            record.entries = [entry.id]
            made.append(entry)
        current.items[key] = record
    manifests.save(app.home, current)
    failpoints.reach("import-after-manifest")
    _append_missing(app, made)
    failpoints.reach("import-after-append")
    for key, _ in batch:
        current.items[key].state = "done"
    manifests.save(app.home, current)


def _append_missing(app: Memory, made: list[Entry]) -> int:
    """Append the entries the log does not hold yet (nor holds hidden), under the data lock."""
    if not made:
        return 0
    with lock.exclusive(app.home.lock):
        app.freshness.sync(locked=True)
        with app.index.read() as conn:
            missing = [e for e in made if entries.get_entry(conn, e.id) is None
                       and not entries.is_hidden(conn, e.id)]
        subjects = {e.subject for e in missing if e.subject}
        if subjects:
            app.subjects.ensure_locked(subjects)
        if missing:
            LogStore(app.home).append_locked(missing)
            app.freshness.sync(locked=True)
    return len(missing)
