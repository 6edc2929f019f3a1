"""`zettelclaw mcp` on the wire, as a careless or hostile client drives it: lines that are not
messages are answered, requests still running when stdin ends are answered before the process
exits, and a data directory that holds no memory is refused, never started empty."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

pytest.importorskip("mcp")

from zettelclaw.cli.mcp_stdio import error_for
from zettelclaw.home import Home

pytestmark = pytest.mark.slow  # each test runs `zettelclaw mcp`, a process

ZETTELCLAW = Path(sys.executable).with_name("zettelclaw")
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "test", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def exchange(lines: list[bytes], args: list[str], env: dict[str, str]) -> list[dict[str, Any]]:
    """Write ``lines`` to `zettelclaw mcp` and close its stdin at once; its answers, in order,
    once it has exited by itself."""
    done = subprocess.run([str(ZETTELCLAW), "mcp", *args], input=b"".join(lines),
                          capture_output=True, timeout=120, check=False, env=env)
    assert done.returncode == 0, done.stderr.decode()
    return [json.loads(line) for line in done.stdout.splitlines()]


def message(value: dict[str, Any]) -> bytes:
    return orjson.dumps(value) + b"\n"


def call(request_id: int, tool: str, arguments: dict[str, Any]) -> bytes:
    return message({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                    "params": {"name": tool, "arguments": arguments}})


@pytest.fixture
def env(short_dir: Path) -> dict[str, str]:
    """What an MCP client with a short whitelist passes: no ZETTELCLAW_*, no OPENCLAW_*. The
    HOME is short: the default socket below it must fit in a Unix socket's 107 bytes, or the
    server cannot even ask whether a sidecar answers (pytest's tmp_path can be longer)."""
    (short_dir / "user").mkdir()
    return {"PATH": os.environ.get("PATH", ""), "HOME": str(short_dir / "user"),
            "ZETTELCLAW_SEARCH_SEMANTIC": "off"}


def test_every_line_that_is_not_a_message_is_answered(
        home: Home, workspace: Path, short_dir: Path, env: dict[str, str]) -> None:
    answers = exchange([
        message(INITIALIZE), message(INITIALIZED),
        b"not json\n",
        b'{"jsonrpc": "2.0", "id": 7}\n',  # no method
        b'{"jsonrpc": "2.0", "id": true, "method": "tools/list"}\n',  # an id of no usable kind
        b"[1, 2]\n",  # a batch
        b'{"jsonrpc": "2.0", "id": 8, "method": "tools/list"\n',  # cut short
        b"\n",  # nothing: no answer
        message({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}),
    ], ["--home", str(home.root), "--workspace", str(workspace),
        "--socket", str(short_dir / "nobody.sock")], env)
    errors = [(a["id"], a["error"]["code"]) for a in answers if "error" in a]
    assert errors == [(None, -32700), (7, -32600), (None, -32600), (None, -32600),
                      (None, -32700)]
    assert [a["id"] for a in answers if "result" in a] == [0, 9]  # and it went on serving
    assert "batch" in answers[4]["error"]["message"]


def test_requests_pending_when_stdin_ends_are_answered_before_the_exit(
        home: Home, workspace: Path, short_dir: Path, env: dict[str, str]) -> None:
    """The client writes three `memory_remember` calls and closes the pipe at once, before any
    is done (the first opens the data directory, which takes a while): each is answered, and
    each entry is in the log."""
    contents = [f"The backup drive number {n} sits in the hall cupboard" for n in range(3)]
    answers = exchange([
        message(INITIALIZE), message(INITIALIZED),
        *(call(n + 1, "memory_remember", {"type": "fact", "content": content})
          for n, content in enumerate(contents)),
    ], ["--home", str(home.root), "--workspace", str(workspace),
        "--socket", str(short_dir / "nobody.sock")], env)
    results = {a["id"]: a["result"] for a in answers if "result" in a}
    assert sorted(results) == [0, 1, 2, 3], answers
    assert not any(results[n]["isError"] for n in (1, 2, 3)), results
    logged = [orjson.loads(line)["content"] for line in home.log.read_bytes().splitlines()]
    assert sorted(logged) == sorted(contents)


def test_a_client_that_passes_no_data_directory_is_refused_not_given_an_empty_memory(
        tmp_path: Path, env: dict[str, str]) -> None:
    """Codex passes a server few of the user's variables: without ZETTELCLAW_HOME the server
    looks in OpenClaw's default place, which holds nothing here. The call is refused with what
    to pass, and nothing is created there."""
    answers = exchange([
        message(INITIALIZE), message(INITIALIZED),
        call(1, "memory_remember", {"type": "fact", "content": "The car is blue"}),
        call(2, "memory_search", {"query": "car"}),
    ], [], env)
    default = Path(env["HOME"]) / ".openclaw"
    for answer in answers[1:]:
        assert answer["result"]["isError"], answer
        text = answer["result"]["content"][0]["text"]
        assert f"there is no memory in {default / 'zettelclaw'}" in text, text
        assert "--home DIR" in text
        assert "ZETTELCLAW_HOME" in text
    assert not default.exists()


def test_a_data_directory_given_explicitly_that_holds_no_memory_is_refused(
        tmp_path: Path, workspace: Path, short_dir: Path, env: dict[str, str]) -> None:
    typo = tmp_path / "hmoe"
    answers = exchange([
        message(INITIALIZE), message(INITIALIZED),
        call(1, "memory_search", {"query": "car"}),
    ], ["--home", str(typo), "--workspace", str(workspace),
        "--socket", str(short_dir / "nobody.sock")], env)
    text = answers[1]["result"]["content"][0]["text"]
    assert f"there is no memory in {typo}" in text
    assert "Check the path given by --home" in text
    assert not typo.exists()


@pytest.mark.parametrize(("line", "code", "request_id"), [
    (b"{", -32700, None), (b"\xff\xfe", -32700, None),
    (b'{"jsonrpc": "1.0", "id": "a", "method": "x"}', -32600, "a"),
    (b'{"id": 3, "method": "x"}', -32600, 3), (b"17", -32600, None),
    (b'{"jsonrpc": "2.0", "id": 1.5, "method": "x"}', -32600, None),
])
def test_error_for_names_the_kind_and_keeps_a_usable_id(
        line: bytes, code: int, request_id: Any) -> None:
    refused = error_for(line)
    assert refused is not None
    assert (refused.error.code, refused.id) == (code, request_id)


def test_error_for_lets_messages_and_blank_lines_through() -> None:
    assert error_for(b" \n") is None
    assert error_for(message({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})) is None
    assert error_for(message(INITIALIZED)) is None


def test_a_client_that_closed_its_end_is_left_quietly(
        home: Home, workspace: Path, short_dir: Path, env: dict[str, str]) -> None:
    """Nobody reads the answers any more (the client closed the pipe): the server stops with
    exit 0, not an "internal error" and 70."""
    proc = subprocess.Popen(
        [str(ZETTELCLAW), "mcp", "--home", str(home.root), "--workspace", str(workspace),
         "--socket", str(short_dir / "nobody.sock")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None
    proc.stdout.close()
    _, err = proc.communicate(message(INITIALIZE) + message(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}), timeout=120)
    assert proc.returncode == 0, err.decode()
    assert b"internal error" not in err
