"""The team database's rules, held by Postgres itself (replicate/pg_schema.py): a member appends
and reads, purges only their own rows, and a removed member can do neither. A real Postgres 15
(tests/pg_server.py); slow: it starts a server."""

from __future__ import annotations

from typing import Any

import orjson
import psycopg
import pytest
from psycopg import errors as pg_errors

from tests.pg_server import PgServer
from zettelclaw.replicate import pg_schema, pg_store

pytestmark = pytest.mark.slow


def _line(entry_id: str, content: str = "a fact") -> tuple[str, str]:
    return entry_id, orjson.dumps({"id": entry_id, "timestamp": "2026-02-20T14:00:00Z",
                                   "type": "fact", "content": content,
                                   "session": "s"}).decode()


def _setup(server: PgServer, db: str, *members: str, admin: str | None = None) -> None:
    with pg_store.connect(server.dsn(db)) as conn:
        pg_store.init_schema(conn)
        pg_store.init_schema(conn)  # a second init changes nothing
        for name in (*members, *([admin] if admin else [])):
            conn.execute(f'CREATE ROLE "{name}" LOGIN')
            pg_store.run_all(conn, pg_schema.add_member(name))
        if admin:
            conn.execute(f'GRANT {pg_schema.ADMIN} TO "{admin}"')


def _conn(server: PgServer, db: str, user: str) -> Any:
    return pg_store.connect(server.dsn(db, user))


def test_members_append_read_and_purge_only_their_own(pg_team: tuple[PgServer, str]) -> None:
    server, db = pg_team
    alice, bob = f"{db}_alice", f"{db}_bob"
    _setup(server, db, alice, bob)
    with _conn(server, db, alice) as conn:
        pg_store.join(conn, "m-alice")
        assert pg_store.push(conn, "m-alice", [_line("aaaaaaaaaaa1"), _line("aaaaaaaaaaa2")]) == 2
        assert pg_store.push(conn, "m-alice", [_line("aaaaaaaaaaa1")]) == 0  # present by id
    with _conn(server, db, bob) as conn:
        pg_store.join(conn, "m-bob")
        pg_store.push(conn, "m-bob", [_line("bbbbbbbbbbb1")])
        pulled = pg_store.pull(conn, "m-bob", 0)
        assert [orjson.loads(x)["id"] for x in pulled.lines] == ["aaaaaaaaaaa1", "aaaaaaaaaaa2"]
        # bob's purge of alice's entry and his own: only his own goes
        done = pg_store.purge(conn, "m-bob", ["aaaaaaaaaaa1", "bbbbbbbbbbb1"])
        assert done.removed == ["bbbbbbbbbbb1"]
        assert done.refused == ["aaaaaaaaaaa1"]
    with _conn(server, db, bob) as conn:  # another's row is not there for his DELETE
        pg_store.push(conn, "m-bob", [_line("bbbbbbbbbbb3")])
        gone = conn.execute(f"DELETE FROM {pg_schema.SCHEMA}.entries WHERE id = 'aaaaaaaaaaa2'")
        assert gone.rowcount == 0
    with _conn(server, db, bob) as conn, pytest.raises(pg_errors.InsufficientPrivilege):
        # a plain DELETE of his own, not through a purge: refused (it would not be recorded)
        conn.execute(f"DELETE FROM {pg_schema.SCHEMA}.entries WHERE id = 'bbbbbbbbbbb3'")
    with _conn(server, db, bob) as conn, pytest.raises(pg_errors.InsufficientPrivilege):
        conn.execute(f"INSERT INTO {pg_schema.SCHEMA}.purged VALUES ('aaaaaaaaaaa2', 1)")
    with _conn(server, db, bob) as conn, pytest.raises(pg_errors.InsufficientPrivilege):
        # nor may he write under alice's name
        conn.execute(f"INSERT INTO {pg_schema.SCHEMA}.entries (id, machine, member, line) "
                     "VALUES (%s, 'm-bob', %s, %s)", ("bbbbbbbbbbb2", alice,
                                                      _line("bbbbbbbbbbb2")[1]))
    with _conn(server, db, bob) as conn:  # a purged id is never inserted again
        assert pg_store.push(conn, "m-bob", [_line("bbbbbbbbbbb1")]) == 0
        assert [p.ids for p in pg_store.unacknowledged(conn, "m-alice")] == [["bbbbbbbbbbb1"]]
        [mine] = pg_store.unacknowledged(conn, "m-bob")  # applied by its next round, as all
        pg_store.acknowledge(conn, "m-bob", mine.purge)
        assert pg_store.unacknowledged(conn, "m-bob") == []


