"""A team memory through the team's Postgres: the settings, and one machine's round.

A round (blocking; the sidecar's ``team_task`` runs it in a worker thread, ``zettelclaw team
sync`` without a sidecar in-process) does, in this order:

1. the purges this machine has not acknowledged: their ids are refused for good
   (``Replica.add_purged``), purged from the local log, then acknowledged;
2. this machine's own lines since its cursor (``Replica.own_lines_since``), inserted if absent
   by id, the cursor saved once they are committed;
3. the other machines' lines after its pull cursor, appended to the local log
   (``Replica.take_foreign``: each id once), the cursor saved after.

Each step commits before its cursor moves, so a crash or a lost connection anywhere repeats
work (deduplicated by id on both sides) and loses none. Purges come first: a machine that was
offline during one removes the entries before it could publish them again (and the database
refuses a purged id anyway: ``pg_schema``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import psycopg

from zettelclaw import failpoints, lock
from zettelclaw.files import atomic_write_json, read_json_object
from zettelclaw.home import Home
from zettelclaw.log.schema import now_timestamp
from zettelclaw.replicate import machine, pg_store
from zettelclaw.replicate.ids import IdFile
from zettelclaw.replicate.ingest import Cursor, ForeignLine, Replica

ENGINE = "team"  # the name of this engine's publish cursor (Replica.save_cursor)
SETTINGS_FILE = "team.json"
STATE_FILE = "team-state.json"
PUBLISH_BATCH = 10_000


class TeamSettingsError(ValueError):
    """``team init`` was given something it cannot keep (a DSN with a password)."""


def settings_path(home: Home) -> Path:
    return machine.directory(home) / SETTINGS_FILE


def configured(home: Home) -> bool:
    """Whether this memory is a team memory (cheap: one stat; the sidecar asks often)."""
    return (home.root / "replicate" / SETTINGS_FILE).exists()


def load_dsn(home: Home) -> str | None:
    value = read_json_object(settings_path(home))
    return None if value is None else str(value["dsn"])


def check_dsn(dsn: str) -> None:
    """A DSN ``team init`` may keep: never one with a password (libpq reads it from
    ``~/.pgpass`` or ``PGPASSWORD``)."""
    if pg_store.has_password(dsn):
        raise TeamSettingsError("the DSN holds a password, and zettelclaw writes no secret to "
                                "disk: put it in ~/.pgpass (libpq reads it there) or "
                                "PGPASSWORD, and give the DSN without it")


def save_dsn(home: Home, dsn: str) -> None:
    """Keep the DSN; another database than before starts both cursors over (inserts are
    idempotent)."""
    check_dsn(dsn)
    if load_dsn(home) not in (None, dsn):
        State().save(home)
        Replica(home).save_cursor(ENGINE, Cursor())
    atomic_write_json(settings_path(home), {"dsn": dsn, "since": now_timestamp()})


def leave(home: Home) -> bool:
    """Stop replicating this memory (the local log keeps what it has). True if it was on."""
    try:
        settings_path(home).unlink()
    except FileNotFoundError:
        return False
    return True


@dataclass
class State:
    """What ``team status`` shows without a database: the cursors and the last rounds."""

    pulled: int = 0
    pushed_total: int = 0
    appended_total: int = 0
    last_round: str | None = None
    last_error: str | None = None
    error_since: str | None = None
    reachable: bool | None = None
    refused: list[str] = field(default_factory=list)  # purged here, another member's there

    @classmethod
    def load(cls, home: Home) -> State:
        value = read_json_object(machine.directory(home) / STATE_FILE) or {}
        known = {k: v for k, v in value.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def save(self, home: Home) -> None:
        atomic_write_json(machine.directory(home) / STATE_FILE, asdict(self))

    def failed(self, home: Home, error: pg_store.TeamDbError) -> None:
        self.last_error = str(error)
        self.error_since = self.error_since or now_timestamp()
        self.reachable = error.reachable
        self.save(home)


@dataclass
class Round:
    pushed: int = 0
    appended: int = 0
    purges: list[int] = field(default_factory=list)
    cursor: int = 0
    seconds: float = 0.0


def round_lock(home: Home) -> Path:
    """One round at a time per memory (the sidecar's task, or the CLI's)."""
    return machine.directory(home) / "team.lock"


PurgeLocal = Callable[[list[str]], object]  # forget's purge by id, given by the caller


def sync_once(home: Home, conn: psycopg.Connection[Any], purge_local: PurgeLocal) -> Round:
    """One round on ``conn`` (not in autocommit); see the module's docstring. ``purge_local``:
    the ids purged from this memory's log and everything derived from it (forget/)."""
    started = time.monotonic()
    replica = Replica(home)
    me = replica.machine_id
    done = Round()
    with lock.exclusive(round_lock(home)):
        state = State.load(home)
        pg_store.join(conn, me)  # committed with the round's first step
        handled = IdFile(machine.directory(home) / "team-purged")
        for purge in pg_store.unacknowledged(conn, me):
            apply_purge(replica, handled, purge.ids, purge_local)
            pg_store.acknowledge(conn, me, purge.purge)
            conn.commit()
            done.purges.append(purge.purge)
        state.refused += _publish_purges(replica, handled, conn, me)
        done.pushed = _publish(replica, conn, me)
        state.pushed_total += done.pushed
        while True:
            pulled = pg_store.pull(conn, me, state.pulled)
            if pulled.cursor == state.pulled:
                break
            taken = replica.take_foreign(ForeignLine(who, seq, line.encode())
                                         for seq, who, line in pulled.rows)
            done.appended += taken.appended
            state.pulled = pulled.cursor
            state.save(home)  # after the append: a crash before repeats it (each id once)
            pg_store.set_pulled(conn, me, state.pulled)
            conn.commit()
        conn.commit()  # (the join, when nothing else committed)
        state.appended_total += done.appended
        state.last_round = now_timestamp()
        state.last_error = state.error_since = None
        state.reachable = True
        state.save(home)
    done.cursor = state.pulled
    done.seconds = time.monotonic() - started
    return done


