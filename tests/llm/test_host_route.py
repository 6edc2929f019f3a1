"""The host as a model route, end to end on a real socket: a sidecar process with no Anthropic
key, and a fake host (``tests/fakes/host_client.py``) that offers ``llm.complete`` as the
OpenClaw plugin does. Exactly-once holds when the host disconnects mid-call and when the
sidecar is killed between the host's answer and the append.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from tests.extraction import test_crash as crash
from tests.extraction.test_crash import (
    CONTENTS,
    HOOK,
    REPLY,
    ZETTELCLAW,
    Sidecar,
    assert_exactly_once,
    entries,
)
from tests.fakes.anthropic_api import FakeAnthropic
from tests.fakes.host_client import FakeHost
from zettelclaw.client import SidecarUnavailableError
from zettelclaw.llm.route import NO_ROUTE_AUTO

pytestmark = pytest.mark.slow  # sidecar processes, a host over the socket, kill -9


class KeylessSidecar(Sidecar):
    """test_crash's sidecar process, with no Anthropic key or base URL anywhere."""

    def __init__(self, home: Path, socket: Path, fake: FakeAnthropic) -> None:
        super().__init__(home, socket, fake)
        self.settings: list[str] = []
        self.key = False

    def start(self, failpoint: str | None = None) -> None:
        self.stop()
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ZETTELCLAW_", "ANTHROPIC_"))}
        if self.key:
            env.update(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=self.fake.url)
        env["ZETTELCLAW_CRON_SCHEDULE"] = "off"
        if failpoint:
            env["ZETTELCLAW_FAILPOINT"] = failpoint
        sets = [a for s in ["search.semantic=off", *self.settings] for a in ("--set", s)]
        with self.stderr.open("ab") as stderr:  # the sidecar's log, for wait_logged
            self.proc = subprocess.Popen(
                [ZETTELCLAW, "serve", "--home", str(self.home), "--socket", str(self.socket),
                 *sets], stdout=subprocess.PIPE, stderr=stderr, env=env)
        assert self.proc.stdout is not None
        assert b"listening on" in self.proc.stdout.readline()

    @property
    def stderr(self) -> Path:
        return self.home.parent / "sidecar.stderr"

    def wait_logged(self, text: str) -> None:
        """Wait until the sidecar's log says ``text``."""
        deadline = time.monotonic() + 20
        while text not in self.stderr.read_text():
            assert time.monotonic() < deadline, f"never logged: {text}"
            time.sleep(0.02)

    def jobs(self) -> list[dict[str, Any]]:
        listed: list[dict[str, Any]] = self.call("jobs.list")["jobs"]
        return listed

    def wait_job(self, predicate: Any, what: str) -> dict[str, Any]:
        deadline = time.monotonic() + 20
        while True:
            jobs = self.jobs()
            if jobs and predicate(jobs[0]):
                return jobs[0]
            assert time.monotonic() < deadline, f"{what}: {jobs}"
            time.sleep(0.02)


fake = crash.fake  # test_crash's fixture: the fake Messages API, answering REPLY


@pytest.fixture
def sidecar(tmp_path: Path, short_dir: Path, fake: FakeAnthropic) -> Iterator[KeylessSidecar]:
    car = KeylessSidecar(tmp_path / "home", short_dir / "s.sock", fake)
    yield car
    car.stop()


@pytest.fixture
def hosts() -> Iterator[list[FakeHost]]:
    started: list[FakeHost] = []
    yield started
    for host in started:
        host.stop()


def host(sidecar: Sidecar, hosts: list[FakeHost], **kwargs: Any) -> FakeHost:
    made = FakeHost(sidecar.socket, REPLY, **kwargs).start()
    hosts.append(made)
    return made


