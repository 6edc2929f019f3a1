"""One memory per agent, over a real socket: every method reads and writes the memory of the
agent it names, and only that one.

Two memories are filled by hand (main's ``HOME/log.jsonl`` and ``HOME/agents/work/log.jsonl``),
then each method is asked as each agent: an entry of one is never returned, injected, counted
or briefed for the other, not even by id. Then extraction: hooks of two agents land in their
own logs (the real SDK against the fake Messages API).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest
import trio

from tests.conftest import entry
from tests.fakes.anthropic_api import FakeAnthropic, Reply
from tests.timing import scaled
from zettelclaw.client import AsyncClient
from zettelclaw.config import load_config
from zettelclaw.errors import InvalidParamsError, NotFoundError, UnknownAgentError
from zettelclaw.home import Home
from zettelclaw.log.schema import now_timestamp
from zettelclaw.serve import Ready, ServerConfig, serve

MAIN_KEY = "agent:main:main"
WORK_KEY = "agent:work:main"
LEAK = "WORK-LEAK: layoffs planned for Q1"
NOW = now_timestamp()
WORK_FACT = entry("fact", "the ledger database is CockroachDB", id="w00000000001", timestamp=NOW,
                  subject="ledger", session="work-s1")
WORK_HANDOFF = entry("handoff", LEAK, id="w00000000002", timestamp=NOW, session="work-s1")
MAIN_FACT = entry("fact", "the garden needs water on Sundays", id="m00000000001", timestamp=NOW,
                  subject="garden", session="main-s1")
MAIN_HANDOFF = entry("handoff", "MAIN: planted the tomatoes", id="m00000000002", timestamp=NOW,
                     session="main-s1")


def fill(home: Home, agent: str, *items: dict[str, Any]) -> Path:
    root = home.root if agent == "main" else home.root / "agents" / agent
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    log = root / "log.jsonl"
    with log.open("ab") as f:
        for item in items:
            f.write(orjson.dumps(item) + b"\n")
    return log


@pytest.fixture
def two(home: Home, tmp_path: Path) -> dict[str, Path]:
    fill(home, "main", MAIN_FACT, MAIN_HANDOFF)
    fill(home, "work", WORK_FACT, WORK_HANDOFF)
    spaces = {"work": tmp_path / "ws-work", "family": tmp_path / "ws-family"}
    for ws in spaces.values():
        ws.mkdir()
    return spaces


async def register(client: AsyncClient, spaces: dict[str, Path]) -> None:
    await client.call("agents.register", {"agents": [
        {"agentId": agent, "workspace": str(ws)} for agent, ws in spaces.items()]})


def prompt(agent: str | None, key: str) -> dict[str, Any]:
    return {"sessionKey": key, **({"agentId": agent} if agent else {})}


async def test_the_handoff_of_one_agent_is_never_injected_into_another(
        server: Ready, two: dict[str, Path]) -> None:
    """c7e1242 injected WORK-LEAK into agent:family:main."""
    async with await AsyncClient.connect(server.socket) as client:
        await register(client, two)
        family = await client.call("hook.beforePromptBuild",
                                   {**prompt("family", "agent:family:main"),
                                    "workspaceDir": str(two["family"])})
        work = await client.call("hook.beforePromptBuild", prompt("work", WORK_KEY))
        by_key = await client.call("hook.beforePromptBuild", {"sessionKey": WORK_KEY})
        main = await client.call("hook.beforePromptBuild", prompt(None, MAIN_KEY))
    assert family == {"prependContext": None}
    assert LEAK in work["prependContext"]
    assert by_key == work, "the session key's agent part names the memory"
    assert "MAIN: planted" in main["prependContext"]
    assert LEAK not in main["prependContext"]


async def test_search_get_and_sessions_read_only_the_named_agent(
        server: Ready, two: dict[str, Path]) -> None:
    async with await AsyncClient.connect(server.socket) as client:
        await register(client, two)

        async def contents(params: dict[str, Any]) -> list[str]:
            answer = await client.call("memory.search", {**params, "sessionKey": MAIN_KEY
                                                         if "agentId" not in params else
                                                         f"agent:{params['agentId']}:main"})
            return [r["snippet"] for r in answer["results"]]

        assert any("CockroachDB" in s for s in await contents({"agentId": "work",
                                                                "query": "ledger database"}))
        assert not await contents({"agentId": "family", "query": "ledger database"})
        assert not [s for s in await contents({"query": "ledger database"}) if "Cockroach" in s]
        listed = await contents({"agentId": "main", "type": "handoff"})
        assert listed
        assert all(LEAK not in s for s in listed)
        # by id, and the conversation an entry came from
        got = await client.call("memory.get", {"path": "w00000000001", "agentId": "work",
                                               "sessionKey": WORK_KEY})
        assert got["entry"]["content"] == WORK_FACT["content"]
        for agent in ("main", "family"):
            with pytest.raises(NotFoundError):
                await client.call("memory.get", {"path": "w00000000001", "agentId": agent,
                                                 "sessionKey": f"agent:{agent}:main"})
        with pytest.raises(NotFoundError):
            await client.call("memory.get", {"path": "m00000000001", "sessionKey": WORK_KEY})


async def test_subjects_status_jobs_and_rebuild_are_per_agent(
        server: Ready, two: dict[str, Path]) -> None:
    async with await AsyncClient.connect(server.socket) as client:
        await register(client, two)
        work_subjects = await client.call("subjects.list", {"agentId": "work"})
        main_subjects = await client.call("subjects.list")
        await client.call("subjects.add", {"agentId": "family", "slug": "school"})
        family_subjects = await client.call("subjects.list", {"agentId": "family"})
        work_status = await client.call("status", {"agentId": "work"})
        main_status = await client.call("status")
        rebuilt = await client.call("index.rebuild", {"agentId": "work"})
        jobs = await client.call("jobs.list", {"agentId": "family"})
    assert [s["slug"] for s in work_subjects["subjects"]] == ["ledger"]
    assert [s["slug"] for s in main_subjects["subjects"]] == ["garden"]
    assert [s["slug"] for s in family_subjects["subjects"]] == ["school"]
    assert work_status["agent"] == "work"
    assert work_status["entries"]["total"] == 2
    assert work_status["home"].endswith("/agents/work")
    assert work_status["workspace"] == str(two["work"])
    assert main_status["entries"]["total"] == 2
    rows = {row["agentId"]: row for row in main_status["agents"]}
    assert set(rows) >= {"main", "work", "family"}
    assert rows["work"]["entries"] == 2
    assert rows["work"]["workspace"] == str(two["work"])
    assert rebuilt["entries"] == 2
    assert jobs["jobs"] == []


def _vault_text(root: str) -> str:
    return "".join(p.read_text() for p in Path(root).rglob("*.md"))


async def test_the_vault_of_an_agent_shows_its_own_memory_only(
        server: Ready, home: Home, two: dict[str, Path]) -> None:
    async with await AsyncClient.connect(server.socket) as client:
        await register(client, two)
        work = await client.call("vault.build", {"agentId": "work"})
        main = await client.call("vault.build")
    assert work["vault"] == str(home.root / "agents" / "work" / "vault")
    assert main["vault"] == str(home.root / "vault")
    work_text, main_text = _vault_text(work["vault"]), _vault_text(main["vault"])
    assert "CockroachDB" in work_text
    assert LEAK in work_text
    assert "garden" not in work_text
    assert "CockroachDB" not in main_text
    assert LEAK not in main_text


async def test_the_briefing_of_an_agent_writes_its_own_memory_into_its_own_workspace(
        server: Ready, two: dict[str, Path], workspace: Path) -> None:
    async with await AsyncClient.connect(server.socket) as client:
        await register(client, two)
        work = await client.call("briefing.generate", {"agentId": "work"})
        main = await client.call("briefing.generate")
        family = await client.call("briefing.generate", {"agentId": "family"})
    assert work["path"] == str(two["work"] / "MEMORY.md")
    assert main["path"] == str(workspace / "MEMORY.md")
    assert "ledger" in (two["work"] / "MEMORY.md").read_text().lower()
    for path in (workspace / "MEMORY.md", two["family"] / "MEMORY.md"):
        text = path.read_text()
        assert "ledger" not in text.lower()
        assert "Cockroach" not in text
    assert "garden" not in (two["work"] / "MEMORY.md").read_text().lower()
    assert family["path"] == str(two["family"] / "MEMORY.md")


async def test_an_unknown_or_malformed_agent_is_an_error_not_an_empty_answer(
        server: Ready, two: dict[str, Path]) -> None:
    async with await AsyncClient.connect(server.socket) as client:
        calls: list[tuple[str, dict[str, Any]]] = [
            ("memory.search", {"query": "x"}), ("memory.get", {"path": "x"}),
            ("subjects.list", {}), ("status", {}), ("jobs.list", {}), ("index.rebuild", {}),
            ("briefing.generate", {"dryRun": True}), ("hook.beforePromptBuild", {})]
        for method, params in calls:
            with pytest.raises(UnknownAgentError) as raised:
                await client.call(method, {**params, "agentId": "nobody",
                                           **({"sessionKey": "agent:nobody:main"}
                                              if method.startswith(("memory", "hook")) else {})})
            assert raised.value.data == {"agentId": "nobody"}, method
            assert "nobody" in raised.value.message
        for bad in ["../work", "", "a" * 65, "wörk", "*"]:
            with pytest.raises(InvalidParamsError):
                await client.call("memory.search", {"query": "x", "agentId": bad,
                                                    "sessionKey": MAIN_KEY})
        with pytest.raises(InvalidParamsError, match="different agents"):
            await client.call("memory.search", {"query": "x", "agentId": "work",
                                                "sessionKey": "agent:main:main"})
        with pytest.raises(InvalidParamsError):  # a malformed agent part in the key
            await client.call("hook.beforePromptBuild", {"sessionKey": "agent:..:main"})
        assert (await client.call("memory.search", {"query": "ledger", "agentId": "WORK",
                                                    "sessionKey": WORK_KEY}))["results"], \
            "ids are folded to lower case, as OpenClaw does"


REPLIES = {
    "work": '{"type":"fact","content":"The ledger runs on CockroachDB"}\n'
            '{"type":"handoff","content":"WORK: ledger migration planned"}',
    "main": '{"type":"fact","content":"The tomatoes went in on Sunday"}\n'
            '{"type":"handoff","content":"MAIN: garden planted"}',
}


@pytest.mark.slow
async def test_extraction_writes_each_agents_entries_to_its_own_log(
        server_config: ServerConfig, home: Home, tmp_path: Path) -> None:
    fake = FakeAnthropic().start()
    fake.default = Reply(text="")

    def reply(body: dict[str, Any]) -> Reply:
        text = orjson.dumps(body).decode()
        return Reply(text=REPLIES["work" if "CockroachDB" in text else "main"])

    fake.respond = reply
    settings = load_config(home, env={"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": fake.url},
                           overrides=["search.semantic=off", "extraction.retryWaitSeconds=0.05"])
    config = replace(server_config, settings=settings)
    try:
        async with trio.open_nursery() as nursery:
            ready: Ready = await nursery.start(serve, config)
            async with await AsyncClient.connect(ready.socket) as client:
                for agent, words in [("work", "the ledger moves to CockroachDB"),
                                     ("main", "the tomatoes went in on Sunday")]:
                    await client.call("hook.sessionEnd", {
                        "sessionId": f"{agent}-session", "sessionKey": f"agent:{agent}:main",
                        "agentId": agent, "messages": [
                            {"role": "user", "content": words, "timestamp": 1_795_000_000_000},
                            {"role": "assistant", "content": "Noted.",
                             "timestamp": 1_795_000_001_000}]})
                with trio.fail_after(scaled(20)):
                    while ((await client.call("jobs.list"))["jobs"]  # noqa: ASYNC110 (jobs finish in another task)
                           or (await client.call("jobs.list", {"agentId": "work"}))["jobs"]):
                        await trio.sleep(0.02)
                work = await client.call("hook.beforePromptBuild", prompt("work", WORK_KEY))
                main = await client.call("hook.beforePromptBuild", prompt("main", MAIN_KEY))
                found = await client.call("memory.search", {"query": "CockroachDB",
                                                            "sessionKey": MAIN_KEY})
            nursery.cancel_scope.cancel()
    finally:
        fake.stop()
    main_log = home.log.read_text()
    work_log = (home.root / "agents" / "work" / "log.jsonl").read_text()
    assert "tomatoes" in main_log
    assert "ledger" not in main_log.lower()
    assert "ledger" in work_log
    assert "tomatoes" not in work_log
    assert "WORK: ledger migration planned" in work["prependContext"]
    assert "WORK" not in main["prependContext"]
    assert found["results"] == []
    assert not (home.root / "transcripts" / "work-session.jsonl").exists()
    assert (home.root / "agents" / "work" / "transcripts" / "work-session.jsonl").exists()


async def test_a_hooks_workspace_dir_that_is_not_absolute_is_left_out_not_fatal(
        server: Ready, two: dict[str, Path]) -> None:
    async with await AsyncClient.connect(server.socket) as client:
        answer = await client.call("hook.beforePromptBuild", {
            **prompt("work", WORK_KEY), "workspaceDir": "relative/ws"})
        listed = await client.call("agents.list")
    assert LEAK in answer["prependContext"]
    assert next(a for a in listed["agents"] if a["agentId"] == "work")["workspace"] is None
