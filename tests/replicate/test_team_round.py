"""A team memory through a real Postgres 15 (replicate/team.py): three machines (separate data
directories) share one memory; nothing lost, nothing duplicated; a purge reaches every copy,
and a machine offline during it does not bring the entries back; the server stopped and
started again. Slow: each test uses a real server (tests/pg_server.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import orjson
import pytest

from tests.conftest import entry, line
from tests.direct import open_app
from tests.pg_server import PgServer
from zettelclaw import failpoints, lock
from zettelclaw.app import App
from zettelclaw.forget import service as forget
from zettelclaw.forget.select import Criteria
from zettelclaw.home import Home
from zettelclaw.log.store import LogStore
from zettelclaw.replicate import pg_schema, pg_store, team

pytestmark = pytest.mark.slow


class Machine:
    def __init__(self, root: Path, name: str, dsn: str) -> None:
        self.home = Home(root / name / "data")
        self.home.ensure()
        (root / name / "ws").mkdir(parents=True)
        self.app: App = open_app(self.home, root / name / "ws")
        self.dsn = dsn
        team.save_dsn(self.home, dsn)

    def write(self, *contents: str) -> list[str]:
        values = [entry(content=c) for c in contents]
        with lock.exclusive(self.home.lock):
            LogStore(self.home).append_lines_locked(b"".join(line(v) for v in values))
        return [v["id"] for v in values]

    def round(self) -> team.Round:
        with pg_store.connect(self.dsn) as conn:
            return team.sync_once(self.home, conn, self.purge_local)

    def purge_local(self, ids: list[str]) -> None:
        forget.purge_ids(self.app, ids)

    def ids(self) -> list[str]:
        return [orjson.loads(raw)["id"] for raw in self.home.log.read_bytes().splitlines()
                if raw.strip()]


@pytest.fixture
def team_of_three(pg_team: tuple[PgServer, str], tmp_path: Path
                  ) -> Iterator[tuple[PgServer, list[Machine]]]:
    server, db = pg_team
    names = ["alice", "bob", "carol"]
    with pg_store.connect(server.dsn(db)) as conn:
        pg_store.init_schema(conn)
        for name in names:
            conn.execute(f'CREATE ROLE "{db}_{name}" LOGIN')
            pg_store.run_all(conn, pg_schema.add_member(f"{db}_{name}"))
    with ExitStack() as stack:
        machines = [Machine(tmp_path, n, server.dsn(db, f"{db}_{n}")) for n in names]
        for m in machines:
            stack.callback(m.app.close)
        yield server, machines


def _all_rounds(machines: list[Machine]) -> None:
    for _ in range(2):  # the second lets each take what the others pushed in the first
        for m in machines:
            m.round()


def test_three_machines_end_with_one_set_each_id_once(
        team_of_three: tuple[PgServer, list[Machine]]) -> None:
    _, machines = team_of_three
    written = [m.write(*(f"{i} from {n}" for i in range(30))) for n, m in
               zip("abc", machines, strict=True)]
    _all_rounds(machines)
    every = sorted(i for ids in written for i in ids)
    for m in machines:
        assert sorted(m.ids()) == every  # all of them, each once
    assert [m.round().appended for m in machines] == [0, 0, 0]  # nothing more to take
    assert all(m.round().pushed == 0 for m in machines)  # nor to publish (taken: not own)


def test_concurrent_writers_50k_nothing_lost_nothing_duplicated(
        team_of_three: tuple[PgServer, list[Machine]]) -> None:
    _, machines = team_of_three
    per_machine = 50_000 // 3 + 1
    errors: list[BaseException] = []

    def writer(m: Machine, tag: str) -> None:
        try:
            for start in range(0, per_machine, 2000):
                m.write(*(f"{tag} {n}" for n in range(start, min(start + 2000, per_machine))))
                m.round()  # rounds race each other's commits on the server
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(m, t))
               for m, t in zip(machines, "abc", strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    _all_rounds(machines)
    for m in machines:
        ids = m.ids()
        assert len(ids) == 3 * per_machine
        assert len(set(ids)) == len(ids)


def test_a_purge_reaches_every_copy_and_an_offline_machine_does_not_bring_it_back(
        team_of_three: tuple[PgServer, list[Machine]]) -> None:
    server, (alice, bob, carol) = team_of_three
    secret = alice.write("the door code is 4471")[0]
    kept = alice.write("the office opens at nine")[0]
    _all_rounds([alice, bob, carol])
    assert secret in carol.ids()
    with pg_store.connect(alice.dsn) as conn:
        done = team.purge_ids(alice.home, conn, [secret])
    assert done.removed == [secret]
    alice.round()
    bob.round()  # carol is offline: she has not rounded since
    for m in (alice, bob):
        assert secret not in m.ids()
    with pg_store.connect(server.dsn(server_db(alice))) as conn:
        machines = {s.machine: s for s in pg_store.status(conn).machines}
    from zettelclaw.replicate.ingest import Replica
    assert machines[Replica(carol.home).machine_id].unacknowledged == [done.purge]
    assert machines[Replica(alice.home).machine_id].unacknowledged == []
    # carol comes back holding the entry, and a new one
    carol.write("lunch is at noon")
    carol.round()
    assert secret not in carol.ids()
    _all_rounds([alice, bob, carol])
    for m in (alice, bob, carol):
        assert secret not in m.ids()
        assert kept in m.ids()
        assert not any("4471" in raw for raw in m.home.log.read_text().splitlines())


def test_another_member_s_entries_are_not_purged(
        team_of_three: tuple[PgServer, list[Machine]]) -> None:
    _, (alice, bob, _) = team_of_three
    theirs = alice.write("alice's note")[0]
    _all_rounds([alice, bob])
    with pg_store.connect(bob.dsn) as conn:
        done = team.purge_ids(bob.home, conn, [theirs])
    assert done.refused == [theirs]
    _all_rounds([alice, bob])
    assert theirs in alice.ids()
    assert theirs in bob.ids()


def test_the_server_stopped_local_work_goes_on_and_catches_up_once(
        team_of_three: tuple[PgServer, list[Machine]]) -> None:
    server, (alice, bob, carol) = team_of_three
    first = alice.write("before the outage")
    _all_rounds([alice, bob, carol])
    server.stop()
    try:
        during = alice.write("during the outage") + bob.write("also during")
        with pytest.raises(pg_store.TeamDbError, match="unreachable") as caught:
            alice.round()
        assert caught.value.reachable is False
        assert set(during[:1]) <= set(alice.ids())  # the local log took it all the same
    finally:
        server.start()
    _all_rounds([alice, bob, carol])
    for m in (alice, bob, carol):
        ids = m.ids()
        assert set(first + during) <= set(ids)
        assert len(ids) == len(set(ids)) == 3


def server_db(machine: Machine) -> str:
    return next(p.split("=", 1)[1] for p in machine.dsn.split() if p.startswith("dbname="))


def test_a_purge_made_here_by_forget_reaches_the_team(
        team_of_three: tuple[PgServer, list[Machine]]) -> None:
    _, (alice, bob, carol) = team_of_three
    mine = alice.write("a note alice regrets")[0]
    bobs = bob.write("bob's note")[0]
    _all_rounds([alice, bob, carol])
    # `zettelclaw forget --purge` on alice's copy: her own entry, and bob's
    for entry_id in (mine, bobs):
        forget.purge(alice.app, Criteria(ids=(entry_id,)), dry_run=False)
    alice.round()
    assert team.State.load(alice.home).refused == [bobs]  # bob's row is not hers to purge
    _all_rounds([alice, bob, carol])
    assert mine not in bob.ids()
    assert mine not in carol.ids()
    assert bobs in carol.ids()
    assert bobs not in alice.ids()  # purged here all the same, and not taken back


def _killed_round(machine: Machine, point: str) -> None:
    """A round in another process, SIGKILLed at ``point`` (failpoints.py)."""
    script = ("import sys\nfrom pathlib import Path\nfrom zettelclaw.home import Home\n"
              "from zettelclaw.replicate import pg_store, team\n"
              "def no_purge(ids): raise AssertionError(ids)\n"
              "with pg_store.connect(sys.argv[2]) as conn:\n"
              "    team.sync_once(Home(Path(sys.argv[1])), conn, no_purge)\n")
    done = subprocess.run([sys.executable, "-c", script, str(machine.home.root), machine.dsn],
                          env={**os.environ, failpoints.ENV: point}, capture_output=True,
                          timeout=120, check=False)
    assert done.returncode == -signal.SIGKILL, done.stderr


def test_kill_9_in_a_round_loses_and_duplicates_nothing(
        team_of_three: tuple[PgServer, list[Machine]]) -> None:
    server, (alice, bob, _) = team_of_three
    written = alice.write(*(f"note {n}" for n in range(50)))
    _killed_round(alice, failpoints.TEAM_POINTS[0])  # committed there, her cursor not saved
    assert alice.round().pushed == 0  # published again: each already there by id
    _killed_round(bob, "take-after-append")  # in his log, his pull cursor not saved
    assert bob.round().appended == 0  # taken again: each already in his log
    assert sorted(bob.ids()) == sorted(written)
    with pg_store.connect(server.dsn(server_db(alice))) as conn:
        assert pg_store.status(conn).entries == 50
