"""methods/hooks.py without a socket: each conversation handed over, and each sweep, leaves one
line in the sidecar's log, so that an extraction that never came can be traced (the host's side
logs what it sent; these lines say what arrived and what the sidecar made of it)."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started
from tests.direct import open_pool
from zettelclaw.agents.pool import Agents
from zettelclaw.extraction.spool import Job
from zettelclaw.home import Home
from zettelclaw.methods import hooks as hook_methods
from zettelclaw.protocol.params import GatewayStartParams, HookTranscriptParams

SESSION = "58c12dc3-73d9-4119-ba35-8cba66b35ac5"
MESSAGES = [
    {"role": "user", "content": "We chose GREENFINCH for staging.", "timestamp": 1795234915428},
    {"role": "assistant", "content": [{"type": "text", "text": "Noted."}],
     "timestamp": 1795234916428},
]


@pytest.fixture
def pool(home: Home, workspace: Path) -> Iterator[Agents]:
    agents = open_pool(home, workspace)
    yield agents
    agents.close_all()


def _handler(pool: Agents, method: str) -> Any:
    handler = hook_methods.methods(pool)[method].handler

    async def call(params: Any) -> Any:  # the answer as sent
        return (await handler(params)).wire()

    return call


def _lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "zettelclaw.methods.hooks"]


async def test_a_spooled_conversation_is_logged_with_its_job(
        pool: Agents, caplog: pytest.LogCaptureFixture) -> None:
    params = HookTranscriptParams.model_validate(
        {"sessionId": SESSION, "sessionKey": "agent:main:main", "messages": MESSAGES})
    with caplog.at_level(logging.INFO, logger="zettelclaw.methods.hooks"):
        first = await _handler(pool, "hook.beforeReset")(params)
        again = await _handler(pool, "hook.beforeReset")(params)  # nothing new: no job, no line
    assert "jobId" in first
    assert "jobId" not in again
    assert _lines(caplog) == [
        f"agent main: beforeReset of session {SESSION}: 2 new message(s), job {first['jobId']}"]


async def test_a_sweep_is_logged_per_agent_with_what_it_answered(
        pool: Agents, home: Home, caplog: pytest.LogCaptureFixture) -> None:
    started(home)  # before the session's last activity: it is swept
    params = GatewayStartParams.model_validate({"sessions": [
        {"sessionId": SESSION, "sessionKey": "agent:main:main", "updatedAt": 1795234999999},
        {"sessionId": "cron-run-7", "sessionKey": "agent:main:cron:nightly:run:7"}]})
    with caplog.at_level(logging.INFO, logger="zettelclaw.methods.hooks"):
        answer = await _handler(pool, "hook.gatewayStart")(params)
    assert [s["sessionId"] for s in answer["sessions"]] == [SESSION]
    assert [s["sessionId"] for s in answer["skipped"]] == ["cron-run-7"]
    assert _lines(caplog) == ["agent main: sweep: 2 session(s) listed, 1 to send, 1 skipped, "
                              "0 failed job(s) due for another try"]


async def test_a_sweep_says_its_failed_jobs_are_due_again_not_retried_while_no_model(
        pool: Agents, caplog: pytest.LogCaptureFixture) -> None:
    """Once "1 failed job(s) retried" while no model could be asked: the count is of
    failed jobs made due again (extraction/service.py, sweep), which then wait for a model."""
    async with pool.lease("main") as app:
        app.extraction.spool.save(Job.model_validate({
            "jobId": "20261126T000000.000000Z-abcdef", "sessionId": SESSION,
            "trigger": "sessionEnd", "createdAt": "2026-11-26T00:00:00Z",
            "messages": [{"key": "m1", "role": "user", "text": "hello"}],
            "state": "failed", "attempts": 2}))
    with caplog.at_level(logging.INFO, logger="zettelclaw.methods.hooks"):
        answer = await _handler(pool, "hook.gatewayStart")(
            GatewayStartParams.model_validate({"sessions": []}))
    assert answer["retried"] == ["20261126T000000.000000Z-abcdef"]
    [line] = _lines(caplog)
    assert line.startswith("agent main: sweep: 0 session(s) listed, 0 to send, 0 skipped, "
                           "1 failed job(s) due for another try (no model now, they wait for "
                           "one: no Anthropic API key")


async def test_an_agent_whose_memory_cannot_open_does_not_stop_the_sweep_of_the_others(
        pool: Agents, home: Home, caplog: pytest.LogCaptureFixture) -> None:
    (home.root / "agents").mkdir(exist_ok=True)
    (home.root / "agents" / "family").write_text("not a directory")  # its memory cannot be made
    started(home)
    params = GatewayStartParams.model_validate({"sessions": [
        {"sessionId": "f-1", "sessionKey": "agent:family:main", "updatedAt": 1795234999999},
        {"sessionId": SESSION, "sessionKey": "agent:main:main", "updatedAt": 1795234999999}]})
    with caplog.at_level(logging.INFO, logger="zettelclaw.methods.hooks"):
        answer = await _handler(pool, "hook.gatewayStart")(params)
    assert [s["sessionId"] for s in answer["sessions"]] == [SESSION]
    [error] = answer["errors"]
    assert error["agentId"] == "family"
    assert error["message"].startswith("DataDirError: cannot use data directory")
    assert _lines(caplog)[0] == "agent family: sweep failed"


async def test_the_sweep_leaves_out_a_session_read_since_its_last_activity(pool: Agents) -> None:
    """Without readAt every session with messages is listed at every sweep: the host stamps
    its activity after the last message (and again at a reset), so the newest message received
    is always older. With it, only a session active since it was read."""
    read_at = 1795234990000
    await _handler(pool, "hook.beforeReset")(HookTranscriptParams.model_validate(
        {"sessionId": SESSION, "sessionKey": "agent:main:main", "messages": MESSAGES,
         "readAt": read_at}))
    await _handler(pool, "hook.sessionEnd")(HookTranscriptParams.model_validate(
        {"sessionId": "other-1", "sessionKey": "agent:main:main", "messages": MESSAGES}))

    def listing(updated: int) -> GatewayStartParams:
        return GatewayStartParams.model_validate({"sessions": [
            {"sessionId": s, "sessionKey": "agent:main:main", "updatedAt": updated}
            for s in (SESSION, "other-1")]})

    sweep = _handler(pool, "hook.gatewayStart")
    answer = await sweep(listing(read_at))  # the reset's own stamp, no later than the read
    assert [s["sessionId"] for s in answer["sessions"]] == ["other-1"]  # no readAt: sent again
    answer = await sweep(listing(read_at + 1))  # a turn since
    assert [s["sessionId"] for s in answer["sessions"]] == [SESSION, "other-1"]


async def test_a_malformed_session_id_is_skipped_by_name_and_the_good_ones_are_listed(
        pool: Agents, home: Home) -> None:
    """At caac987 one bad sessionId failed the agent's whole sweep (its good
    sessions were not listed, and the plugin retried forever)."""
    started(home)
    params = GatewayStartParams.model_validate({"sessions": [
        {"sessionId": "../../etc", "sessionKey": "agent:main:main", "updatedAt": 1795234999999},
        {"sessionId": SESSION, "sessionKey": "agent:main:main", "updatedAt": 1795234999999}]})
    answer = await _handler(pool, "hook.gatewayStart")(params)
    assert [s["sessionId"] for s in answer["sessions"]] == [SESSION]
    [skipped] = answer["skipped"]
    assert skipped["sessionId"] == "../../etc"
    assert "is not a valid session id" in skipped["reason"]
    assert answer["errors"] == []


async def test_each_session_the_sweep_asks_for_names_the_agent_whose_memory_asks(
        pool: Agents, home: Home) -> None:
    """A store shared by two agents lists a session under each (a key naming no agent): each
    memory asks for it on its own, and the host must send each copy to the agent that asked,
    not to whichever of the two its lookup by session id finds last."""
    started(home)
    params = GatewayStartParams.model_validate({"sessions": [
        {"sessionId": "shared-1", "sessionKey": "global", "agentId": agent,
         "updatedAt": time.time() * 1000} for agent in ("main", "family")]})
    answer = await _handler(pool, "hook.gatewayStart")(params)
    assert sorted((s["agentId"], s["sessionId"]) for s in answer["sessions"]) == [
        ("family", "shared-1"), ("main", "shared-1")]