def _publish_purges(replica: Replica, handled: IdFile, conn: psycopg.Connection[Any],
                    me: str) -> list[str]:
    """A purge made here by any means (``zettelclaw forget --purge``, an import's rollback:
    ``Replica.purged``) goes to the database as a purge; the ids it refuses (another member's
    entries) are returned, to be said in ``team status``."""
    new = sorted(replica.purged.ids() - handled.ids())
    if not new:
        return []
    done = pg_store.purge(conn, me, new)
    conn.commit()
    with lock.exclusive(replica.home.lock):  # (an IdFile's writer holds it)
        handled.add(new)
    return done.refused


def _publish(replica: Replica, conn: psycopg.Connection[Any], me: str) -> int:
    cursor = replica.load_cursor(ENGINE)
    pushed = 0
    while True:
        own = replica.own_lines_since(cursor, limit=PUBLISH_BATCH)
        purged = replica.purged.ids() if own.lines else frozenset()
        fresh = [(line.id, line.data.decode()) for line in own.lines if line.id not in purged]
        if fresh:
            pushed += pg_store.push(conn, me, fresh)
            conn.commit()
            failpoints.reach("team-after-push")
        if own.cursor != cursor:
            replica.save_cursor(ENGINE, own.cursor)  # once committed: a crash before repeats
            cursor = own.cursor
        if not own.lines:
            return pushed


def apply_purge(replica: Replica, handled: IdFile, ids: list[str], purge_local: PurgeLocal
                ) -> None:
    """Remove a team purge's ids here: known as the database's (not published again), refused
    for good, then purged from the log and what was derived from it (forget/)."""
    if not ids:
        return
    with lock.exclusive(replica.home.lock):
        handled.add(ids)
        replica.add_purged(ids)
    purge_local(ids)


def purge_ids(home: Home, conn: psycopg.Connection[Any], ids: list[str]) -> pg_store.Purged:
    """A purge asked here (``team purge``; ``ids``: the entries and every version of each, as a
    local purge takes them), deleted in the database in one transaction, or nothing when some
    are another member's (``refused``). Every machine, this one included, applies it in its
    next round."""
    done = pg_store.purge(conn, Replica(home).machine_id, ids)
    if done.refused:
        conn.rollback()
    else:
        conn.commit()
    return done


def log_mark(home: Home) -> tuple[int, int] | None:
    """The log's inode and size: the sidecar's task rounds when it moves (a local write)."""
    try:
        st = os.stat(home.log)
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_size
