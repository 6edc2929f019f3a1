"""The smaller ones, each found by a hostile attack at caac987."""

from __future__ import annotations

import errno
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
import tantivy
import trio

from tests.agents.test_agent_isolation import MAIN_HANDOFF, WORK_FACT, fill
from tests.conftest import entry, line, started
from tests.direct import open_app
from tests.timing import scaled
from zettelclaw.agent_ids import AgentIdError, check_agent_id, chosen_agent
from zettelclaw.agents import roster
from zettelclaw.client import AsyncClient
from zettelclaw.config import load_config
from zettelclaw.errors import DataDirError, InvalidParamsError
from zettelclaw.home import Home
from zettelclaw.index import entries, term_shard
from zettelclaw.log.lines import parse_line
from zettelclaw.methods import admin
from zettelclaw.serve import Ready

TANTIVY_EMFILE = ('Failed to acquire Lockfile: IoError(Os { code: 24, kind: TooManyOpenFiles, '
                  'message: "Too many open files" }). None')


class _NoFiles:
    """A tantivy index whose reload meets the fd limit, as tantivy says it."""

    def __init__(self, index: tantivy.Index) -> None:
        self._index = index

    def reload(self) -> None:
        raise ValueError(TANTIVY_EMFILE)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._index, name)


def test_a_tantivy_error_naming_an_os_code_is_that_os_error() -> None:
    with pytest.raises(OSError, match="Too many open files") as caught, term_shard.os_errors():
        raise ValueError(TANTIVY_EMFILE)
    assert caught.value.errno == errno.EMFILE
    with pytest.raises(ValueError, match="schema"), term_shard.os_errors():
        raise ValueError("the schema does not match")  # no OS code: left as it is


