"""An import end to end in a running sidecar: the plan, the apply in slices, the conversations
through the real extraction (the real SDK against the fake Messages API), notes straight to the
log, the source's times, a second import adding nothing, the budget, and the rollback."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest
import trio

from tests.fakes.anthropic_api import FakeAnthropic, Reply
from tests.timing import scaled
from zettelclaw.client import AsyncClient
from zettelclaw.config import Config, load_config
from zettelclaw.errors import InvalidParamsError
from zettelclaw.home import Home
from zettelclaw.serve import ServerConfig, serve


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    api = FakeAnthropic().start()

    def respond(body: dict[str, Any]) -> Reply:
        prompt = body["messages"][0]["content"]
        tag = hashlib.blake2b(prompt.encode(), digest_size=4).hexdigest()
        return Reply(text=f'{{"type":"fact","content":"learned {tag}"}}\n'
                          '{"type":"handoff","content":"an old conversation"}')

    api.respond = respond
    yield api
    api.stop()


def settings(home: Home, fake: FakeAnthropic, *extra: str) -> Config:
    return load_config(home, env={"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "k"},
                       overrides=["search.semantic=off", "extraction.retryWaitSeconds=0.05",
                                  "extraction.model=claude-sonnet-4-6", *extra])


@pytest.fixture
async def client(server_config: ServerConfig, home: Home, fake: FakeAnthropic
                 ) -> AsyncIterator[AsyncClient]:
    async with trio.open_nursery() as nursery:
        ready = await nursery.start(serve, replace(server_config,
                                                   settings=settings(home, fake)))
        async with await AsyncClient.connect(ready.socket) as connected:
            yield connected
        nursery.cancel_scope.cancel()


def notes_source(tmp_path: Path, days: int = 3, prose: int = 2) -> Path:
    ws = tmp_path / "old-workspace"
    (ws / "memory").mkdir(parents=True)
    for day in range(1, days + 1):
        lines = [f"- fact {n} of day {day}" for n in range(3)]
        if day <= prose:
            lines += ["", f"A long paragraph about project {day}, with no bullets.",
                      "It goes on over two lines."]
        (ws / "memory" / f"2026-02-{day:02d}.md").write_text("\n".join(lines) + "\n")
    return ws


async def apply_all(client: AsyncClient, params: dict[str, Any]) -> dict[str, Any]:
    while True:
        result: dict[str, Any] = await client.call("import.apply", params)
        if result["state"] != "running":
            return result


async def settled(client: AsyncClient) -> None:
    with trio.fail_after(scaled(20)):
        while True:
            if not (await client.call("jobs.list"))["jobs"]:
                return
            await trio.sleep(0.02)


async def until(check: Callable[[], bool]) -> None:
    with trio.fail_after(scaled(20)):
        while True:
            if check():
                return
            await trio.sleep(0.02)


def log(home: Home) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in home.log.read_bytes().splitlines()
            if line.startswith(b'{"id"')]


async def test_plan_apply_again_and_rollback(client: AsyncClient, home: Home, tmp_path: Path,
                                             fake: FakeAnthropic) -> None:
    source = {"path": str(notes_source(tmp_path))}
    plan = await client.call("import.plan", source)
    assert plan["kind"] == "memory-core"
    assert (plan["conversations"], plan["messages"], plan["notes"]) == (2, 2, 9)
    assert plan["estimate"]["tokens"] > 0
    assert plan["estimate"]["costs"][0]["model"] == "claude-sonnet-4-6"
    assert plan["estimate"]["costs"][0]["usd"] > 0
    assert not home.log.exists() or not log(home)  # a plan writes nothing

    done = await apply_all(client, {**source, "sliceSeconds": 0.01})
    assert done["state"] == "done"
    assert (done["notes"], done["conversations"]) == (9, 2)
    await settled(client)
    entries = log(home)
    notes = [e for e in entries if e["session"] == f"import:{done['importId']}"]
    assert len(notes) == 9
    assert {e["timestamp"][:10] for e in notes} == {"2026-02-01", "2026-02-02", "2026-02-03"}
    extracted = [e for e in entries if e["session"].startswith(f"import:{done['importId']}:")]
    # each conversation's fact, at the conversation's time; its handoff left out
    assert sorted(e["type"] for e in extracted) == ["fact", "fact"]
    assert {e["timestamp"][:10] for e in extracted} == {"2026-02-01", "2026-02-02"}
    status = await client.call("status")
    assert status["extraction"]["budget"]["byPurpose"]["import"] == 2 * 20  # the fake's usage
    # the manifest records them: thousands of imported conversations do not grow state.json
    assert orjson.loads(home.state.read_bytes()).get("extractedSessions", {}) == {}

    again = await apply_all(client, source)
    assert again["importId"] is None  # nothing new: no import made
    assert len(log(home)) == len(entries)
    assert len(fake.requests) == 2
    assert (await client.call("import.plan", source))["alreadyImported"] == 11

    listed = await client.call("import.list")
    assert [i["importId"] for i in listed["imports"]] == [done["importId"]]
    rolled = await client.call("import.rollback", {"importId": done["importId"]})
    assert rolled["entries"] == 11
    assert log(home) == []
    assert (await client.call("import.plan", source))["notes"] == 9  # importable again


async def test_an_edited_note_is_imported_again_and_only_it(client: AsyncClient, home: Home,
                                                            tmp_path: Path) -> None:
    ws = notes_source(tmp_path, prose=0)
    await apply_all(client, {"path": str(ws)})
    (ws / "memory" / "2026-02-01.md").write_text("- fact 0 of day 1, corrected\n- fact 1 of "
                                                 "day 1\n- fact 2 of day 1\n")
    second = await apply_all(client, {"path": str(ws)})
    assert second["notes"] == 1
    assert sum("corrected" in e["content"] for e in log(home)) == 1


def test_over_the_default_budget_an_apply_is_refused(home: Home, workspace: Path,
                                                     tmp_path: Path, fake: FakeAnthropic
                                                     ) -> None:
    from tests.direct import open_app
    from zettelclaw.importing import importer

    app = open_app(home, workspace, settings=settings(home, fake, "budget.importTokens=10"))
    try:
        source = importer.Source(None, notes_source(tmp_path), "main")
        assert not importer.plan(app, source).fits
        with pytest.raises(InvalidParamsError, match="pass --budget"):
            importer.apply(app, source)
        assert not home.log.exists() or not log(home)  # nothing half-written
        assert importer.listing(home) == []
    finally:
        app.close()


async def test_a_given_budget_stops_cleanly_and_the_rest_goes_on_later(
        client: AsyncClient, home: Home, tmp_path: Path) -> None:
    ws = notes_source(tmp_path, days=3, prose=3)
    plan = await client.call("import.plan", {"path": str(ws), "budget": 10})
    assert not plan["fits"]
    one = plan["estimate"]["tokens"] // 3 + 1  # about one conversation's worth
    stopped = await apply_all(client, {"path": str(ws), "budget": one})
    assert stopped["state"] == "stopped"
    assert stopped["conversations"] == 1
    assert "budget" in stopped["stopReason"]
    assert stopped["notes"] == 9  # what is done stays
    assert (await client.call("import.plan", {"path": str(ws)}))["resumes"] == \
        stopped["importId"]
    # applied again with more: it goes on with the same import
    more = await apply_all(client, {"path": str(ws), "budget": 10 * one})
    assert more["importId"] == stopped["importId"]
    assert (more["state"], more["conversations"]) == ("done", 3)


async def test_a_rollback_while_the_model_answers_leaves_nothing(
        server_config: ServerConfig, home: Home, tmp_path: Path, fake: FakeAnthropic) -> None:
    """The job goes while its model call is in flight: the reply must not bring it back. With
    one call at a time, a second import's entry landing says the first call is over."""
    first = tmp_path / "first"
    (first / "memory").mkdir(parents=True)
    (first / "memory" / "2026-01-01.md").write_text("Prose that the model is asked about.\n")
    second = tmp_path / "second"
    (second / "memory").mkdir(parents=True)
    (second / "memory" / "2026-01-02.md").write_text("Other prose, imported after.\n")
    fake.add(Reply(text='{"type":"fact","content":"from the rolled back import"}', hold=True))
    config = replace(server_config,
                     settings=settings(home, fake, "extraction.concurrency=1"))
    async with trio.open_nursery() as nursery:
        ready = await nursery.start(serve, config)
        async with await AsyncClient.connect(ready.socket) as client:
            rolled = await apply_all(client, {"path": str(first)})
            await until(lambda: bool(fake.requests))
            await client.call("import.rollback", {"importId": rolled["importId"]})
            fake.release()
            await apply_all(client, {"path": str(second)})
            await until(lambda: any(e["content"].startswith("learned") for e in log(home)))
            await settled(client)  # (a job's entries land before its file goes)
            assert not [e for e in log(home) if "rolled back" in e["content"]]
        nursery.cancel_scope.cancel()