def test_an_admin_purges_anyone_s_rows(pg_team: tuple[PgServer, str]) -> None:
    server, db = pg_team
    alice, boss = f"{db}_alice", f"{db}_boss"
    _setup(server, db, alice, admin=boss)
    with _conn(server, db, alice) as conn:
        pg_store.join(conn, "m-alice")
        pg_store.push(conn, "m-alice", [_line("aaaaaaaaaaa1")])
    with _conn(server, db, boss) as conn:
        pg_store.join(conn, "m-boss")
        assert pg_store.purge(conn, "m-boss", ["aaaaaaaaaaa1"]).removed == ["aaaaaaaaaaa1"]


def test_a_removed_member_can_no_longer_read_or_write(pg_team: tuple[PgServer, str]) -> None:
    server, db = pg_team
    alice, carol = f"{db}_alice", f"{db}_carol"
    _setup(server, db, alice, carol)
    with _conn(server, db, carol) as conn:
        pg_store.join(conn, "m-carol")
        pg_store.push(conn, "m-carol", [_line("ccccccccccc1")])
    with pg_store.connect(server.dsn(db)) as conn:
        pg_store.run_all(conn, pg_schema.remove_member(carol))
    for attempt in (lambda c: pg_store.pull(c, "m-carol", 0),
                    lambda c: pg_store.push(c, "m-carol", [_line("ccccccccccc2")])):
        with pytest.raises(pg_store.TeamDbError, match="not allowed"), \
                _conn(server, db, carol) as conn:
            attempt(conn)
    with _conn(server, db, alice) as conn:  # her rows stay for the others
        assert len(pg_store.pull(conn, "m-alice", 0).lines) == 1


def test_a_line_whose_id_is_not_the_row_s_is_refused(pg_team: tuple[PgServer, str]) -> None:
    server, db = pg_team
    alice = f"{db}_alice"
    _setup(server, db, alice)
    with pytest.raises(psycopg.errors.CheckViolation), _conn(server, db, alice) as conn:
        pg_store.push(conn, "m-alice", [("aaaaaaaaaaa9", _line("aaaaaaaaaaa1")[1])])


def test_an_unreachable_database_is_said_so() -> None:
    with pytest.raises(pg_store.TeamDbError, match="unreachable") as caught, \
            pg_store.connect("host=/nonexistent-zc port=5432 dbname=x user=y"):
        pass
    assert caught.value.reachable is False
    assert pg_store.redact("host=h password=s3cret user=u") == "host=h password=*** user=u"
    assert pg_store.redact("postgresql://u:s3cret@h/db") == "postgresql://u:***@h/db"


def test_a_machine_belongs_to_the_role_that_joined_it(pg_team: tuple[PgServer, str]) -> None:
    server, db = pg_team
    alice, bob = f"{db}_alice", f"{db}_bob"
    _setup(server, db, alice, bob)
    with _conn(server, db, alice) as conn:
        pg_store.join(conn, "m-shared")
    with pytest.raises(pg_store.TeamDbError, match="under another role"), \
            _conn(server, db, bob) as conn:
        pg_store.join(conn, "m-shared")