async def test_at_the_fd_limit_memory_search_answers_32010_like_every_other_method(
        server: Ready, write_log: Callable[..., list[dict[str, Any]]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    write_log(*(entry(content=f"fact {i} about xylophones") for i in range(3)))
    async with await AsyncClient.connect(server.socket) as client:
        assert len((await client.call("memory.search", {"query": "xylophones"}))["results"]) == 3
        searcher = term_shard.Shard.searcher

        def at_the_limit(self: term_shard.Shard) -> tantivy.Searcher:
            self.index = _NoFiles(self.index)  # type: ignore[assignment]
            self._loaded = (0, 0, 0)  # a commit since: the searcher reloads
            return searcher(self)

        monkeypatch.setattr(term_shard.Shard, "searcher", at_the_limit)
        with pytest.raises(DataDirError, match="out of file descriptors"):  # caac987: -32603
            await client.call("memory.search", {"query": "xylophones"})


@pytest.mark.parametrize("key", ["agent:work", " agent:work:main", "agent:work\nmain",
                                 "agent:work:main ", "AGENT:work"])
async def test_a_malformed_agent_session_key_is_refused_not_mains_handoff(
        server: Ready, home: Home, key: str) -> None:
    """At caac987 each of these got main's handoff, though the README promises no fallback to
    another memory."""
    fill(home, "main", MAIN_HANDOFF)
    fill(home, "work", WORK_FACT)
    async with await AsyncClient.connect(server.socket) as client:
        with pytest.raises(InvalidParamsError):
            await client.call("hook.beforePromptBuild", {"sessionKey": key})
        # the hook answers from the index as it is: the watcher catches up with the entries
        # written beside the running sidecar within about a second (index/syncer.py)
        with trio.fail_after(scaled(20)):
            while True:
                good = await client.call("hook.beforePromptBuild",
                                         {"sessionKey": "agent:main:main"})
                if good["prependContext"] is not None:
                    break
                await trio.sleep(0.05)
    assert "tomatoes" in good["prependContext"]


@pytest.mark.parametrize("agent", ["wor\u212a", "w\u00f6rk", "ma\u0131n"])
def test_an_agent_id_is_ascii_before_it_is_lower_cased(agent: str) -> None:
    """"wor\\u212a" (the Kelvin sign) lower-cases to "work" in Python: it named agent work."""
    with pytest.raises(AgentIdError):
        check_agent_id(agent)
    with pytest.raises(AgentIdError):
        chosen_agent(None, f"agent:{agent}:main")
    assert check_agent_id(" Work ") == "work"  # ASCII: trimmed and folded, as OpenClaw does


async def test_a_session_of_the_sweep_whose_key_names_no_agent_is_skipped_by_name(
        server: Ready, home: Home) -> None:
    started(home)  # before updatedAt 1: the good session is swept
    async with await AsyncClient.connect(server.socket) as client:
        answer = await client.call("hook.gatewayStart", {"sessions": [
            {"sessionId": "bad-1", "sessionKey": "agent:wor\u212a:main", "updatedAt": 1},
            {"sessionId": "good-1", "sessionKey": "agent:main:main", "updatedAt": 1}]})
    assert [s["sessionId"] for s in answer["sessions"]] == ["good-1"]
    [skipped] = answer["skipped"]
    assert skipped["sessionId"] == "bad-1"
    assert "is not an agent id" in skipped["reason"]


@pytest.mark.parametrize("share", ["a:b,b:a", "work:main,Work:main", "work:main,work:family",
                                   "phone:phone"])
def test_a_share_setting_is_refused_alike_from_set_and_the_file(home: Home, share: str) -> None:
    """One validator for every source: at caac987 keys differing in case were merged silently
    (the last one won), and the environment's value was not checked as --set's is."""
    home.ensure()
    with pytest.raises(DataDirError, match=r"--set agents\.share: "):
        load_config(home, env={}, overrides=[f"agents.share={share}"])
    pairs = [part.partition(":") for part in share.split(",")]
    (home.root / "config.json").write_text(orjson.dumps(
        {"agents": {"share": {k: v for k, _, v in pairs}}}).decode())
    if share != "work:main,work:family":  # (a JSON object cannot hold one key twice)
        with pytest.raises(DataDirError, match=r"agents\.share"):
            load_config(home, env={})


async def register_many(client: AsyncClient, root: Path, first: int, count: int
                        ) -> dict[str, Any]:
    answer: dict[str, Any] = await client.call("agents.register", {"agents": [
        {"agentId": f"a{i}", "workspace": str(root / f"ws-{i}")}
        for i in range(first, first + count)]})
    return answer


async def test_registrations_are_capped_and_status_summarises_the_agents(
        server: Ready, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(roster, "MAX_REGISTERED", 5)
    monkeypatch.setattr(admin, "LISTED_AGENTS", 3)
    async with await AsyncClient.connect(server.socket) as client:
        answer = await register_many(client, tmp_path, 0, 8)
        assert answer["changed"] == [f"a{i}" for i in range(5)]
        assert [r["agentId"] for r in answer["refused"]] == ["a5", "a6", "a7"]
        assert answer["refused"][0]["reason"] == "5 agents are registered already"
        moved = await client.call("agents.register", {"agents": [
            {"agentId": "a1", "workspace": str(tmp_path / "elsewhere")}]})
        assert moved["changed"] == ["a1"]  # one registered already may still move
        status = await client.call("status", {"agentId": "a4"})
    assert [row["agentId"] for row in status["agents"]] == ["a4", "main", "a0"]
    assert status["agentsTotal"] == 6


@pytest.mark.hostile
async def test_ten_thousand_registrations_leave_status_small(
        server: Ready, tmp_path: Path) -> None:
    """At caac987 10,000 registered agents made status 2.1 MB, and none ever expired."""
    async with await AsyncClient.connect(server.socket) as client:
        refused = 0
        for first in range(0, 10_000, 250):  # (a message of the test server is <= 64 KiB)
            refused += len((await register_many(client, tmp_path, first, 250)).get(
                "refused", []))
        assert refused == 10_000 - roster.MAX_REGISTERED
        status = await client.call("status")
    assert len(orjson.dumps(status)) < 50_000
    assert status["agentsTotal"] == roster.MAX_REGISTERED + 1  # and main


def test_an_entry_appended_to_a_torn_line_before_it_was_ended_is_kept(
        home: Home, workspace: Path) -> None:
    """At caac987 an ``echo >>`` within the tail mender's second after a torn last line was
    merged into it: both lost as one invalid line. The entry is read from the end of the line;
    the torn bytes are still reported."""
    home.ensure()
    torn = b'{"id":"t00000000001","timestamp":"2026-02-20T14:00:00Z","type":"fa'
    late = entry(content="appended by echo right after a crash", id="e00000000777")
    inner = entry(content='quotes {"id": "x"} inside', id="e00000000778")
    home.log.write_bytes(torn + line(late) + orjson.dumps(inner)[:40] + line(inner))
    app = open_app(home, workspace)
    try:
        report = app.freshness.sync()
        assert report.entries == 2
        assert report.invalid == 2
        with app.index.read() as conn:
            assert entries.get_entry(conn, "e00000000777") is not None
            assert entries.get_entry(conn, "e00000000778") is not None
            reasons = [r[0] for r in conn.execute("SELECT reason FROM invalid_lines")]
        assert all(r.startswith("torn bytes before an entry") for r in reasons)
    finally:
        app.close()


def test_a_json_object_that_is_no_entry_is_not_mined_for_one() -> None:
    nested = orjson.dumps({"id": "x", "detail": entry(id="e00000000001")})
    parsed = parse_line(1, 0, nested)
    assert parsed.entry is None
    assert parsed.error is not None
