"""A purge under kill -9: the sidecar dies at every step of a purge (failpoints), starts again,
and finishes it (purge.json): the purged entries and their copies are gone, every other entry is
there exactly once, and a later sweep does not bring the conversation back. The vault built
beforehand is scrubbed too (a kill before, during or after its step)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.conftest import entry
from tests.timing import scaled
from zettelclaw import failpoints
from zettelclaw.client import Client, SidecarUnavailableError

pytestmark = pytest.mark.slow  # a sidecar process killed and started again at each point

ZETTELCLAW = str(Path(sys.executable).parent / "zettelclaw")
FACT = "the spare key hides under the blue zucchini pot"
PURGE_POINTS = list(failpoints.PURGE_POINTS)
HOOK = {"sessionId": "s-key", "sessionKey": "agent:main:main", "reason": "new",
        "messages": [{"role": "user", "content": f"Remember: {FACT}.",
                      "timestamp": 1_795_000_000_000}]}


class Sidecar:
    def __init__(self, home: Path, socket: Path) -> None:
        self.home, self.socket = home, socket
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, failpoint: str | None = None) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ZETTELCLAW_")}
        env.pop("ANTHROPIC_API_KEY", None)
        env["ZETTELCLAW_CRON_SCHEDULE"] = "off"
        if failpoint:
            env[failpoints.ENV] = failpoint
        self.proc = subprocess.Popen(
            [ZETTELCLAW, "serve", "--home", str(self.home), "--socket", str(self.socket),
             "--set", "search.semantic=off"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        assert self.proc.stdout is not None
        assert b"listening on" in self.proc.stdout.readline()

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        with Client(self.socket, timeout=scaled(60)) as client:
            return client.call(method, params)

    def stop(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)
                self.proc.wait(timeout=scaled(30))
            assert self.proc.stdout is not None
            self.proc.stdout.close()
            self.proc = None


@pytest.fixture
def sidecar(tmp_path: Path, short_dir: Path) -> Iterator[Sidecar]:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    others = [entry("fact", f"other fact number {n}", session=f"s-{n % 7}") for n in range(300)]
    purged = [entry("fact", FACT, session="s-key"),
              entry("task", "buy a second zucchini pot", session="s-key")]
    lines = [orjson.dumps(e) + b"\n" for e in others[:150] + purged + others[150:]]
    (home / "log.jsonl").write_bytes(b"".join(lines))
    car = Sidecar(home, short_dir / "s.sock")
    car.start()
    assert car.call("hook.sessionEnd", HOOK)["accepted"]
    assert car.call("memory.search", {"query": "zucchini"})["results"]
    car.call("vault.build")  # the purge scrubs its pages and state too
    assert holding(home / "vault", "zucchini")
    assert holding(home / "vault-state", "zucchini")
    car.stop()
    yield car
    car.stop()


def entries(home: Path) -> list[dict[str, Any]]:
    return [v for v in (orjson.loads(raw) for raw in (home / "log.jsonl").read_bytes().splitlines()
                        if raw.strip()) if "content" in v]


def holding(root: Path, text: str) -> list[str]:
    found = subprocess.run(["grep", "-rlaF", text, str(root)], capture_output=True, text=True,
                           check=False)
    return found.stdout.split()


@pytest.mark.parametrize("point", PURGE_POINTS)
def test_a_purge_killed_at_each_step_is_finished_at_the_next_start(
        sidecar: Sidecar, point: str) -> None:
    sidecar.start(failpoint=point)
    with pytest.raises(SidecarUnavailableError):
        sidecar.call("memory.forget", {"session": "s-key", "purge": True})
    assert sidecar.proc is not None
    assert sidecar.proc.wait(timeout=scaled(30)) == -signal.SIGKILL
    sidecar.stop()
    sidecar.start()  # the purge is finished before the sidecar answers
    contents = [e["content"] for e in entries(sidecar.home)]
    assert sorted(contents) == sorted(f"other fact number {n}" for n in range(300))
    assert not (sidecar.home / "purge.json").exists()
    assert not list(sidecar.home.glob(".log.jsonl.*"))
    assert sidecar.call("memory.search", {"query": "zucchini"})["results"] == []
    assert sidecar.call("status")["entries"]["total"] == 300
    assert holding(sidecar.home, "zucchini") == []
    again = sidecar.call("hook.sessionEnd", HOOK)
    assert "jobId" not in again
