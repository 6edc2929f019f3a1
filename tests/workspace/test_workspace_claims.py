"""Isolation needs distinct workspaces. At caac987 nothing checked it: two
agents registered with the same workspace read each other's MEMORY.md, a workspace inside
another's memory/ made one agent's briefing searchable by the other, a hook for a new agent
naming main's workspace read main's notes, and ``briefing.generate`` for ``work`` with main's
``workspaceDir`` wrote work's memory into the MEMORY.md main loads every session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import trio

from tests.agents.test_agent_isolation import MAIN_FACT, WORK_FACT, fill
from zettelclaw.cli import render
from zettelclaw.client import AsyncClient
from zettelclaw.errors import InvalidParamsError
from zettelclaw.home import Home
from zettelclaw.openclaw import init as openclaw_init
from zettelclaw.serve import Ready, ServerConfig, serve
from zettelclaw.workspace import claims

NOTE = "main's private note: the surprise party is on Friday"


def test_overlap_is_the_same_real_path_or_inside_the_others_memory(tmp_path: Path) -> None:
    main = tmp_path / "main"
    (main / "memory").mkdir(parents=True)
    link = tmp_path / "link"
    link.symlink_to(main)
    a = claims.claim("main", "main", main, configured=True)
    assert claims.relation(claims.claim("w", "w", link, False), a) == "same"
    assert claims.relation(claims.claim("w", "w", main / "memory" / "w", False), a) == "inside"
    assert claims.relation(a, claims.claim("w", "w", main / "memory" / "w", False)) == "contains"
    # OpenClaw's own layout (agents.defaults.workspace): <default>/<id> reads nothing of main's
    assert claims.relation(claims.claim("w", "w", main / "w", False), a) is None
    assert claims.relation(claims.claim("w", "w", tmp_path / "mainx", False), a) is None


def test_conflicts_are_found_among_many_without_comparing_every_pair(tmp_path: Path) -> None:
    many = [claims.claim(f"a{i}", f"a{i}", tmp_path / f"ws{i}", False) for i in range(2000)]
    many.append(claims.claim("late", "late", tmp_path / "ws7" / "memory" / "x", False))
    many.append(claims.claim("twin", "twin", tmp_path / "ws9", True))
    many.append(claims.claim("phone", "a3", tmp_path / "ws3", False))  # shares a3's memory
    found = claims.conflicts(many)
    assert sorted((f.agents, f.relation) for f in found) == [
        (["a7", "late"], "contains"), (["a9", "twin"], "same")]


@pytest.fixture
def main_notes(workspace: Path) -> Path:
    (workspace / "MEMORY.md").write_text(f"# Memory\n\n{NOTE}\n")
    return workspace


async def search(client: AsyncClient, agent: str, query: str) -> list[str]:
    found = await client.call("memory.search", {"agentId": agent, "query": query})
    return [r.get("snippet", "") + str(r.get("content", "")) for r in found["results"]]


async def test_a_registration_of_anothers_workspace_is_refused_and_named(
        server: Ready, main_notes: Path, tmp_path: Path) -> None:
    own = tmp_path / "ws-work"
    own.mkdir()
    link = tmp_path / "main-link"
    link.symlink_to(main_notes)
    nested = main_notes / "memory" / "work"
    nested.mkdir(parents=True)
    async with await AsyncClient.connect(server.socket) as client:
        for where, how in [(main_notes, "same"), (link, "same"), (nested, "inside")]:
            answer = await client.call("agents.register", {"agents": [
                {"agentId": "work", "workspace": str(where)}]})
            assert answer["changed"] == []
            [refusal] = answer["refused"]
            assert refusal.pop("reason").startswith("it ")
            assert refusal == {"agentId": "work", "workspace": str(where), "owner": "main",
                               "ownerWorkspace": str(main_notes), "relation": how}
            listed = await client.call("agents.list")
            assert "work" not in [a["agentId"] for a in listed["agents"]]
        answer = await client.call("agents.register", {"agents": [
            {"agentId": "work", "workspace": str(own)},
            {"agentId": "family", "workspace": str(own)}]})  # the first one owns it
        assert answer["changed"] == ["work"]
        assert [r["agentId"] for r in answer["refused"]] == ["family"]
        assert "party" not in " ".join(await search(client, "work", "surprise party"))
        status = await client.call("status")
        assert status["workspaceConflicts"] == []


async def test_a_hook_of_a_new_agent_naming_mains_workspace_does_not_read_mains_notes(
        server: Ready, main_notes: Path) -> None:
    async with await AsyncClient.connect(server.socket) as client:
        assert NOTE in " ".join(await search(client, "main", "surprise party"))
        await client.call("hook.beforePromptBuild", {
            "sessionKey": "agent:intruder:main", "workspaceDir": str(main_notes)})
        assert "party" not in " ".join(await search(client, "intruder", "surprise party"))
        listed = await client.call("agents.list")
    row = next(a for a in listed["agents"] if a["agentId"] == "intruder")
    assert row["workspace"] != str(main_notes)


async def test_briefing_generate_into_another_memorys_workspace_is_refused(
        server: Ready, home: Home, main_notes: Path, tmp_path: Path) -> None:
    fill(home, "main", MAIN_FACT)
    fill(home, "work", WORK_FACT)
    before = (main_notes / "MEMORY.md").read_bytes()
    async with await AsyncClient.connect(server.socket) as client:
        for where in [main_notes, main_notes / "memory"]:
            where.mkdir(exist_ok=True)
            with pytest.raises(InvalidParamsError, match="workspace of agent main") as caught:
                await client.call("briefing.generate", {"agentId": "work",
                                                        "workspaceDir": str(where)})
            assert caught.value.data[0]["owner"] == "main"
        elsewhere = tmp_path / "scratch"
        elsewhere.mkdir()
        done = await client.call("briefing.generate", {"agentId": "work",
                                                       "workspaceDir": str(elsewhere)})
        assert done["path"] == str(elsewhere / "MEMORY.md")
    assert (main_notes / "MEMORY.md").read_bytes() == before


async def test_a_conflict_already_recorded_is_shown_in_status(
        home: Home, main_notes: Path, server_config: ServerConfig) -> None:
    home.ensure()
    (home.root / "agents.json").write_text(json.dumps(
        {"workspaces": {"work": str(main_notes)}}))  # written by a sidecar before this check
    async with trio.open_nursery() as nursery:
        ready: Ready = await nursery.start(serve, server_config)
        async with await AsyncClient.connect(ready.socket) as client:
            status = await client.call("status")
        nursery.cancel_scope.cancel()
    assert status["workspaceConflicts"] == [{
        "agents": ["main", "work"], "workspaces": [str(main_notes), str(main_notes)],
        "relation": "same", "configured": False}]
    text = render.status(status, "sidecar")
    assert f"warning    agents main and work share the workspace {main_notes}" in text


def test_init_warns_of_agents_configured_with_one_workspace(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = tmp_path / "state"
    state.mkdir()
    shared = tmp_path / "shared"
    shared.mkdir()
    for name in ("OPENCLAW_CONFIG_PATH", "ZETTELCLAW_HOME", "ZETTELCLAW_WORKSPACE"):
        monkeypatch.delenv(name, raising=False)
    env = {"OPENCLAW_STATE_DIR": str(state), "HOME": str(tmp_path / "h")}
    config = state / "openclaw.json"
    config.write_text(json.dumps({"agents": {"list": [
        {"id": "main", "workspace": str(shared)}, {"id": "work", "workspace": str(shared)}]}}))
    plan = openclaw_init.plan(config, Home(tmp_path / "zc"), None, env, force=True)
    assert any("agents main and work share the workspace" in w for w in plan.warnings)
