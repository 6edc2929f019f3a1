"""`zettelclaw mcp`: one agent's memory as an MCP server over stdio, driven here by
the official MCP SDK's own client, which starts `zettelclaw mcp` as its subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest
import trio

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult, TextContent

from tests.conftest import entry
from tests.fakes.anthropic_api import FakeAnthropic, Reply
from tests.timing import scaled
from zettelclaw.cli.exits import EXIT_UNAVAILABLE
from zettelclaw.client import AsyncClient
from zettelclaw.config import load_config
from zettelclaw.home import Home
from zettelclaw.serve import Ready, ServerConfig, serve

pytestmark = pytest.mark.slow  # `zettelclaw mcp` processes, a sidecar each: seconds a test

ZETTELCLAW = Path(sys.executable).with_name("zettelclaw")


@asynccontextmanager
async def mcp_client(home: Home, workspace: Path, socket: Path,
                     *extra: str) -> AsyncIterator[Client]:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home.root.parent),
           "ZETTELCLAW_SEARCH_SEMANTIC": "off"}
    params = StdioServerParameters(
        command=str(ZETTELCLAW),
        args=["mcp", "--home", str(home.root), "--workspace", str(workspace),
              "--socket", str(socket), *extra],
        env=env)
    async with Client(params) as client:
        yield client


def payload(result: CallToolResult) -> dict[str, Any]:
    """The tool's answer: its structured content, which its text content repeats as JSON."""
    assert not result.is_error, result.content
    text = result.content[0]
    assert isinstance(text, TextContent)
    assert json.loads(text.text) == result.structured_content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def error_text(result: CallToolResult) -> str:
    assert result.is_error
    text = result.content[0]
    assert isinstance(text, TextContent)
    return text.text


async def test_initialize_list_search_and_get_through_the_running_sidecar(
        server: Ready, home: Home, workspace: Path,
        write_log: Callable[..., list[dict[str, Any]]]) -> None:
    fact = entry(content="Webhook retries back off exponentially, capped at one hour")
    write_log(fact, entry(content="The garden gets watered on Tuesdays"))
    (workspace / "MEMORY.md").write_text("# Memory\n\nThe owner prefers tea.\n")
    async with mcp_client(home, workspace, server.socket) as client:
        assert client.server_info is not None
        assert client.server_info.name == "zettelclaw"
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools) == {"memory_search", "memory_get", "memory_remember", "memory_forget"}
        assert tools["memory_search"].input_schema["required"] == ["query"]
        assert tools["memory_get"].input_schema["required"] == ["path"]
        assert "from" in tools["memory_get"].input_schema["properties"]

        found = payload(await client.call_tool("memory_search", {"query": "webhook retries"}))
        assert found["mode"] == "keyword"  # the sidecar answered (semantic search off here)
        assert "files" not in found["fallback"]["reason"]  # "turned off", not "from the files"
        assert [hit["path"] for hit in found["results"]] == [fact["id"]]
        hit = found["results"][0]
        assert hit["source"] == "log"
        assert hit["citation"] == "log.jsonl#L1"

        # memory-core's corpus names are the sidecar's: sessions = the log
        listed = payload(await client.call_tool("memory_search",
                                                {"query": "", "type": "fact",
                                                 "corpus": "sessions", "maxResults": 5}))
        assert listed["mode"] == "filter"
        assert len(listed["results"]) == 2

        got = payload(await client.call_tool("memory_get", {"path": fact["id"]}))
        assert got["status"] == "ok"
        assert got["path"] == fact["id"]
        assert got["entry"]["content"] == fact["content"]

        memory_md = payload(await client.call_tool("memory_get",
                                                   {"path": "MEMORY.md", "from": 3, "lines": 1}))
        assert memory_md["text"] == "The owner prefers tea.\n"
        # memory-core's corpus for a read: the sidecar accepts it (the path says where)
        wiki = payload(await client.call_tool("memory_get", {"path": "MEMORY.md", "from": 3,
                                                             "corpus": "wiki"}))
        assert wiki["text"] == memory_md["text"]

        missing = payload(await client.call_tool("memory_get", {"path": "e99999999999"}))
        assert missing == {"status": "not_found", "path": "e99999999999", "text": ""}


async def test_remember_then_forget_and_undo_through_mcp(
        server: Ready, home: Home, workspace: Path) -> None:
    """The write and forget tools: an entry remembered now is found, hidden by memory_forget
    (a dry run first changes nothing), and given back by undo."""
    async with mcp_client(home, workspace, server.socket) as client:
        said = payload(await client.call_tool("memory_remember", {
            "type": "fact", "content": "The boiler is serviced every May",
            "subject": "house"}))
        assert said["status"] == "ok"
        entry_id = said["id"]

        async def found() -> list[str]:
            answer = payload(await client.call_tool("memory_search", {"query": "boiler"}))
            return [hit["path"] for hit in answer["results"]]

        assert await found() == [entry_id]
        preview = payload(await client.call_tool("memory_forget",
                                                 {"text": "boiler", "dryRun": True}))
        assert [e["id"] for e in preview["entries"]] == [entry_id]
        assert await found() == [entry_id]  # a dry run changes nothing
        payload(await client.call_tool("memory_forget", {"ids": [entry_id]}))
        assert await found() == []
        payload(await client.call_tool("memory_forget", {"ids": [entry_id], "undo": True}))
        assert await found() == [entry_id]
        bad = await client.call_tool("memory_remember", {"type": "fact", "content": "x",
                                                         "subject": "Not A Slug"})
        assert "subject" in error_text(bad)  # the tool's schema: the params' slug


