"""protocol.md's socat examples work when pasted: each is run with bash against a live server."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest
import trio

from zettelclaw.client import AsyncClient
from zettelclaw.errors import MethodNotFoundError
from zettelclaw.server.serve import Ready

DOC = Path(__file__).resolve().parent.parent / "protocol.md"
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