def test_without_a_key_the_hosts_model_extracts(sidecar: KeylessSidecar,
                                                hosts: list[FakeHost]) -> None:
    sidecar.start()
    route = sidecar.call("status")["extraction"]["route"]
    assert (route["active"], route["reason"], route["hosts"]) == (None, NO_ROUTE_AUTO, [])
    fake_host = host(sidecar, hosts)
    assert fake_host.offer_answer is not None
    answer = fake_host.offer_answer["result"]
    assert answer["accepted"] == ["llm.complete"]
    assert answer["route"]["active"] == "host"
    status = sidecar.call("status")["extraction"]
    assert status["route"]["hosts"] == [{"client": {"name": "fake-host", "version": "0"}}]
    assert status["apiKey"] is False
    assert status["baseUrl"] is None
    sidecar.call("hook.sessionEnd", HOOK)
    sidecar.settle()
    assert_exactly_once(sidecar)
    assert len(fake_host.requests) == 1
    assert sidecar.fake.requests == []
    params = fake_host.requests[0]["params"]
    assert params["purpose"] == "extraction"
    assert params["maxTokens"] == 4096
    assert params["timeoutMs"] == 120_000
    assert "model" not in params
    prompt = params["messages"][0]["content"]
    assert prompt.startswith("You are the memory extraction agent")  # prompts/extraction.md
    assert "We use Postgres for billing" in prompt


def test_a_waiting_job_goes_as_soon_as_a_host_offers(sidecar: KeylessSidecar,
                                                      hosts: list[FakeHost]) -> None:
    sidecar.settings = ["extraction.retryWaitSeconds=3600"]  # only the offer can wake it
    sidecar.start()
    sidecar.call("hook.sessionEnd", HOOK)
    job = sidecar.wait_job(lambda j: j["state"] == "waiting", "the job to wait")
    assert (job["route"], job["lastError"], job["attempts"]) == ("auto", NO_ROUTE_AUTO, 0)
    fake_host = host(sidecar, hosts)
    sidecar.settle()
    assert_exactly_once(sidecar)
    assert len(fake_host.requests) == 1


def test_the_host_gone_mid_call_makes_the_job_wait_then_a_new_host_finishes_it(
        sidecar: KeylessSidecar, hosts: list[FakeHost]) -> None:
    sidecar.settings = ["extraction.retryWaitSeconds=3600"]
    sidecar.start()
    leaving = host(sidecar, hosts, mode="drop")
    sidecar.call("hook.sessionEnd", HOOK)
    job = sidecar.wait_job(lambda j: j["state"] == "waiting", "the job to wait")
    assert job["attempts"] == 0
    assert job["route"] == "host"
    assert job["lastError"].startswith("the host went away during the call")
    assert not (sidecar.home / "log.jsonl").exists() or entries(sidecar.home) == []
    assert sidecar.call("status")["extraction"]["route"]["hosts"] == []
    back = host(sidecar, hosts, name="back")
    sidecar.settle()
    assert_exactly_once(sidecar)
    assert (len(leaving.requests), len(back.requests)) == (1, 1)


def test_killed_between_the_hosts_answer_and_the_append(sidecar: KeylessSidecar,
                                                         hosts: list[FakeHost]) -> None:
    sidecar.start(failpoint="after-result")
    first = host(sidecar, hosts)
    try:
        sidecar.call("hook.sessionEnd", HOOK)
    except SidecarUnavailableError:
        pytest.fail("the hook answers before the model is asked")
    assert sidecar.died_of_sigkill()
    assert len(first.requests) == 1
    sidecar.start()
    second = host(sidecar, hosts)
    sidecar.settle()
    assert_exactly_once(sidecar)
    assert second.requests == []  # the answer was saved: the host is not asked again


@pytest.mark.parametrize(("error", "expected"), [
    ((-32013, "no model configured for agent main"), ("waiting", 0,
     "the host's model cannot be asked now: no model configured for agent main")),
    ((-32014, "provider answered 500"), ("pending", 1,
     "the host's model failed: provider answered 500")),
    ((-32601, "Method not found"), ("waiting", 0,
     "the host answered llm.complete with error -32601: Method not found")),
])
def test_the_hosts_errors_wait_or_count_as_an_attempt(
        sidecar: KeylessSidecar, hosts: list[FakeHost], error: tuple[int, str],
        expected: tuple[str, int, str]) -> None:
    state, attempts, said = expected
    sidecar.settings = ["extraction.retryWaitSeconds=3600"]
    sidecar.start()
    host(sidecar, hosts, mode="error", error=error)
    sidecar.call("hook.sessionEnd", HOOK)
    job = sidecar.wait_job(lambda j: j["lastError"] is not None, "the job's error")
    assert (job["state"], job["attempts"], job["lastError"], job["route"]) == (
        state, attempts, said, "host")


