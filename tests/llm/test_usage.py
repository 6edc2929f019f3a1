"""Model tokens counted per UTC day where model calls happen (the router), against
``budget.dailyTokens``: a spent day makes calls wait, jobs stay in the spool."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import trio

from tests.fakes.anthropic_api import FakeAnthropic
from tests.importing.test_import_importer import settings
from tests.timing import scaled
from zettelclaw.client import AsyncClient
from zettelclaw.home import Home
from zettelclaw.llm import usage
from zettelclaw.serve import ServerConfig, serve


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    api = FakeAnthropic().start()
    yield api
    api.stop()


def test_counted_tokens_reads_the_apis_and_a_hosts_usage() -> None:
    assert usage.counted_tokens({"input_tokens": 7, "output_tokens": 3}) == 10
    assert usage.counted_tokens({"inputTokens": 5, "outputTokens": 1}) == 6
    assert usage.counted_tokens({"total": 9}) is None
    assert usage.counted_tokens(None) is None
    assert usage.estimate_tokens("x" * 9) == 3


def test_the_days_counts_add_up_across_processes_and_start_again_each_day(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "usage.json"
    usage.Usage(path).charge("extraction", 100)
    usage.Usage(path).charge("import", 50)  # another process: the file, not memory
    day = usage.Usage(path).read()
    assert (day.tokens, day.by_purpose, day.calls) == (150, {"extraction": 100, "import": 50}, 2)
    monkeypatch.setattr(usage, "today", lambda: "2999-01-01")
    assert usage.Usage(path).read().tokens == 0
    path.write_text("{torn")
    assert usage.Usage(path).read().tokens == 0


async def test_a_spent_day_makes_extraction_wait(home: Home, server_config: ServerConfig,
                                                 fake: FakeAnthropic) -> None:
    config = replace(server_config, settings=settings(home, fake, "budget.dailyTokens=30"))
    async with trio.open_nursery() as nursery:
        ready = await nursery.start(serve, config)
        async with await AsyncClient.connect(ready.socket) as client:
            for n in range(3):
                await client.call("hook.sessionEnd", {
                    "sessionId": f"s{n}", "sessionKey": "agent:main:main",
                    "messages": [{"role": "user", "content": f"note number {n}",
                                  "timestamp": 1_795_000_000_000 + n}]})
            with trio.fail_after(scaled(20)):
                while True:
                    listing = await client.call("jobs.list")
                    states = [j["state"] for j in listing["jobs"]]
                    if states == ["waiting"]:
                        break
                    await trio.sleep(0.02)
            budget = listing["extraction"]["budget"]
            assert budget["spent"] is True
            assert budget["usedToday"] == 40  # two calls of the fake's 20 tokens
            assert "daily token budget is spent" in listing["jobs"][0]["lastError"]
            assert len(fake.requests) == 2
        nursery.cancel_scope.cancel()
