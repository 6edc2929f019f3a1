"""protocol.md's examples work when pasted: the socat lines are run with bash, and the Python
host with python, each against a live server."""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

import orjson
import pytest
import trio

from tests.timing import scaled
from zettelclaw.client import AsyncClient
from zettelclaw.errors import MethodNotFoundError
from zettelclaw.serve import Ready

DOC = Path(__file__).resolve().parents[2] / "protocol.md"
SH_BLOCK = re.compile(r"```sh\n(.*?)```", re.S)


def _socat_available() -> None:
    if shutil.which("socat"):
        return
    if os.environ.get("ZETTELCLAW_REQUIRE_SOCAT"):
        pytest.fail("socat is not installed: scripts/test installs it (apt-get install socat)")
    pytest.skip("socat is not installed")


def _requests(script: str) -> list[Any]:
    """The JSON-RPC messages the examples send (the text between echo's single quotes)."""
    return [orjson.loads(m) for m in re.findall(r"echo '(.*?)' \| socat", script)]


@pytest.mark.slow
async def test_every_socat_example_answers(server: Ready, workspace: Path,
                                           write_log: Any) -> None:
    _socat_available()
    (workspace / "MEMORY.md").write_text("# Goals\n- ship the auth migration\n")
    write_log({"id": "Ht4vL_9qRx2D", "timestamp": "2026-02-20T15:10:00Z", "type": "task",
               "content": "Write backfill script for 47 failed webhook jobs", "status": "open",
               "subject": "auth-migration", "session": "abc12345"},
              {"id": "Ym8kP_3wNx5Q", "timestamp": "2026-02-20T15:30:00Z", "type": "handoff",
               "content": "Retry logic done; webhook backfill not started",
               "session": "abc12345"})
    blocks = SH_BLOCK.findall(DOC.read_text())
    assert blocks[0].startswith("SOCK="), "the first block defines $SOCK for the others"
    script = "set -e\n" + "\n".join(blocks)
    sent = _requests(script)
    assert len(sent) >= 8, "every method has an example"
    # socat's default wait for the answer after its input ends is half a second, shorter than
    # some answers on a loaded machine: each example says how long it waits
    assert all("| socat -t 30 - UNIX-CONNECT" in line for line in script.splitlines()
               if "| socat" in line), "every example waits for its answer (socat -t 30)"

    env = {**os.environ, "ZETTELCLAW_SOCKET": str(server.socket)}
    done = await trio.run_process(["bash", "-c", script], env=env, capture_stdout=True,
                                  capture_stderr=True)
    responses = [orjson.loads(line) for line in done.stdout.splitlines() if line.strip()]

    expected_ids = []
    for message in sent:
        for request in message if isinstance(message, list) else [message]:
            if "id" in request:
                expected_ids.append(request["id"])
    got = []
    for response in responses:
        for r in response if isinstance(response, list) else [response]:
            if "method" in r:
                # the sidecar's own request to a host (llm.complete, after the host.offer
                # example) when a job waits: protocol.md says a host gets these; not an answer
                assert r["method"] == "llm.complete", r
                continue
            assert "error" not in r, r
            got.append(r["id"])
    assert sorted(got) == sorted(expected_ids)
    documented = {m["method"] for message in sent
                  for m in (message if isinstance(message, list) else [message])}
    async with await AsyncClient.connect(server.socket) as client:
        with pytest.raises(MethodNotFoundError) as info:
            await client.call("no.such.method")
    assert documented == set(info.value.data["methods"]), "every method has a socat example"


def test_every_method_has_a_section() -> None:
    text = DOC.read_text()
    headings = [line for line in text.splitlines() if line.startswith("### ")]
    for name in set(re.findall(r'"method":"([a-zA-Z.]+)"', text)):
        assert any(f"`{name}`" in h for h in headings), f"{name} has an example but no section"


PYTHON_BLOCK = re.compile(r"```python\n(.*?)```", re.S)
MY_MODEL = '''
def my_model(prompt, max_tokens):  # the example's stand-in for a model: one fact, a handoff
    assert "You are the memory extraction agent" in prompt and max_tokens > 0
    return ('{"type": "fact", "content": "The docs host example answered"}\\n'
            '{"type": "handoff", "content": "Tried the host example"}')
'''


async def poll(check: Callable[[], Awaitable[bool]]) -> None:
    with trio.fail_after(scaled(20)):
        while True:
            if await check():
                return
            await trio.sleep(0.02)


@pytest.mark.slow
async def test_the_python_host_example_extracts_with_its_model(server: Ready, home: Any) -> None:
    [example] = PYTHON_BLOCK.findall(DOC.read_text())
    script = MY_MODEL + example
    env = {**os.environ, "SOCK": str(server.socket)}
    async with trio.open_nursery() as nursery:
        host = await nursery.start(partial(trio.run_process, [sys.executable, "-c", script],
                                           env=env, check=False))
        async with await AsyncClient.connect(server.socket) as client:
            async def offered() -> bool:  # the example's process says nothing when it is ready
                status = await client.call("status")
                return bool(status["extraction"]["route"]["active"] == "host")

            async def done() -> bool:
                return not (await client.call("jobs.list"))["jobs"]

            await poll(offered)
            await client.call("hook.sessionEnd", {
                "sessionId": "docs-host-1", "sessionKey": "agent:main:main",
                "messages": [{"role": "user", "content": "try the host example"}]})
            await poll(done)
        host.terminate()
        nursery.cancel_scope.cancel()
    lines = [orjson.loads(line) for line in home.log.read_bytes().splitlines()]
    assert [(e["type"], e["content"], e["session"]) for e in lines] == [
        ("fact", "The docs host example answered", "docs-host-1"),
        ("handoff", "Tried the host example", "docs-host-1")]