def test_a_host_that_does_not_answer_in_time_is_a_failed_attempt(
        sidecar: KeylessSidecar, hosts: list[FakeHost]) -> None:
    sidecar.settings = ["extraction.retryWaitSeconds=3600", "extraction.timeoutSeconds=0.3"]
    sidecar.start()
    slow = host(sidecar, hosts, mode="hold")
    sidecar.call("hook.sessionEnd", HOOK)
    job = sidecar.wait_job(lambda j: j["attempts"] == 1, "the attempt to count")
    assert job["lastError"] == "the host's model did not answer within 0.3 s"
    slow.release()
    # the late answer arrives and is dropped: the sidecar says so as it reads it, and so nothing
    # from it can reach the log afterwards
    sidecar.wait_logged("a reply to no waiting request")
    assert not (sidecar.home / "log.jsonl").exists() or entries(sidecar.home) == []
    assert sidecar.call("status")["pid"]  # and the sidecar is fine


def test_route_anthropic_never_asks_the_host(sidecar: KeylessSidecar,
                                             hosts: list[FakeHost]) -> None:
    sidecar.settings = ["extraction.route=anthropic", "extraction.retryWaitSeconds=3600"]
    sidecar.start()
    fake_host = host(sidecar, hosts)
    sidecar.call("hook.sessionEnd", HOOK)
    job = sidecar.wait_job(lambda j: j["state"] == "waiting", "the job to wait")
    assert job["lastError"].endswith("(route anthropic)")
    assert job["route"] == "anthropic"
    assert fake_host.requests == []


def test_route_host_is_taken_even_with_a_key(sidecar: KeylessSidecar,
                                             hosts: list[FakeHost]) -> None:
    sidecar.key = True
    sidecar.settings = ["extraction.route=host", "extraction.hostModel=fake/other-model"]
    sidecar.start()
    fake_host = host(sidecar, hosts)
    sidecar.call("hook.sessionEnd", HOOK)
    sidecar.settle()
    assert_exactly_once(sidecar)
    assert sidecar.fake.requests == []
    assert fake_host.requests[0]["params"]["model"] == "fake/other-model"


def test_auto_prefers_the_anthropic_key_over_a_host(sidecar: KeylessSidecar,
                                                    hosts: list[FakeHost]) -> None:
    sidecar.key = True
    sidecar.start()
    fake_host = host(sidecar, hosts)
    assert sidecar.call("status")["extraction"]["route"]["active"] == "anthropic"
    sidecar.call("hook.sessionEnd", HOOK)
    sidecar.settle()
    assert_exactly_once(sidecar)
    assert len(sidecar.fake.requests) == 1
    assert fake_host.requests == []


def test_the_briefing_asks_the_hosts_model(sidecar: KeylessSidecar, hosts: list[FakeHost],
                                           tmp_path: Path) -> None:
    sidecar.start()
    fake_host = host(sidecar, hosts)
    # said now: its entries take the conversation's time, and the briefing asks about the
    # subjects active lately (briefing.activeWindow)
    said = int(time.time() * 1000)
    messages = cast(list[dict[str, Any]], HOOK["messages"])
    sidecar.call("hook.sessionEnd", {**HOOK, "messages": [
        {**m, "timestamp": said + i} for i, m in enumerate(messages)]})
    sidecar.settle()
    fake_host.reply = '{"subject":"billing-service","summary":"Postgres chosen; provisioning next"}'
    workspace = tmp_path / "ws"
    workspace.mkdir()
    result = sidecar.call("briefing.generate", {"workspaceDir": str(workspace), "dryRun": True})
    purposes = [r["params"]["purpose"] for r in fake_host.requests]
    assert purposes[0] == "extraction"
    assert "briefing" in purposes[1:]
    assert result["model"]["used"] is True
    assert "Postgres chosen; provisioning next" in result["block"]
    assert len(CONTENTS) == 4


RETIRED = "Plugin inventory has retired; begin a new plugin operation."  # OpenClaw 2026.9.6


