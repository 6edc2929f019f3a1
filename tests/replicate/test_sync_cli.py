"""`zettelclaw sync` as people run it: without a sidecar (the files), and with two running
sidecars (two HOMEs) whose background sync carries an entry remembered on one to the other's
search with no command run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.replicate.sync_machines import bare
from zettelclaw.client import Client

pytestmark = pytest.mark.slow
ZETTELCLAW = str(Path(sys.executable).parent / "zettelclaw")


def env_for(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZETTELCLAW_")}
    env.pop("ANTHROPIC_API_KEY", None)
    env.update(HOME=str(home), ZETTELCLAW_CRON_SCHEDULE="off", ZETTELCLAW_SEARCH_SEMANTIC="off")
    return env


def zc(home: Path, *args: str, socket: Path | None = None) -> subprocess.CompletedProcess[str]:
    where = ["--socket", str(socket)] if socket else ["--no-sidecar"]
    return subprocess.run([ZETTELCLAW, *where, *args], env=env_for(home), capture_output=True,
                          text=True, check=False, timeout=300)


def test_sync_commands_without_a_sidecar(tmp_path: Path) -> None:
    remote = bare(tmp_path / "remote.git")
    one, two = tmp_path / "one", tmp_path / "two"
    for home in (one, two):
        home.mkdir()
    missing = zc(one, "sync")
    assert missing.returncode == 2
    assert "sync init REMOTE" in missing.stderr
    unreachable = zc(one, "sync", "init", str(tmp_path / "nowhere.git"))
    assert unreachable.returncode == 5
    assert "nowhere.git" in unreachable.stderr
    assert zc(one, "remember", "fact", "the", "boiler", "was", "serviced").returncode == 0
    made = zc(one, "sync", "init", str(remote), "--json")
    assert made.returncode == 0, made.stderr
    assert orjson.loads(made.stdout)["sync"]["pushed"] == 1
    assert zc(two, "sync", "init", str(remote)).returncode == 0
    found = zc(two, "search", "boiler", "--json")
    assert found.returncode == 0, found.stderr
    assert len(orjson.loads(found.stdout)["results"]) == 1
    status = orjson.loads(zc(two, "sync", "status", "--json").stdout)
    assert status["configured"]
    assert status["unpublished"] == 0
    assert len(status["machines"]) == 2
    assert status["last"]["ok"]
    text = zc(two, "sync", "status")
    assert "remote:" in text.stdout
    assert zc(two, "sync", "status", str(remote)).returncode == 2


class Sidecar:
    def __init__(self, home: Path, socket: Path) -> None:
        self.home, self.socket = home, socket
        env = env_for(home)
        self.proc = subprocess.Popen(
            [ZETTELCLAW, "serve", "--socket", str(socket), "--set", "sync.intervalSeconds=2",
             "--set", "sync.afterWriteSeconds=0.2"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        assert self.proc.stdout is not None
        assert b"listening on" in self.proc.stdout.readline()

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        with Client(self.socket, timeout=120) as client:
            return client.call(method, params)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=60)
        assert self.proc.stdout is not None
        self.proc.stdout.close()


@pytest.fixture
def two_sidecars(tmp_path: Path, short_dir: Path) -> Iterator[tuple[Sidecar, Sidecar]]:
    cars = []
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        cars.append(Sidecar(tmp_path / name, short_dir / f"{name}.sock"))
    yield cars[0], cars[1]
    for car in cars:
        car.stop()


def test_two_sidecars_sync_in_the_background(tmp_path: Path,
                                             two_sidecars: tuple[Sidecar, Sidecar]) -> None:
    one, two = two_sidecars
    remote = bare(tmp_path / "remote.git")
    for car in (one, two):
        made = zc(car.home, "sync", "init", str(remote), "--json", socket=car.socket)
        assert made.returncode == 0, made.stderr
    one.call("memory.remember", {"type": "fact", "content": "the ferry leaves at 07:40"})
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:  # a condition with a deadline, not a fixed wait
        if two.call("memory.search", {"query": "ferry"})["results"]:
            break
        time.sleep(0.1)
    else:
        pytest.fail("the entry did not reach the other sidecar within 90 s")
    status = zc(two.home, "sync", "status", "--json", socket=two.socket)
    assert orjson.loads(status.stdout)["last"]["ok"]
