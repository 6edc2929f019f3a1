"""An import's rollback: what it wrote leaves the memory, and only that.

The purge (forget/) takes the entries its notes became, and its conversations' entries, copies
and spooled jobs; an entry written since by someone else that replaced one of them stays, named
in ``kept``. The host's own sessions (OpenClaw's, spooled under their real session ids) are
then released: the messages this import delivered are no longer recorded as received, so the
sessions can be imported again, as its other items can. The manifest stays, marked rolled back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from zettelclaw import lock
from zettelclaw.errors import NotFoundError
from zettelclaw.extraction.provenance import Provenance
from zettelclaw.forget import purge as purging
from zettelclaw.forget import service as forget_service
from zettelclaw.forget.select import Kept, Written
from zettelclaw.importing import manifest as manifests
from zettelclaw.importing.manifest import Manifest

IMPORT_SESSION = "import:"  # the prefix of a session an import made (not the host's)


@dataclass(frozen=True, slots=True)
class RolledBack:
    import_id: str
    state: str
    entries: int  # entries purged
    removed: purging.Removed | None  # the purge's counts
    # entries written since by others that replaced one the import wrote: they stay
    kept: list[Kept] = field(default_factory=list)


def rollback(app: forget_service.App, import_id: str) -> RolledBack:
    """Purge what the import wrote: its notes' entries, its conversations' entries, copies and
    jobs; nothing else (a correction the owner made since of an imported entry stays, and is
    named in ``kept``). Its manifest stays, marked rolled back (its items may be imported
    again, the host's sessions too)."""
    if import_id == "last":
        found = [m for m in manifests.every(app.home) if m.state != "rolledBack"]
        if not found:
            raise NotFoundError("no import to roll back", {"importId": import_id})
        import_id = found[-1].id
    current = manifests.load(app.home, import_id)
    if current.state == "rolledBack":
        return RolledBack(import_id=import_id, state=current.state, entries=0, removed=None)
    if current.state != "rollingBack":  # a rollback cut short keeps what it recorded first
        current.released = _delivered(Provenance(app.home), current)
    current.state = "rollingBack"
    manifests.save(app.home, current)
    written = Written(ids=frozenset(current.entry_ids()),
                      sessions=frozenset(current.spooled_sessions()))
    forgot = forget_service.purge_written(app, written)
    with lock.exclusive(app.home.lock):
        provenance = Provenance(app.home)
        for session, keys in current.released.items():
            provenance.release(session, set(keys))
    current.state = "rolledBack"
    manifests.save(app.home, current)
    return RolledBack(import_id=import_id, state=current.state, entries=forgot.changed,
                      removed=forgot.removed, kept=forgot.kept)


def _delivered(provenance: Provenance, current: Manifest) -> dict[str, list[str]]:
    """Per host session the import spooled, the keys of the messages its own jobs carried (not
    those the live path delivered before or after it)."""
    jobs = {r.job_id for r in current.items.values() if r.job_id is not None}
    sessions = {r.session for r in current.items.values()
                if r.job_id is not None and not r.session.startswith(IMPORT_SESSION)}
    found = {session: provenance.keys_of_jobs(session, jobs) for session in sorted(sessions)}
    return {session: keys for session, keys in found.items() if keys}