def wait_route(sidecar: Sidecar, predicate: Any, what: str) -> dict[str, Any]:
    deadline = time.monotonic() + 20
    while True:
        route: dict[str, Any] = sidecar.call("status")["extraction"]["route"]
        if predicate(route):
            return route
        assert time.monotonic() < deadline, f"{what}: {route}"
        time.sleep(0.02)


@pytest.mark.parametrize("code", [-32013, -32014])  # -32014: a plugin from before the fix
def test_a_retired_host_handle_makes_the_job_wait_and_status_says_so(
        sidecar: KeylessSidecar, hosts: list[FakeHost], code: int) -> None:
    """OpenClaw retired the plugin's handle at a hot reload: the host's outage, not the job's
    failure; ``status`` names it while it lasts, and a new offer clears it."""
    sidecar.settings = ["extraction.retryWaitSeconds=3600"]
    sidecar.start()
    retired = host(sidecar, hosts, mode="error", error=(code, RETIRED))
    sidecar.call("hook.sessionEnd", HOOK)
    job = sidecar.wait_job(lambda j: j["lastError"] is not None, "the job's error")
    assert (job["state"], job["attempts"], job["route"]) == ("waiting", 0, "host")
    assert job["lastError"] == f"the host's model cannot be asked now: {RETIRED}"
    extraction = sidecar.call("status")["extraction"]
    assert extraction["route"]["active"] == "host"
    assert extraction["route"]["hosts"][-1]["unusable"] == RETIRED
    assert extraction["route"]["reason"].endswith(f"its model cannot be asked now: {RETIRED}")
    assert extraction["waitingFor"] == f"the host's model cannot be asked now: {RETIRED}"
    retired.stop()
    reloaded = host(sidecar, hosts, name="reloaded")  # the reloaded plugin offers anew
    sidecar.settle()
    assert_exactly_once(sidecar)
    assert len(reloaded.requests) == 1
    assert "unusable" not in sidecar.call("status")["extraction"]["route"]["hosts"][-1]


def test_a_withdrawn_offer_is_named_in_status_until_a_host_offers_again(
        sidecar: KeylessSidecar, hosts: list[FakeHost]) -> None:
    sidecar.start()
    leaving = host(sidecar, hosts, name="openclaw")
    leaving.withdraw("the plugin is being reloaded")
    route = wait_route(sidecar, lambda r: r["active"] is None, "the offer to be withdrawn")
    assert route["hosts"] == []
    assert route["reason"] == (f"{NO_ROUTE_AUTO} (openclaw 0's offer ended: the plugin is "
                               "being reloaded)")
    leaving.stop()
    back = host(sidecar, hosts, name="openclaw")
    route = sidecar.call("status")["extraction"]["route"]
    assert route["active"] == "host"
    assert "offer ended" not in route["reason"]
    back.stop()  # gone without a word: status says it went away
    route = wait_route(sidecar, lambda r: r["active"] is None, "the host to be gone")
    assert route["reason"] == f"{NO_ROUTE_AUTO} (openclaw 0's offer ended: its connection closed)"


def test_jobs_failed_for_a_retired_handle_are_retried_when_a_host_offers(
        sidecar: KeylessSidecar, hosts: list[FakeHost]) -> None:
    """A job an older plugin or sidecar marked failed because the handle was retired (two
    attempts burnt in a reload) goes again by itself once a host offers; other failures stay."""
    sidecar.settings = ["extraction.retryWaitSeconds=3600"]
    sidecar.start()
    sidecar.call("hook.sessionEnd", HOOK)
    job = sidecar.wait_job(lambda j: j["state"] == "waiting", "the job to wait")
    sidecar.stop()
    path = sidecar.home / "spool" / f"{job['jobId']}.json"
    saved = json.loads(path.read_text())
    saved.update(state="failed", attempts=2, route="host",
                 lastError=f"the host's model failed: {RETIRED}")
    path.write_text(json.dumps(saved))
    sidecar.start()
    assert sidecar.jobs()[0]["state"] == "failed"
    fake_host = host(sidecar, hosts)
    sidecar.settle()
    assert_exactly_once(sidecar)
    assert len(fake_host.requests) == 1
