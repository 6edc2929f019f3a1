"""artifacts.list (artifacts/, docs/12-openclaw-surfaces.md): a memory's public artifacts (the
briefing, the vault's pages, an export of the log), each a file inside its root; off unless the
owner publishes them."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.conftest import entry
from tests.direct import open_pool
from zettelclaw.agents.pool import Agents
from zettelclaw.artifacts.listing import EXPORT_ENTRIES
from zettelclaw.config import load_config
from zettelclaw.errors import InvalidParamsError, UnknownAgentError
from zettelclaw.home import Home
from zettelclaw.methods import build_methods
from zettelclaw.protocol.dispatcher import Dispatcher

WriteLog = Callable[..., list[dict[str, Any]]]
PUBLISH = ["artifacts.publish=true"]


@pytest.fixture
async def pool(home: Home, workspace: Path) -> AsyncIterator[Agents]:
    agents = open_pool(home, workspace, settings=load_config(home, env={}, overrides=PUBLISH))
    yield agents
    agents.close_all()


def calls(pool: Agents) -> Dispatcher:
    return Dispatcher(build_methods(pool, dict))


def text(path: str) -> str:
    return Path(path).read_text()


def by_kind(answer: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [a for a in answer["artifacts"] if a["kind"] == kind]


def story(write_log: WriteLog) -> dict[str, dict[str, Any]]:
    old = entry("fact", "The staging host is teal-7", subject="staging", session="s1")
    new = entry("fact", "The staging host is amber-3", subject="staging", session="s1",
                replaces=old["id"])
    task = entry("task", "Rotate the staging keys", subject="staging", status="open",
                 session="s1")
    write_log(old, new, task)
    return {"old": old, "new": new, "task": task}


async def test_nothing_is_listed_unless_the_owner_publishes(
        home: Home, workspace: Path, write_log: WriteLog) -> None:
    story(write_log)
    (workspace / "MEMORY.md").write_text("# Memory\n")
    agents = open_pool(home, workspace)
    try:
        answer = await calls(agents).call("artifacts.list", {})
    finally:
        agents.close_all()
    assert answer["published"] is False
    assert answer["artifacts"] == []
    assert "artifacts.publish" in answer["reason"]
    assert not (home.root / "exports").exists()  # nothing written either


async def test_the_briefing_the_vault_pages_and_the_export_each_inside_its_root(
        pool: Agents, home: Home, workspace: Path, write_log: WriteLog) -> None:
    e = story(write_log)
    d = calls(pool)
    await d.call("briefing.generate", {})
    await d.call("vault.build", {})
    answer = await d.call("artifacts.list", {})
    assert answer["published"] is True
    assert answer["leftOut"] == 0
    for artifact in answer["artifacts"]:
        assert artifact["absolutePath"] == os.path.join(artifact["root"], artifact["path"])
        assert text(artifact["absolutePath"])
        assert artifact["memory"] == "main"
        assert artifact["agentIds"] == ["main"]
    [brief] = by_kind(answer, "briefing")
    assert (brief["root"], brief["path"], brief["contentType"]) == (str(workspace), "MEMORY.md",
                                                                    "markdown")
    pages = {a["path"] for a in by_kind(answer, "vault-page")}
    assert "01 Notes/Staging.md" in pages
    assert "Subjects.md" in pages
    assert {a["root"] for a in by_kind(answer, "vault-page")} == {str(home.root / "vault")}
    [export] = by_kind(answer, "log-export")
    assert (export["root"], export["path"], export["contentType"]) == (
        str(home.root), "exports/log.json", "json")
    document = orjson.loads(text(export["absolutePath"]))
    assert document["format"] == "zettelclaw.log-export/1"
    assert document["agentIds"] == ["main"]
    ids = {x["id"] for x in document["entries"]}
    assert ids == {e["new"]["id"], e["task"]["id"]}  # the replaced version left out
    assert document["current"] == document["exported"] == 2
    # a hidden entry leaves the export at the next listing
    await d.call("memory.forget", {"ids": [e["task"]["id"]]})
    await d.call("artifacts.list", {"agentIds": ["main"]})
    document = orjson.loads(text(export["absolutePath"]))
    assert [x["id"] for x in document["entries"]] == [e["new"]["id"]]


async def test_the_export_is_rewritten_only_when_its_bytes_change(
        pool: Agents, home: Home, write_log: WriteLog) -> None:
    story(write_log)
    d = calls(pool)
    await d.call("artifacts.list", {})
    path = home.root / "exports" / "log.json"
    first = path.stat()
    await d.call("artifacts.list", {})
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == (first.st_ino, first.st_mtime_ns)
    write_log(entry("decision", "Ship on Tuesday", session="s2"))
    await d.call("artifacts.list", {})
    assert "Ship on Tuesday" in path.read_text()
    assert path.stat().st_ino != first.st_ino  # replaced, atomically


async def test_the_export_holds_the_newest_entries_up_to_its_bound(
        pool: Agents, home: Home, write_log: WriteLog) -> None:
    write_log(*[entry("fact", f"fact number {n}", session="s", timestamp=f"2026-01-01T00:"
                    f"{n // 60 % 60:02d}:{n % 60:02d}Z") for n in range(EXPORT_ENTRIES + 5)])
    await calls(pool).call("artifacts.list", {})
    document = orjson.loads((home.root / "exports" / "log.json").read_bytes())
    assert document["current"] == EXPORT_ENTRIES + 5
    assert document["exported"] == len(document["entries"]) == EXPORT_ENTRIES
    assert document["entries"][0]["content"] == f"fact number {EXPORT_ENTRIES + 4}"


async def test_a_link_out_of_its_root_is_not_listed(
        pool: Agents, home: Home, workspace: Path, write_log: WriteLog, tmp_path: Path) -> None:
    story(write_log)
    d = calls(pool)
    await d.call("vault.build", {})
    secret = tmp_path / "elsewhere.md"
    secret.write_text("not the memory's\n")
    (workspace / "MEMORY.md").symlink_to(secret)
    page = home.root / "vault" / "Subjects.md"
    page.unlink()
    page.symlink_to(secret)
    answer = await d.call("artifacts.list", {})
    assert by_kind(answer, "briefing") == []
    assert "Subjects.md" not in {a["path"] for a in by_kind(answer, "vault-page")}
    assert answer["leftOut"] == 2
    assert all(str(secret) not in a["absolutePath"] for a in answer["artifacts"])


async def test_a_page_deleted_from_the_vault_is_not_listed(
        pool: Agents, home: Home, write_log: WriteLog) -> None:
    story(write_log)
    d = calls(pool)
    await d.call("vault.build", {})
    (home.root / "vault" / "Subjects.md").unlink()
    answer = await d.call("artifacts.list", {})
    assert "Subjects.md" not in {a["path"] for a in by_kind(answer, "vault-page")}
    assert answer["leftOut"] == 0  # gone is not left out


async def test_a_shared_memory_names_every_agent_that_uses_it(
        home: Home, workspace: Path, write_log: WriteLog) -> None:
    story(write_log)
    settings = load_config(home, env={}, overrides=[*PUBLISH, "agents.share=phone:main"])
    agents = open_pool(home, workspace, settings=settings)
    try:
        answer = await calls(agents).call("artifacts.list", {"agentIds": ["phone"]})
    finally:
        agents.close_all()
    [export] = by_kind(answer, "log-export")
    assert export["memory"] == "main"
    assert export["agentIds"] == ["main", "phone"]


async def test_another_agents_memory_is_listed_apart_and_a_memory_never_made_is_not(
        pool: Agents, home: Home, workspace: Path, tmp_path: Path) -> None:
    d = calls(pool)
    family = tmp_path / "ws-family"
    family.mkdir()
    await d.call("agents.register", {"agents": [
        {"agentId": "family", "workspace": str(family)},
        {"agentId": "work", "workspace": str(tmp_path / "w")}]})
    await d.call("memory.remember", {"agentId": "family", "type": "fact",
                                     "content": "The piano tuner comes in May"})
    answer = await d.call("artifacts.list", {})
    memories = {a["memory"] for a in answer["artifacts"]}
    assert memories == {"main", "family"}  # "work" has no memory yet, and none is made
    assert not (home.root / "agents" / "work").exists()
    [export] = [a for a in by_kind(answer, "log-export") if a["memory"] == "family"]
    assert export["agentIds"] == ["family"]
    assert "piano tuner" in text(export["absolutePath"])
    main_export = next(a for a in by_kind(answer, "log-export") if a["memory"] == "main")
    assert "piano tuner" not in text(main_export["absolutePath"])


async def test_an_unknown_or_malformed_agent_is_an_error(pool: Agents) -> None:
    d = calls(pool)
    with pytest.raises(UnknownAgentError):
        await d.call("artifacts.list", {"agentIds": ["nobody"]})
    with pytest.raises(InvalidParamsError):
        await d.call("artifacts.list", {"agentIds": ["../main"]})


async def test_a_purge_deletes_the_export_and_the_next_listing_writes_it_without_the_entry(
        pool: Agents, home: Home, write_log: WriteLog) -> None:
    e = story(write_log)
    d = calls(pool)
    await d.call("artifacts.list", {})
    path = home.root / "exports" / "log.json"
    assert "amber-3" in path.read_text()
    await d.call("memory.forget", {"ids": [e["new"]["id"]], "purge": True})
    assert not path.exists()
    await d.call("artifacts.list", {})
    assert "amber-3" not in path.read_text()
    assert "Rotate the staging keys" in path.read_text()
