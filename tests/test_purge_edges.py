"""A purge's edges: what a write cut short by a kill left (temp files, in every place a purge
writes to) goes with the purge, a resumed one too."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.conftest import entry
from tests.direct import open_pool
from zettelclaw.agents.pool import Agents
from zettelclaw.forget import purge
from zettelclaw.home import Home
from zettelclaw.methods import build_methods
from zettelclaw.protocol.dispatcher import Dispatcher

FACT = "the spare key hides under the blue zucchini pot"
WORD = "zucchini"


def grep(root: Path, text: str) -> list[str]:
    found = subprocess.run(["grep", "-rlaF", text, str(root)], capture_output=True, text=True,
                           check=False)
    return found.stdout.split()


def calls(pool: Agents) -> Dispatcher:
    return Dispatcher(build_methods(pool, dict))


@pytest.fixture
async def built(home: Home, workspace: Path, write_log: Any) -> dict[str, Any]:
    """A memory holding the fact (log, a conversation copy, a spooled job, a built vault), and
    another entry; the pool closed before the test runs its purge."""
    fact = entry("fact", FACT, subject="garden", session="s-key")
    other = entry("decision", "water the fig tree weekly", subject="garden", session="s-fig")
    write_log(fact, other)
    agents = open_pool(home, workspace)
    try:
        d = calls(agents)
        hook = {"sessionId": "s-key", "sessionKey": "agent:main:main", "reason": "new",
                "messages": [{"role": "user", "content": f"Remember: {FACT}.",
                              "timestamp": 1795234915428}]}
        assert (await d.call("hook.sessionEnd", hook))["accepted"]
        await d.call("vault.build", {})
    finally:
        agents.close_all()
    return {"fact": fact, "other": other}


def plant_leftovers(home: Home) -> list[Path]:
    """The temp files writes cut short by kill -9 leave beside each file a purge replaces, each
    holding the fact: of another process (a pid not this one's), and of an earlier process
    that had this one's pid (a container's sidecar restarts with its pid)."""
    vault = home.root / "vault"
    places = [
        home.root / "vault-state" / "pages" / "0123456789abcdef0123.json",
        home.root / "vault-state" / "state.json",
        next(vault.rglob("Garden.md")),
        home.root / "transcripts" / "s-key.jsonl",
        next((home.root / "spool").glob("*.json")),
        home.root / "exports" / "log.json",
    ]
    places[-1].parent.mkdir(mode=0o700, exist_ok=True)
    planted = []
    for n, place in enumerate(places):
        pid = os.getpid() if n % 2 else 999_999_999
        temp = place.with_name(f".{place.name}.{pid}.tmp")
        temp.write_text(f"- {FACT} ^zc0000\n")
        if pid == os.getpid():
            os.utime(temp, (1_600_000_000, 1_600_000_000))  # before this process started
        planted.append(temp)
    for rewrite in ("purge", "rename"):  # the log rewrites' own temp files
        temp = home.log.with_name(f".log.jsonl.{rewrite}.tmp")
        temp.write_bytes(orjson.dumps(entry("fact", FACT)) + b"\n")
        planted.append(temp)
    return planted


async def test_a_purge_removes_every_temp_file_a_killed_write_left(
        home: Home, workspace: Path, built: dict[str, Any], tmp_path: Path) -> None:
    planted = plant_leftovers(home)
    agents = open_pool(home, workspace)
    try:
        answer = await calls(agents).call("memory.forget", {"session": "s-key", "purge": True})
    finally:
        agents.close_all()
    assert answer["changed"] == 1
    assert [p for p in planted if p.exists()] == []
    assert grep(tmp_path, WORD) == []
    assert built["other"]["id"] in home.log.read_text()


async def test_a_resumed_purge_removes_them_too(
        home: Home, workspace: Path, built: dict[str, Any], tmp_path: Path) -> None:
    """kill -9 mid-purge: the intent stays, with what the killed writes left; the next start
    finishes the purge, and no copy of the text survives it."""
    purge.write_intent(home, [built["fact"]["id"]], ["s-key"], ["s-key"])
    planted = plant_leftovers(home)
    agents = open_pool(home, workspace)
    try:
        await calls(agents).call("status", {})  # the memory opened: the purge resumed
    finally:
        agents.close_all()
    assert not purge.intent_path(home).exists()
    assert [p for p in planted if p.exists()] == []
    assert grep(tmp_path, WORD) == []
