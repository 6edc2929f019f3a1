"""Write receipts (the owner's next private turn names what a conversation wrote, once; never
another audience; off by a setting; memory.receipts lists them) and the injection trace."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import trio

from tests.direct import open_pool
from tests.timing import scaled
from zettelclaw.agents.pool import Agents
from zettelclaw.config import load_config
from zettelclaw.errors import RestrictedError
from zettelclaw.home import Home
from zettelclaw.methods import build_methods
from zettelclaw.protocol.dispatcher import Dispatcher

MAIN: dict[str, Any] = {"sessionKey": "agent:main:main"}
OTHERS: list[dict[str, Any]] = [{"sessionKey": "agent:main:telegram:group:42"},
          {"sessionKey": "agent:main:cron:nightly"},
          {"sessionKey": "agent:main:subagent:helper"},
          {"sessionKey": "agent:main:main", "senderIsOwner": False}]
REPLY = "\n".join(orjson.dumps(e).decode() for e in [
    {"type": "decision", "content": "Postgres for billing"},
    {"type": "task", "content": "Provision the billing database", "status": "open"},
    {"type": "handoff", "content": "billing database chosen"}])


async def extract(d: Dispatcher, pool: Agents, session: str = "s-1") -> list[str]:
    """A conversation extracted with REPLY as the model's answer; the new entries' ids."""
    hook = {"sessionId": session, "sessionKey": "agent:main:main", "reason": "new",
            "messages": [{"role": "user", "content": "We use Postgres for billing.",
                          "timestamp": 1795234915428}]}
    assert (await d.call("hook.sessionEnd", hook))["jobId"]
    async with pool.lease("main") as app:
        job = app.extraction.spool.jobs()[0]
        job.result = app.extraction.result(job, REPLY)
        assert app.extraction.finish(job) == 3
        assert job.result is not None
        return [e["id"] for e in job.result["entries"]]


async def context(d: Dispatcher, audience: dict[str, Any]) -> str | None:
    answer = await d.call("hook.beforePromptBuild", audience)
    return answer["prependContext"]  # type: ignore[no-any-return]


@pytest.fixture
async def pool(home: Home, workspace: Path) -> AsyncIterator[Agents]:
    agents = open_pool(home, workspace)
    yield agents
    agents.close_all()


async def test_the_next_private_turn_names_what_landed_once(pool: Agents, home: Home,
                                                             tmp_path: Path) -> None:
    d = Dispatcher(build_methods(pool, dict))
    ids = await extract(d, pool)
    (tmp_path / "family-ws").mkdir()
    family = {"sessionKey": "agent:family:main", "workspaceDir": str(tmp_path / "family-ws")}
    for audience in [*OTHERS, family]:  # groups, cron, sub-agents, others, another agent
        text = await context(d, audience)
        assert text is None or "Remembered from your last conversation" not in text
    text = await context(d, MAIN)
    assert text is not None
    line = text.splitlines()[-1]
    assert line.startswith("Remembered from your last conversation: 3 entries — ")
    assert all(f"(id {i})" in line for i in ids)
    assert line.endswith("say 'forget …' to remove one.")
    assert "Remembered from" not in (await context(d, MAIN) or "")  # shown once
    with trio.fail_after(scaled(10)):  # told is written after the answer
        while True:
            listed = (await d.call("memory.receipts", {}))["conversations"]
            if all(c["told"] for c in listed):
                break
            await trio.sleep(0.01)
    listed = (await d.call("memory.receipts", {}))["conversations"]
    assert [e["id"] for e in listed[0]["entries"]] == ids
    assert listed[0]["sessionId"] == "s-1"
    assert listed[0]["source"] == "extraction"
    with pytest.raises(RestrictedError):
        await d.call("memory.receipts", OTHERS[0])


async def test_a_receipt_leaves_out_what_was_forgotten_meanwhile(pool: Agents) -> None:
    d = Dispatcher(build_methods(pool, dict))
    ids = await extract(d, pool)
    await d.call("memory.forget", {"ids": [ids[0]]})
    line = (await context(d, MAIN) or "").splitlines()[-1]
    assert "2 entries" in line
    assert ids[0] not in line


async def test_receipts_off_by_a_setting(home: Home, workspace: Path) -> None:
    settings = load_config(home, env={}, overrides=["extraction.receipts=false"])
    agents = open_pool(home, workspace, settings=settings)
    try:
        d = Dispatcher(build_methods(agents, dict))
        await extract(d, agents)
        assert "Remembered from" not in (await context(d, MAIN) or "")
    finally:
        agents.close_all()


async def test_the_trace_records_what_each_turn_got_and_nothing_else(
        pool: Agents, home: Home, workspace: Path) -> None:
    d = Dispatcher(build_methods(pool, dict))
    assert await context(d, MAIN) is None  # nothing injected: nothing recorded
    for audience in OTHERS[:3]:
        await context(d, audience)
    assert (await d.call("memory.trace", {}))["turns"] == []
    ids = await extract(d, pool)
    text = await context(d, {**MAIN, "sessionId": "turn-1"})
    assert text is not None
    turns = (await d.call("memory.trace", {}))["turns"]
    assert len(turns) == 1
    kinds = {i["kind"]: i for i in turns[0]["items"]}
    assert kinds["handoff"]["id"] == ids[2]
    assert kinds["receipt"]["ids"] == ids
    assert turns[0]["chars"] == sum(i["chars"] for i in turns[0]["items"])
    assert turns[0]["sessionId"] == "turn-1"
    with pytest.raises(RestrictedError):
        await d.call("memory.trace", OTHERS[0])
    lines = (home.root / "trace.jsonl").read_bytes().splitlines()
    assert len(lines) == 1  # the small file, read back by a memory opened again


async def test_the_trace_is_bounded(pool: Agents, home: Home) -> None:
    from zettelclaw.recall import trace as trace_module
    d = Dispatcher(build_methods(pool, dict))
    await extract(d, pool)
    for _ in range(trace_module.FILE_LINES + 5):
        await context(d, MAIN)
    turns = (await d.call("memory.trace", {"limit": 100}))["turns"]
    assert len(turns) == trace_module.KEEP
    assert len((home.root / "trace.jsonl").read_bytes().splitlines()) < trace_module.FILE_LINES
