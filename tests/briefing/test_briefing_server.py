"""The briefing end to end in one process: ``briefing.generate`` and ``status`` over the real
socket, the scheduler started by ``serve``, and the fake model through the real SDK.

The log is written relative to the real clock (entries days old), and the expected block is
computed from the same timestamps, so nothing depends on when the test runs.

Covers: a dry run, then a run, with the exact file; ``status``'s briefing object (last and next
run, MEMORY.md's lines, the 200-line warning); the errors as JSON-RPC codes (unknown param,
relative workspaceDir, a missing one, a link outside, malformed markers); ``serve`` with the
schedule runs the briefing at start (and not when the last run is recent); the model's
summaries and contradiction flags through the server.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import orjson
import pytest
import trio

from tests.briefing.briefing_data import SUBJECTS
from tests.fakes.anthropic_api import FakeAnthropic, Reply
from tests.timing import scaled
from zettelclaw import lock
from zettelclaw.briefing import record
from zettelclaw.client import AsyncClient
from zettelclaw.config import Config, CronConfig
from zettelclaw.errors import (
    InvalidParamsError,
    MarkersError,
    NotFoundError,
    PathNotAllowedError,
)
from zettelclaw.home import Home
from zettelclaw.serve import Ready, ServerConfig, serve
from zettelclaw.state import LastResult
from zettelclaw.workspace.markers import BEGIN, END

ZONE_NAME = "America/Detroit"
ZONE = ZoneInfo(ZONE_NAME)
DAY = 86_400.0
T0 = time.time()


def stamp(days: float) -> str:
    return datetime.fromtimestamp(T0 - days * DAY).astimezone(ZoneInfo("UTC")).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


def date(days: float) -> str:
    return datetime.fromtimestamp(T0 - days * DAY, ZONE).date().isoformat()


LOG = [
    {"id": "f0000whisper", "timestamp": stamp(40), "type": "fact",
     "content": "Whisper runs on the GPU box", "subject": "whisper-stt", "session": "s-1"},
    {"id": "d000000sync1", "timestamp": stamp(30), "type": "decision",
     "content": "Synchronous retries", "subject": "auth-migration", "session": "s-1"},
    {"id": "d00000queue1", "timestamp": stamp(3), "type": "decision",
     "content": "Queue-based retries", "subject": "auth-migration", "session": "s-2"},
    {"id": "t00backfill1", "timestamp": stamp(2), "type": "task", "status": "open",
     "content": "Write backfill script", "subject": "auth-migration", "session": "s-2"},
    {"id": "f000mention1", "timestamp": stamp(1.1), "type": "fact",
     "content": "whisper-stt moves to the new box", "subject": "zettelclaw", "session": "s-3"},
    {"id": "q00000burst1", "timestamp": stamp(1.05), "type": "question",
     "content": "Burst capacity?", "session": "s-3"},
    {"id": "h00000000001", "timestamp": stamp(1), "type": "handoff",
     "content": "Retry logic done", "subject": "auth-migration", "session": "s-3"},
]
EXPECTED = [
    "## Active",
    "- auth-migration — Retry logic done",
    "- zettelclaw — whisper-stt moves to the new box",
    "",
    "## Recent Decisions",
    f"- {date(3)}: Queue-based retries [auth-migration]",
    "",
    "## Pending",
    "- Write backfill script [auth-migration]",
    "",
    "## Open Questions",
    "- Burst capacity?",
    "",
    "## Stale",
    f"- whisper-stt — last entry {date(40)}, mentioned again {date(1.1)}",
]


def settings(base: Config, key: str | None = None, url: str | None = None) -> Config:
    """The fixture's settings, in America/Detroit, with the fake model when given."""
    extraction = base.extraction.model_copy(update={
        "api_key": key, "base_url": url, "timeout_seconds": 5.0})
    return base.model_copy(update={"cron": CronConfig(timezone=ZONE_NAME),
                                   "extraction": extraction})


@pytest.fixture
def start(server_config: ServerConfig, home: Home, write_log: Callable[..., Any]
          ) -> Callable[..., Any]:
    home.subjects.write_bytes(orjson.dumps(SUBJECTS))
    write_log(*LOG)

    async def starter(nursery: trio.Nursery, *, schedule: bool = False, key: str | None = None,
                      url: str | None = None) -> AsyncClient:
        assert server_config.settings is not None
        config = replace(server_config, settings=settings(server_config.settings, key, url),
                         briefing_schedule=schedule)
        ready: Ready = await nursery.start(serve, config)
        return await AsyncClient.connect(ready.socket)

    return starter


@pytest.fixture
async def client(start: Callable[..., Any]) -> AsyncIterator[AsyncClient]:
    async with trio.open_nursery() as nursery:
        connection = await start(nursery)
        yield connection
        await connection.aclose()
        nursery.cancel_scope.cancel()


