"""Three real sidecars (separate data directories, separate processes) sharing a team memory
through a real Postgres 15: what each remembers reaches the others through their background
tasks, each entry once; a member removed can no longer read or write, and their own memory
goes on locally. Slow: three sidecars and a server."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import orjson
import pytest

from tests.pg_server import PgServer

pytestmark = pytest.mark.slow

ZETTELCLAW = Path(sys.executable).with_name("zettelclaw")


class Sidecar:
    def __init__(self, root: Path, name: str, sock_dir: Path) -> None:
        self.home = root / name
        self.socket = sock_dir / f"{name}.sock"
        self.base = ["--home", str(self.home), "--socket", str(self.socket),
                     "--workspace", str(root / f"{name}-ws")]
        self.env = {**os.environ, "ZETTELCLAW_SEARCH_SEMANTIC": "off"}
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen([str(ZETTELCLAW), "serve", *self.base, "--set",
                                      "cron.schedule=off"], env=self.env,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert self.proc.stdout is not None
        ready = self.proc.stdout.readline()
        assert "listening on" in ready, ready

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(60)
            if self.proc.stdout is not None:
                self.proc.stdout.close()

    def cli(self, *argv: str, check: int = 0) -> str:
        done = subprocess.run([str(ZETTELCLAW), *argv, *self.base, "--agent", "team"],
                              check=False, env=self.env, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == check, done.stderr
        return done.stdout + done.stderr

    def ids(self) -> list[str]:
        log = self.home / "agents" / "team" / "log.jsonl"
        return [orjson.loads(x)["id"] for x in log.read_bytes().splitlines() if x.strip()]


@pytest.fixture
def three(pg_team: tuple[PgServer, str], tmp_path: Path, short_dir: Path
          ) -> Iterator[tuple[PgServer, str, list[Sidecar]]]:
    server, db = pg_team
    cars = [Sidecar(tmp_path, n, short_dir) for n in ("ann", "ben", "cat")]
    with ExitStack() as stack:
        cars[0].cli("team", "init", server.dsn(db))  # the administrator: sets the database up
        for car in cars[1:]:
            cars[0].cli("team", "member", "add", f"{db}_{car.home.name}")
            car.cli("team", "init", server.dsn(db, f"{db}_{car.home.name}"))
        for car in cars:
            car.start()
            stack.callback(car.stop)
        yield server, db, cars


def test_what_each_sidecar_remembers_reaches_the_others_once(
        three: tuple[PgServer, str, list[Sidecar]]) -> None:
    _, db, cars = three

    def remember(car: Sidecar) -> list[str]:
        said = []
        for n in range(4):  # each CLI call starts a Python: ~2 s here
            out = car.cli("remember", "fact", f"{car.home.name} says {n}", "--json")
            said.append(orjson.loads(out)["id"])
        return said

    with ThreadPoolExecutor(3) as pool:
        written = [i for ids in pool.map(remember, cars) for i in ids]
    for _ in range(2):  # each publishes all it holds, then takes all the database holds
        for car in cars:
            car.cli("team", "sync")
    for car in cars:
        ids = car.ids()
        assert sorted(ids) == sorted(written)

    # cat removed: her sidecar can neither read nor write the team memory any more
    cars[0].cli("team", "member", "remove", f"{db}_cat")
    later = orjson.loads(cars[0].cli("remember", "fact", "after cat left", "--json"))["id"]
    cars[0].cli("team", "sync")
    hers = orjson.loads(cars[2].cli("remember", "fact", "cat's own note", "--json"))["id"]
    assert "not allowed" in cars[2].cli("team", "sync", check=5)
    assert later not in cars[2].ids()
    assert hers in cars[2].ids()  # her memory goes on locally
    cars[1].cli("team", "sync")
    assert later in cars[1].ids()
    assert hers not in cars[1].ids()


def test_a_sidecar_follows_its_team_memory_without_being_asked(
        three: tuple[PgServer, str, list[Sidecar]]) -> None:
    """ann's sidecar opened the team memory at its start (nobody called it for that agent) and
    keeps it open: ben's entry lands in ann's log by itself."""
    _, _, (ann, ben, _) = three
    said = orjson.loads(ben.cli("remember", "fact", "ben's news", "--json"))["id"]
    deadline = time.monotonic() + 60
    while said not in ann.ids():
        assert time.monotonic() < deadline, "ann's sidecar did not take ben's entry"
        time.sleep(0.05)
