"""Exactly-once extraction under kill -9: the sidecar dies at every point of a job's life, starts
again, and finishes the job with no entry lost and none written twice.

The sidecar runs as a real subprocess. It is killed either by itself at a named failpoint
(``ZETTELCLAW_FAILPOINT``: a SIGKILL at exactly that line) or by the test while its model call is
in flight. The model is a fake Messages API on 127.0.0.1, called through the real SDK.
"""

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

from tests.fakes.anthropic_api import FakeAnthropic, Reply
from tests.timing import scaled
from zettelclaw.client import Client, SidecarUnavailableError

pytestmark = pytest.mark.slow  # kills a sidecar process at each fail point and starts it again

ZETTELCLAW = str(Path(sys.executable).parent / "zettelclaw")
REPLY = "\n".join([
    '{"type":"decision","content":"Postgres for billing","subject":"billing-service"}',
    '{"type":"task","content":"Provision the billing database","status":"open"}',
    '{"type":"fact","content":"The billing team is three people","subject":"billing-service"}',
    '{"type":"handoff","content":"Billing database chosen; provisioning next"}',
])
CONTENTS = ["Postgres for billing", "Provision the billing database",
            "The billing team is three people", "Billing database chosen; provisioning next"]
HOOK = {"sessionId": "crash-1", "sessionKey": "agent:main:main", "messages": [
    {"role": "user", "content": "We use Postgres for billing; the team is three people.",
     "timestamp": 1_795_000_000_000},
    {"role": "assistant", "content": [{"type": "text", "text": "Noted."}],
     "timestamp": 1_795_000_001_000}]}


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    api = FakeAnthropic().start()
    api.default = Reply(text=REPLY)
    yield api
    api.stop()


class Sidecar:
    def __init__(self, home: Path, socket: Path, fake: FakeAnthropic) -> None:
        self.home, self.socket, self.fake = home, socket, fake
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, failpoint: str | None = None) -> None:
        self.stop()  # the previous process, if any (dead by now in these tests)
        env = {k: v for k, v in os.environ.items() if not k.startswith("ZETTELCLAW_")}
        env.update(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=self.fake.url)
        # no --workspace here: never let a briefing write the developer's own MEMORY.md
        env["ZETTELCLAW_CRON_SCHEDULE"] = "off"
        if failpoint:
            env["ZETTELCLAW_FAILPOINT"] = failpoint
        self.proc = subprocess.Popen(
            [ZETTELCLAW, "serve", "--home", str(self.home), "--socket", str(self.socket),
             "--set", "extraction.retryWaitSeconds=0.05", "--set", "search.semantic=off"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        assert self.proc.stdout is not None
        ready = self.proc.stdout.readline()  # the ready line: serving from here on
        assert b"listening on" in ready, ready

    def died_of_sigkill(self) -> bool:
        assert self.proc is not None
        code = self.proc.wait(timeout=scaled(20))
        return code == -signal.SIGKILL

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=scaled(20))
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self.proc = None

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        with Client(self.socket, timeout=scaled(20)) as client:
            return client.call(method, params)

    def settle(self) -> None:
        deadline = time.monotonic() + scaled(20)
        while self.call("jobs.list")["jobs"]:
            assert time.monotonic() < deadline, self.call("jobs.list")
            time.sleep(0.02)


@pytest.fixture
def sidecar(tmp_path: Path, short_dir: Path, fake: FakeAnthropic) -> Iterator[Sidecar]:
    car = Sidecar(tmp_path / "home", short_dir / "s.sock", fake)
    yield car
    car.stop()


def entries(home: Path) -> list[dict[str, Any]]:
    """The valid entries of the log (a torn fragment is not one)."""
    found = []
    for line in (home / "log.jsonl").read_bytes().splitlines():
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        found.append(value)
    return found


def assert_exactly_once(sidecar: Sidecar) -> None:
    contents = [e["content"] for e in entries(sidecar.home)]
    assert sorted(contents) == sorted(CONTENTS), contents
    assert len({e["id"] for e in entries(sidecar.home)}) == len(CONTENTS)
    again = sidecar.call("hook.sessionEnd", HOOK)  # the host sends the stretch once more
    assert "jobId" not in again
    assert not list((sidecar.home / "spool").glob("*.json"))


@pytest.mark.parametrize(("point", "model_calls"), [
    ("after-spool", 1),  # dies inside the hook: the job is durable, the hook never answered
    ("after-provenance", 1),
    ("before-model", 1),
    ("after-result", 1),  # the model's entries are saved: it is not asked again
    ("torn-append", 1),  # half the batch is in the log
    ("after-append", 1),  # all of it is in the log, the job not yet marked done
])
def test_kill_at_each_point_loses_nothing_and_duplicates_nothing(
        sidecar: Sidecar, point: str, model_calls: int) -> None:
    sidecar.start(failpoint=point)
    try:
        answer = sidecar.call("hook.sessionEnd", HOOK)
    except SidecarUnavailableError:
        answer = None  # killed before it could answer: the host would send it again
    assert sidecar.died_of_sigkill()
    if point in ("after-spool", "after-provenance"):
        assert answer is None
    sidecar.start()
    if answer is None:  # the host did not get an answer, so it delivers the stretch again
        sidecar.call("hook.sessionEnd", HOOK)
    sidecar.settle()
    assert_exactly_once(sidecar)
    assert len(sidecar.fake.requests) == model_calls
    invalid = sidecar.call("status")["invalidLines"]["count"]
    assert invalid == (1 if point == "torn-append" else 0)  # the torn fragment, kept, skipped


def test_kill_during_the_model_call(sidecar: Sidecar, fake: FakeAnthropic) -> None:
    fake.add(Reply(text=REPLY, hold=True))
    sidecar.start()
    assert sidecar.call("hook.sessionEnd", HOOK)["jobId"]
    deadline = time.monotonic() + 20
    while not fake.requests:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert sidecar.proc is not None
    sidecar.proc.kill()
    assert sidecar.died_of_sigkill()
    fake.release()  # the first call's answer goes nowhere
    sidecar.start()
    sidecar.settle()
    assert_exactly_once(sidecar)
    assert len(fake.requests) == 2  # asked again: the first answer was never saved
