"""`zettelclaw mcp` as `ssh server zettelclaw mcp` runs it (docs/15-team.md, "Remote use without a
copy"): the remote command started by a shell (`$SHELL -c '...'`) with the bare environment sshd
gives (HOME, a system PATH, nothing else), in HOME, speaking MCP on its stdin and stdout only. No
sshd runs on this machine, so a real pipe to `sh -c` stands in for ssh's channel: ssh adds
nothing to the bytes of a non-tty session. Slow: a process (and a sidecar)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters
from mcp.types import TextContent

from tests.conftest import entry, line

pytestmark = pytest.mark.slow

ZETTELCLAW = Path(sys.executable).with_name("zettelclaw")
SSHD_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/games"  # Debian's sshd default for a user


def as_ssh_runs_it(home: Path, remote_command: str) -> StdioServerParameters:
    """`ssh server REMOTE_COMMAND`, on the server's side: the login shell's `-c`, in HOME."""
    return StdioServerParameters(command="/bin/sh", args=["-c", f"cd && {remote_command}"],
                                 env={"HOME": str(home), "PATH": SSHD_PATH, "LANG": "C.UTF-8",
                                      "ZETTELCLAW_SEARCH_SEMANTIC": "off"})


@pytest.fixture
def server_home(short_dir: Path) -> Path:
    """The server's user's HOME, with the default data directory (found without --home)."""
    data = short_dir / ".openclaw" / "zettelclaw"
    data.mkdir(parents=True, mode=0o700)
    (data / "log.jsonl").write_bytes(
        line(entry(content="The backup job runs at 02:00 on the NAS")) +
        line(entry(content="The garden gets watered on Tuesdays")))
    return short_dir


@pytest.fixture
def running_sidecar(server_home: Path) -> Iterator[None]:
    env = {**os.environ, "HOME": str(server_home), "ZETTELCLAW_SEARCH_SEMANTIC": "off"}
    for var in ("ZETTELCLAW_HOME", "ZETTELCLAW_SOCKET", "OPENCLAW_STATE_DIR", "OPENCLAW_HOME"):
        env.pop(var, None)
    proc = subprocess.Popen([str(ZETTELCLAW), "serve", "--set", "cron.schedule=off"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        assert "listening on" in proc.stdout.readline()
        yield
    finally:
        proc.terminate()
        proc.wait(60)
        if proc.stdout is not None:
            proc.stdout.close()


async def _search(params: StdioServerParameters, query: str) -> dict[str, object]:
    async with Client(params) as client:
        result = await client.call_tool("memory_search", {"query": query})
    assert not result.is_error, result.content
    text = result.content[0]
    assert isinstance(text, TextContent)
    found = json.loads(text.text)
    assert isinstance(found, dict)
    return found


async def test_the_server_s_memory_over_a_bare_ssh_like_pipe_files(server_home: Path) -> None:
    found = await _search(as_ssh_runs_it(server_home, f"exec {ZETTELCLAW} mcp"), "backup")
    assert "02:00" in json.dumps(found)


async def test_through_the_server_s_running_sidecar(server_home: Path,
                                                   running_sidecar: None) -> None:
    found = await _search(as_ssh_runs_it(server_home, f"exec {ZETTELCLAW} mcp"), "garden")
    assert "Tuesdays" in json.dumps(found)


def test_a_command_not_on_ssh_s_path_is_said_on_stderr(server_home: Path) -> None:
    """Without the absolute path, a venv's `zettelclaw` is not on sshd's PATH: the shell says
    so on stderr and the client sees the pipe close (docs: give ssh the full path)."""
    done = subprocess.run(["/bin/sh", "-c", "cd && exec zettelclaw mcp"], check=False,
                          env={"HOME": str(server_home), "PATH": SSHD_PATH},
                          input=b"", capture_output=True, timeout=60)
    if done.returncode == 0:
        pytest.skip("a zettelclaw is installed on the system PATH here")
    assert done.stdout == b""
    assert b"not found" in done.stderr
