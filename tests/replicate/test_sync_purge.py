"""Forget reaches every copy: a hide travels as a record; a purge leaves every machine's log,
the sync repository's files and its history (the remote's objects too), each machine
acknowledges it, and ``sync status`` names the machines that have not yet, since when. A
machine offline during the purge comes back without bringing the entries back."""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.direct import open_pool
from tests.replicate.sync_machines import Machine, bare, remote_blobs
from zettelclaw.methods import build_methods
from zettelclaw.protocol.dispatcher import Dispatcher

pytestmark = pytest.mark.slow
PRIVATE = "the spare key hides under the blue zucchini pot"


@asynccontextmanager
async def calls(machine: Machine) -> AsyncIterator[Dispatcher]:
    agents = open_pool(machine.home, machine.workspace)
    try:
        yield Dispatcher(build_methods(agents, dict))
    finally:
        agents.close_all()


async def call(machine: Machine, method: str, params: dict[str, Any] | None = None) -> Any:
    async with calls(machine) as d:
        return await d.call(method, params or {})


def fresh_history(remote: Path, clone: Path) -> bytes:
    """Every version of every file in a new clone of ``remote``."""
    subprocess.run(["git", "clone", "-q", str(remote), str(clone)], check=True)
    return subprocess.run(["git", "-C", str(clone), "log", "-p", "--all"],
                          capture_output=True, check=True).stdout


async def found(machine: Machine, text: str) -> list[str]:
    answer = await call(machine, "memory.search", {"query": text})
    return [r["content"] for r in answer["results"] if r["source"] == "log"]


async def test_a_hide_travels_and_a_purge_reaches_every_copy(tmp_path: Path) -> None:
    remote = bare(tmp_path / "remote.git")
    a, b, c = (Machine(tmp_path, n) for n in "abc")
    for m in (a, b, c):
        await call(m, "sync.init", {"remote": str(remote)})
    secret = (await call(a, "memory.remember", {"type": "fact", "content": PRIVATE}))["entry"]
    hidden = (await call(a, "memory.remember", {"type": "fact", "content": "a rumour"}))
    kept = (await call(b, "memory.remember", {"type": "fact", "content": "water the fig"}))
    for m in (a, b, c, a):
        await call(m, "sync.run")
    assert await found(c, "zucchini") == [PRIVATE]
    await call(b, "memory.forget", {"ids": [hidden["entry"]["id"]]})  # a hide: a record
    await call(b, "sync.run")
    await call(a, "sync.run")
    assert await found(a, "rumour") == []

    # c goes offline; a purges the secret
    purged = await call(a, "memory.forget", {"ids": [secret["id"]], "purge": True})
    assert purged["changed"] == 1
    ran = await call(a, "sync.run")
    assert ran["purgesPublished"] == 1
    assert ran["rewritten"]
    assert (await call(b, "sync.run"))["purgesApplied"] == 1
    assert await found(b, "zucchini") == []
    assert PRIVATE.encode() not in b.texts()
    await call(a, "sync.run")  # b's acknowledgement, as the remote has it now
    status = await call(a, "sync.status")
    (purge,) = status["purges"]
    assert purge["unconfirmed"] == [c.home_machine()]
    assert purge["ids"] == 1
    assert PRIVATE.encode() not in remote_blobs(remote)  # not in the history, nor unreachable
    history = fresh_history(remote, tmp_path / "fresh")
    assert PRIVATE.encode() not in history
    assert secret["id"].encode() in history  # the purge record holds the id, never the text

    # c, offline, wrote something; it comes back
    await call(c, "memory.remember", {"type": "fact", "content": "written while away"})
    assert PRIVATE.encode() in c.texts()
    ran = await call(c, "sync.run")
    assert ran["purgesApplied"] == 1
    assert PRIVATE.encode() not in c.texts()
    assert await found(c, "zucchini") == []
    for m in (a, b, c, a, b):
        await call(m, "sync.run")
    for m in (a, b, c):
        assert PRIVATE.encode() not in m.texts(), m.name
        assert await found(m, "written while away") == ["written while away"]
        assert await found(m, "fig") == ["water the fig"]
    assert PRIVATE.encode() not in remote_blobs(remote)
    status = await call(b, "sync.status")
    assert status["purges"][0]["unconfirmed"] == []
    assert kept["entry"]["id"] in a.ids()


async def test_sync_is_per_agent_memory(tmp_path: Path) -> None:
    """Only the memory set up travels: another agent's entries never reach the remote."""
    remote = bare(tmp_path / "remote.git")
    a, b = Machine(tmp_path, "a"), Machine(tmp_path, "b")
    for m in (a, b):
        work = m.workspace.parent / "work-workspace"
        work.mkdir()
        async with calls(m) as d:
            await d.call("agents.register", {"agents": [{"agentId": "work",
                                                         "workspace": str(work)}]})
            await d.call("sync.init", {"remote": str(remote), "agentId": "work"})
    await call(a, "memory.remember", {"type": "fact", "content": "the quarterly report is due",
                                      "agentId": "work"})
    await call(a, "memory.remember", {"type": "fact", "content": "grandma's birthday is in May"})
    await call(a, "sync.run", {"agentId": "work"})
    await call(b, "sync.run", {"agentId": "work"})
    found = await call(b, "memory.search", {"query": "quarterly report", "agentId": "work"})
    assert [r["content"] for r in found["results"]] == ["the quarterly report is due"]
    assert not (await call(b, "memory.search", {"query": "birthday"}))["results"]
    assert b"birthday" not in remote_blobs(remote)
    assert not (await call(a, "sync.status"))["configured"]  # main's memory: not set up