async def test_bad_arguments_are_tool_errors(server: Ready, home: Home, workspace: Path) -> None:
    async with mcp_client(home, workspace, server.socket) as client:
        # refused by the tool's schema
        assert "maxResults" in error_text(
            await client.call_tool("memory_search", {"query": "x", "maxResults": 0}))
        assert "path" in error_text(await client.call_tool("memory_get", {}))
        assert "subject" in error_text(
            await client.call_tool("memory_search", {"query": "x", "subject": "Not A Slug"}))
        # refused by the sidecar: its code is in the message
        assert "(code -32602)" in error_text(await client.call_tool("memory_forget", {}))
        assert "(code -32003)" in error_text(
            await client.call_tool("memory_get", {"path": "../../etc/passwd.md"}))
        # and the server goes on answering
        assert payload(await client.call_tool("memory_search", {"query": "x"}))["results"] == []


async def test_without_a_sidecar_the_files_answer_and_stay_free(
        home: Home, workspace: Path, short_dir: Path,
        write_log: Callable[..., list[dict[str, Any]]]) -> None:
    fact = entry(content="The staging database lives in Frankfurt")
    write_log(fact)
    async with mcp_client(home, workspace, short_dir / "nobody.sock") as client:
        found = payload(await client.call_tool("memory_search", {"query": "staging database"}))
        assert [hit["path"] for hit in found["results"]] == [fact["id"]]
        assert not (short_dir / "nobody.sock").exists()  # so the files answered
        # the data directory is opened for a call only: a sidecar can start while the MCP
        # server runs (here `status --no-sidecar`, which takes the same data lock)
        status = await trio.to_thread.run_sync(lambda: subprocess.run(
            [str(ZETTELCLAW), "status", "--no-sidecar", "--json", "--home", str(home.root),
             "--workspace", str(workspace)],
            capture_output=True, text=True, timeout=scaled(120), check=False,
            env={**os.environ, "ZETTELCLAW_SEARCH_SEMANTIC": "off"}))
        assert status.returncode == 0, status.stderr
        got = payload(await client.call_tool("memory_get", {"path": fact["id"]}))
        assert got["entry"]["content"] == fact["content"]


async def test_an_unusable_data_directory_is_answered_clearly(
        tmp_path: Path, workspace: Path, short_dir: Path) -> None:
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    home = Home(not_a_dir / "home")
    async with mcp_client(home, workspace, short_dir / "nobody.sock") as client:
        text = error_text(await client.call_tool("memory_search", {"query": "anything"}))
        assert f"Zettelclaw memory is unavailable: there is no memory in {home.root}" in text


def test_without_the_sdk_the_command_says_which_extra_to_install(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from zettelclaw.cli.main import main

    monkeypatch.setitem(sys.modules, "mcp.server.mcpserver", None)  # as if not installed
    monkeypatch.delitem(sys.modules, "zettelclaw.cli.mcp_server", raising=False)
    assert main(["mcp", "--no-sidecar"]) == EXIT_UNAVAILABLE
    assert "pip install 'zettelclaw[mcp]'" in capsys.readouterr().err


REPLIES = {
    "work": '{"type":"fact","content":"The ledger runs on CockroachDB"}\n'
            '{"type":"handoff","content":"ledger migration planned"}',
}


async def test_memory_extracted_from_an_openclaw_session_is_found_through_mcp(
        server_config: ServerConfig, home: Home, workspace: Path) -> None:
    """The OpenClaw plugin's path (hook.sessionEnd, the model extracting) writes; MCP reads,
    for the agent it names (--agent) and no other."""
    fake = FakeAnthropic().start()
    fake.default = Reply(text=REPLIES["work"])
    settings = load_config(home, env={"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": fake.url},
                           overrides=["search.semantic=off", "extraction.retryWaitSeconds=0.05"])
    config = replace(server_config, settings=settings)
    try:
        async with trio.open_nursery() as nursery:
            ready: Ready = await nursery.start(serve, config)
            async with await AsyncClient.connect(ready.socket) as rpc:
                await rpc.call("hook.sessionEnd", {
                    "sessionId": "work-session", "sessionKey": "agent:work:main",
                    "agentId": "work", "messages": [
                        {"role": "user", "content": "the ledger moves to CockroachDB",
                         "timestamp": 1_795_000_000_000},
                        {"role": "assistant", "content": "Noted.",
                         "timestamp": 1_795_000_001_000}]})
                with trio.fail_after(scaled(30)):
                    while (await rpc.call("jobs.list", {"agentId": "work"}))["jobs"]:  # noqa: ASYNC110 (jobs finish in another task)
                        await trio.sleep(0.05)
            async with mcp_client(home, workspace, ready.socket, "--agent", "work") as client:
                found = payload(await client.call_tool("memory_search", {"query": "CockroachDB"}))
                assert [hit["content"] for hit in found["results"]] == [
                    "The ledger runs on CockroachDB"]
                source = payload(await client.call_tool(
                    "memory_get", {"path": "session:work-session"}))
                assert "the ledger moves to CockroachDB" in source["text"]
            async with mcp_client(home, workspace, ready.socket) as client:  # main's memory
                found = payload(await client.call_tool("memory_search", {"query": "ledger"}))
                assert found["results"] == []
            nursery.cancel_scope.cancel()
    finally:
        fake.stop()
    assert orjson.loads((home.root / "agents" / "work" / "log.jsonl").read_bytes()
                        .splitlines()[0])["content"] == "The ledger runs on CockroachDB"