async def test_a_dry_run_then_a_run(client: AsyncClient, workspace: Path) -> None:
    path = workspace / "MEMORY.md"
    path.write_text("# Goals\n- ship it\n")
    dry = await client.call("briefing.generate", {"dryRun": True})
    assert dry["block"] == "".join(f"{line}\n" for line in EXPECTED)
    assert (dry["changed"], dry["written"]) == (True, False)
    assert path.read_text() == "# Goals\n- ship it\n"
    done = await client.call("briefing.generate")
    assert (done["changed"], done["written"], done["lines"]) == (True, True, 15)
    assert path.read_text() == "# Goals\n- ship it\n\n" + "".join(
        f"{line}\n" for line in (BEGIN, *EXPECTED, END))
    again = await client.call("briefing.generate", {})
    assert (again["changed"], again["written"]) == (False, False)


async def test_status_shows_the_briefing(client: AsyncClient, workspace: Path) -> None:
    before = (await client.call("status"))["briefing"]
    assert before["lastRun"] is None
    assert before["timezone"] == ZONE_NAME
    assert before["nextRun"].endswith(("T03:00:00-05:00", "T03:00:00-04:00"))
    await client.call("briefing.generate")
    after = (await client.call("status"))["briefing"]
    assert after["lastResult"]["ok"] is True
    assert after["lastResult"]["trigger"] == "manual"
    assert after["memoryMdLines"] == 17
    assert after["warnings"] == []
    path = workspace / "MEMORY.md"
    path.write_text("".join(f"line {i}\n" for i in range(250)) + path.read_text())
    warned = (await client.call("status"))["briefing"]
    assert warned["memoryMdLines"] == 267
    assert warned["warnings"] == [
        "MEMORY.md is 267 lines; OpenClaw loads only the first 200: shorten the part outside "
        "the briefing markers"]


async def test_errors_have_their_codes(client: AsyncClient, workspace: Path,
                                       tmp_path: Path) -> None:
    with pytest.raises(InvalidParamsError):
        await client.call("briefing.generate", {"dry_run": True})
    with pytest.raises(InvalidParamsError):
        await client.call("briefing.generate", {"dryRun": "yes"})
    with pytest.raises(InvalidParamsError):
        await client.call("briefing.generate", {"workspaceDir": "relative"})
    with pytest.raises(NotFoundError):
        await client.call("briefing.generate", {"workspaceDir": str(tmp_path / "missing")})
    outside = tmp_path / "outside.md"
    (workspace / "MEMORY.md").symlink_to(outside)
    with pytest.raises(PathNotAllowedError):
        await client.call("briefing.generate")
    assert not outside.exists()
    (workspace / "MEMORY.md").unlink()
    (workspace / "MEMORY.md").write_text(f"{END}\n")
    with pytest.raises(MarkersError) as info:
        await client.call("briefing.generate")
    assert info.value.code == -32011
    assert info.value.data == {"problem": "an END marker (line 1) without a BEGIN"}


async def until(condition: Callable[[], bool]) -> None:
    with trio.fail_after(scaled(20)):
        while not condition():  # noqa: ASYNC110 (written by the server's threads)
            await trio.sleep(0.01)


async def test_serve_runs_the_briefing_at_start(start: Callable[..., Any], workspace: Path,
                                                home: Home) -> None:
    async with trio.open_nursery() as nursery:
        client = await start(nursery, schedule=True)
        await until(lambda: record.load(home).next_run is not None)
        status = (await client.call("status"))["briefing"]
        assert status["lastResult"]["trigger"] == "start"
        assert status["nextRun"] == record.load(home).next_run
        await client.aclose()
        nursery.cancel_scope.cancel()
    assert (workspace / "MEMORY.md").read_text() == "".join(
        f"{line}\n" for line in (BEGIN, *EXPECTED, END))


async def test_serve_skips_the_start_run_after_a_recent_one(
        start: Callable[..., Any], workspace: Path, home: Home) -> None:
    with lock.exclusive(home.lock):
        record.ran_locked(home, datetime.now(ZONE).isoformat(timespec="seconds"),
                          LastResult(ok=True, trigger="schedule"))
    async with trio.open_nursery() as nursery:
        client = await start(nursery, schedule=True)
        await until(lambda: record.load(home).next_run is not None)
        await client.aclose()
        nursery.cancel_scope.cancel()
    assert record.load(home).last_result == LastResult(ok=True, trigger="schedule")
    assert not (workspace / "MEMORY.md").exists()


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    api = FakeAnthropic().start()
    api.default = None
    yield api
    api.stop()


async def test_the_model_through_the_server(start: Callable[..., Any], workspace: Path,
                                            fake: FakeAnthropic) -> None:
    fake.add(Reply(text='{"subject":"zettelclaw","summary":"Whisper box move planned"}'),
             Reply(text='{"older":"d000000sync1","newer":"d00000queue1","reason":"x"}\n'
                        '{"older":"h00000000001","newer":"d00000queue1"}'))
    async with trio.open_nursery() as nursery:
        client = await start(nursery, key="test-key", url=fake.url)
        result = await client.call("briefing.generate")
        await client.aclose()
        nursery.cancel_scope.cancel()
    assert result["model"] == {"used": True, "summaries": 1, "contradictions": 1}
    lines = (workspace / "MEMORY.md").read_text().splitlines()
    assert "- zettelclaw — Whisper box move planned" in lines
    assert lines[-3:] == [
        "## Contradictions",
        f'- auth-migration: "Synchronous retries" ({date(30)}, d000000sync1) may conflict '
        f'with "Queue-based retries" ({date(3)}, d00000queue1)', END]
    assert len(fake.requests) == 2
