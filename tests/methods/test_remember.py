"""memory.remember: one entry written now, validated and scrubbed like an extracted one, only
from the owner's private sessions; not extracted again from the same conversation."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import orjson
import pytest

from tests.direct import open_pool
from zettelclaw.agents.pool import Agents
from zettelclaw.errors import InvalidParamsError, RestrictedError
from zettelclaw.home import Home
from zettelclaw.methods import build_methods
from zettelclaw.protocol.dispatcher import Dispatcher

SAID = "Use Postgres for the billing service, not MySQL"


@pytest.fixture
async def pool(home: Home, workspace: Path) -> AsyncIterator[Agents]:
    agents = open_pool(home, workspace)
    yield agents
    agents.close_all()


async def test_remember_writes_at_once_and_answers_its_receipt(pool: Agents, home: Home) -> None:
    d = Dispatcher(build_methods(pool, dict))
    got = await d.call("memory.remember", {
        "type": "decision", "content": SAID, "subject": "billing", "sessionId": "s-1",
        "detail": "the token is sk-ant-api03-" + "a" * 90})
    line = orjson.loads(home.log.read_bytes().splitlines()[-1])
    assert line["id"] == got["id"]
    assert got["line"] == 1
    assert line["session"] == "s-1"
    assert "sk-ant" not in line["detail"]  # scrubbed like an extracted entry
    assert "[redacted: " in line["detail"]
    found = await d.call("memory.search", {"query": "postgres billing"})
    assert [r["id"] for r in found["results"]] == [got["id"]]
    task = await d.call("memory.remember", {"type": "task", "content": "provision the db"})
    assert task["entry"]["status"] == "open"
    assert task["entry"]["session"] == "manual"
    fix = await d.call("memory.remember", {"type": "decision", "content": "Postgres 16 for billing",
                                           "replaces": got["id"]})
    assert (await d.call("memory.get", {"path": got["id"]}))["replacedBy"][0]["id"] == fix["id"]


async def test_remember_refuses_other_audiences_and_bad_entries(pool: Agents, home: Home) -> None:
    d = Dispatcher(build_methods(pool, dict))
    for audience in ({"sessionKey": "agent:main:discord:group:7"},
                     {"sessionKey": "agent:main:main", "senderIsOwner": False},
                     {"sessionKey": "agent:main:subagent:x"}):
        with pytest.raises(RestrictedError):
            await d.call("memory.remember", {"type": "fact", "content": SAID, **audience})
    for bad in ({"type": "fact", "content": "   "}, {"type": "fact", "content": SAID,
                                                    "status": "open"},
                {"type": "fact", "content": SAID, "replaces": "nosuchentry1"},
                {"type": "note", "content": SAID}):
        with pytest.raises(InvalidParamsError):
            await d.call("memory.remember", bad)
    assert not home.log.exists() or home.log.read_bytes() == b""


async def test_a_remembered_entry_is_not_extracted_again_from_its_conversation(
        pool: Agents, home: Home) -> None:
    d = Dispatcher(build_methods(pool, dict))
    hook = {"sessionId": "s-9", "sessionKey": "agent:main:main", "reason": "new",
            "messages": [{"role": "user", "content": f"Remember this: {SAID}.",
                          "timestamp": 1795234915428}]}
    assert (await d.call("hook.sessionEnd", hook))["jobId"]
    kept = await d.call("memory.remember", {"type": "decision", "content": SAID,
                                            "sessionId": "s-9"})
    async with pool.lease("main") as app:
        job = app.extraction.spool.jobs()[0]
        assert f"id {kept['id']}" in app.extraction.prompt(job)  # shown as held already
        reply = "\n".join([
            orjson.dumps({"type": "decision", "content": SAID.lower() + " "}).decode(),
            orjson.dumps({"type": "handoff", "content": "billing database chosen"}).decode()])
        job.result = app.extraction.result(job, reply)
        assert app.extraction.finish(job) == 1  # the handoff only
    contents = [orjson.loads(x)["content"] for x in home.log.read_bytes().splitlines()]
    assert contents == [SAID, "billing database chosen"]
