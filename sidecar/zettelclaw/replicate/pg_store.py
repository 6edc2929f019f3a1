"""The team database, as one machine uses it (psycopg 3, blocking: run in a worker thread).

Every statement a sidecar sends to the team's Postgres is here; what they may do is the
schema's (``pg_schema``: roles and row-level security), never this module's word. A machine
pushes its own lines (inserted if absent by id), pulls the others' after its cursor (``seq``,
numbered in commit order), applies the purges it has not acknowledged, and acknowledges them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg import errors as pg_errors

from zettelclaw.replicate import pg_schema
from zettelclaw.replicate.pg_schema import SCHEMA

CONNECT_TIMEOUT = 5  # seconds: an unreachable server is said so, not waited on
PULL_BATCH = 5000
PUSH_BATCH = 2000


class TeamDbError(Exception):
    """The team database cannot be used: unreachable, not set up, or the role is not a
    member. ``reachable``: False when no connection could be made at all."""

    def __init__(self, message: str, *, reachable: bool = True) -> None:
        super().__init__(message)
        self.reachable = reachable


def redact(dsn: str) -> str:
    """The DSN as it may be shown or written: without a password."""
    dsn = re.sub(r"(?i)\bpassword\s*=\s*('(?:[^'\\]|\\.)*'|\S+)", "password=***", dsn)
    return re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", dsn)


def has_password(dsn: str) -> bool:
    return redact(dsn) != dsn


def open_connection(dsn: str, *, autocommit: bool = False) -> psycopg.Connection[Any]:
    """A new connection (blocking up to ``CONNECT_TIMEOUT``: call it from a worker thread in
    the sidecar); TeamDbError when none can be made."""
    try:
        return psycopg.connect(dsn, connect_timeout=CONNECT_TIMEOUT, autocommit=autocommit,
                               application_name="zettelclaw")
    except psycopg.OperationalError as exc:
        raise TeamDbError(f"the team database is unreachable ({redact(dsn)}): "
                          f"{_first_line(exc)}", reachable=False) from exc


@contextmanager
def translated() -> Iterator[None]:
    """The database's errors as TeamDbError, said for a person."""
    try:
        yield
    except pg_errors.InsufficientPrivilege as exc:
        if 'table "machines"' in str(exc):
            raise TeamDbError("not allowed: this data directory joined the team under another "
                              "role (a machine belongs to the role that joined it first); use "
                              "that role's DSN") from exc
        raise TeamDbError(f"not allowed: {_first_line(exc)} (is this role a member of "
                          f"{pg_schema.MEMBER}?)") from exc
    except pg_errors.UndefinedTable as exc:
        raise TeamDbError("the team database is not set up: run `zettelclaw team init` "
                          "with an administrator's DSN") from exc
    except psycopg.OperationalError as exc:
        raise TeamDbError(f"the team database went away: {_first_line(exc)}",
                          reachable=False) from exc


@contextmanager
def connect(dsn: str, *, autocommit: bool = False) -> Iterator[psycopg.Connection[Any]]:
    """``open_connection``, committed and closed at the end (rolled back on an error)."""
    conn = open_connection(dsn, autocommit=autocommit)
    with translated(), conn:
        yield conn


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def init_schema(conn: psycopg.Connection[Any]) -> None:
    """Create (or leave as is) the schema, roles, triggers and policies (``pg_schema``)."""
    for statement in pg_schema.statements():
        conn.execute(statement)  # (built from constants only)


def ensure_schema(conn: psycopg.Connection[Any]) -> bool:
    """Set the database up when it is not (an administrator's role: it creates roles); True
    when it did. A member joining a database set up already needs no such rights."""
    found = conn.execute("SELECT to_regclass(%s)", (f"{SCHEMA}.meta",)).fetchone()
    if found is not None and found[0] is not None:
        return False
    init_schema(conn)
    return True


def run_all(conn: psycopg.Connection[Any], statements: Sequence[str]) -> None:
    for statement in statements:
        conn.execute(statement)  # (roles checked by pg_schema)


def join(conn: psycopg.Connection[Any], machine: str) -> None:
    """Make this machine known (its cursor row), once; its member is the connecting role. A
    machine joined under another role is refused (row-level security), said by ``translated``.
    Nothing is written when it is known (a round that moves nothing costs no WAL flush)."""
    conn.execute(f"INSERT INTO {SCHEMA}.machines (machine) VALUES (%s) "
                 "ON CONFLICT (machine) DO NOTHING", (machine,))
    row = conn.execute(f"SELECT member = current_user FROM {SCHEMA}.machines "
                       "WHERE machine = %s", (machine,)).fetchone()
    if row is None or not row[0]:
        raise pg_errors.InsufficientPrivilege(
            'new row violates row-level security policy for table "machines"')


def push(conn: psycopg.Connection[Any], machine: str, lines: Sequence[tuple[str, str]]) -> int:
    """Insert ``(id, line)`` pairs absent by id; how many were new."""
    added = 0
    for start in range(0, len(lines), PUSH_BATCH):
        batch = lines[start:start + PUSH_BATCH]
        cur = conn.execute(
            f"INSERT INTO {SCHEMA}.entries (id, machine, line) "
            "SELECT i, %s, l FROM unnest(%s::text[], %s::text[]) AS t(i, l) "
            "ON CONFLICT (id) DO NOTHING",
            (machine, [i for i, _ in batch], [line for _, line in batch]))
        added += max(cur.rowcount, 0)
    return added


@dataclass(frozen=True)
class Pulled:
    rows: list[tuple[int, str, str]]  # the other machines' (seq, machine, line), in seq order
    cursor: int  # the last seq seen (own rows included)

    @property
    def lines(self) -> list[str]:
        return [line for _, _, line in self.rows]


def pull(conn: psycopg.Connection[Any], machine: str, after: int, limit: int = PULL_BATCH
         ) -> Pulled:
    rows = conn.execute(f"SELECT seq, machine, line FROM {SCHEMA}.entries WHERE seq > %s "
                        "ORDER BY seq LIMIT %s", (after, limit)).fetchall()
    return Pulled([row for row in rows if row[1] != machine], rows[-1][0] if rows else after)


def set_pulled(conn: psycopg.Connection[Any], machine: str, cursor: int) -> None:
    conn.execute(f"UPDATE {SCHEMA}.machines SET pulled = %s, seen_at = now() "
                 "WHERE machine = %s", (cursor, machine))


@dataclass(frozen=True)
class Purge:
    purge: int
    ids: list[str]


def unacknowledged(conn: psycopg.Connection[Any], machine: str) -> list[Purge]:
    """The purges this machine has not applied yet, oldest first, with the ids they took."""
    rows = conn.execute(
        "SELECT p.purge, coalesce(array_agg(d.id) FILTER (WHERE d.id IS NOT NULL), "
        "'{}') FROM " + f"{SCHEMA}.purges p LEFT JOIN {SCHEMA}.purged d USING (purge) "
        f"WHERE NOT EXISTS (SELECT 1 FROM {SCHEMA}.acks a WHERE a.purge = p.purge "
        "AND a.machine = %s) GROUP BY p.purge ORDER BY p.purge", (machine,)).fetchall()
    return [Purge(purge, list(ids)) for purge, ids in rows]


def acknowledge(conn: psycopg.Connection[Any], machine: str, purge: int) -> None:
    conn.execute(f"INSERT INTO {SCHEMA}.acks (purge, machine) VALUES (%s, %s) "
                 "ON CONFLICT DO NOTHING", (purge, machine))


@dataclass(frozen=True)
class Purged:
    purge: int
    removed: list[str]  # the ids deleted in the database
    refused: list[str]  # in the database, but another member's: not this role's to purge


def purge(conn: psycopg.Connection[Any], machine: str, ids: Sequence[str]) -> Purged:
    """Delete ``ids`` this role may delete, recorded as one purge (never inserted again).

    Not acknowledged here: this machine applies it to its own log as the others do (its next
    round), so a crash between the commit and the local purge loses nothing."""
    row = conn.execute(f"INSERT INTO {SCHEMA}.purges (machine, asked) VALUES (%s, %s) "
                       "RETURNING purge", (machine, len(ids))).fetchone()
    assert row is not None
    number = int(row[0])
    conn.execute("SELECT set_config(%s, %s, true)", (f"{SCHEMA}.purge", str(number)))
    removed = [r[0] for r in conn.execute(
        f"DELETE FROM {SCHEMA}.entries WHERE id = ANY(%s) RETURNING id", (list(ids),))]
    left = [r[0] for r in conn.execute(
        f"SELECT id FROM {SCHEMA}.entries WHERE id = ANY(%s)", (list(ids),))]
    return Purged(number, sorted(removed), sorted(left))


@dataclass
class MachineState:
    machine: str
    member: str
    pulled: int
    seen_at: str
    unacknowledged: list[int] = field(default_factory=list)
    since: str | None = None  # the oldest unacknowledged purge's time


@dataclass
class DbStatus:
    version: str | None
    entries: int
    last_seq: int
    purges: int
    machines: list[MachineState]


def status(conn: psycopg.Connection[Any]) -> DbStatus:
    version = conn.execute(f"SELECT value FROM {SCHEMA}.meta WHERE key = 'version'").fetchone()
    count = conn.execute(f"SELECT count(*), coalesce(max(seq), 0) FROM {SCHEMA}.entries"
                         ).fetchone()
    purges = conn.execute(f"SELECT count(*) FROM {SCHEMA}.purges").fetchone()
    assert count is not None
    assert purges is not None
    machines = []
    for machine, member, pulled, seen_at in conn.execute(
            f"SELECT machine, member, pulled, seen_at FROM {SCHEMA}.machines ORDER BY machine"):
        state = MachineState(machine, member, pulled, seen_at.isoformat(timespec="seconds"))
        for number, at in _unacked(conn, machine):
            state.unacknowledged.append(number)
            state.since = state.since or at
        machines.append(state)
    return DbStatus(version[0] if version else None, count[0], count[1], purges[0], machines)


def _unacked(conn: psycopg.Connection[Any], machine: str) -> list[tuple[int, str]]:
    rows = conn.execute(
        f"SELECT p.purge, p.at FROM {SCHEMA}.purges p WHERE NOT EXISTS (SELECT 1 FROM "
        f"{SCHEMA}.acks a WHERE a.purge = p.purge AND a.machine = %s) ORDER BY p.purge",
        (machine,)).fetchall()
    return [(int(n), at.isoformat(timespec="seconds")) for n, at in rows]


def wake(conn: psycopg.Connection[Any]) -> int:
    """Wake every member's sidecar (a round now); the last seq there is."""
    conn.execute("SELECT pg_notify(%s, 'sync')", (pg_schema.CHANNEL,))
    row = conn.execute(f"SELECT coalesce(max(seq), 0) FROM {SCHEMA}.entries").fetchone()
    assert row is not None
    return int(row[0])


def listen(conn: psycopg.Connection[Any]) -> None:
    """Subscribe ``conn`` (autocommit) to the team's notifications."""
    conn.execute(f"LISTEN {pg_schema.CHANNEL}")
