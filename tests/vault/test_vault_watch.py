"""The vault kept in step under a running sidecar (docs/09-vault.md): an edited page is
synced once it stops changing, and the vault is rebuilt when the log grows."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import trio

from tests.conftest import entry
from tests.direct import open_app
from tests.timing import scaled
from zettelclaw.agents.background import vault_watcher
from zettelclaw.app import App
from zettelclaw.config import load_config
from zettelclaw.forget import service as forget_service
from zettelclaw.home import Home
from zettelclaw.serve import ServerConfig, serve
from zettelclaw.vault.build import build
from zettelclaw.vault.sync import sync

WriteLog = Callable[..., list[dict[str, Any]]]
AUTH = "01 Notes/Auth Migration.md"
DAY = "2026-02-20T09:00:00Z"


def story(write_log: WriteLog) -> dict[str, dict[str, Any]]:
    e = {"task": entry("task", "Backfill 47 failed jobs", subject="auth-migration",
                       timestamp=DAY),
         "fact": entry("fact", "Backoff is 1s, 5s, 15s", subject="auth-migration",
                       timestamp=DAY)}
    write_log(*e.values())
    return e


def subjects(home: Home) -> None:
    home.subjects.write_text('{"auth-migration": {"display": "Auth Migration", '
                             '"type": "project"}}')


@pytest.fixture
def app(home: Home, workspace: Path) -> Iterator[App]:
    subjects(home)
    made = open_app(home, workspace)
    yield made
    made.close()


def log_entries(home: Home) -> list[dict[str, Any]]:
    return [orjson.loads(raw) for raw in home.log.read_bytes().splitlines() if raw.strip()]


def tick(page: Path) -> None:
    page.write_text(page.read_text().replace("- [ ] Backfill", "- [x] Backfill"))


def built_and_watched(home: Home, workspace: Path, short_dir: Path
                      ) -> tuple[Path, ServerConfig]:
    """The vault built from the log as it is, and a sidecar's settings that watch it closely."""
    made = open_app(home, workspace)
    build(made)
    made.close()
    config = ServerConfig(home=home, workspace=workspace, socket=short_dir / "s.sock",
                          max_message_bytes=64 * 1024,
                          settings=load_config(home, env={}, overrides=[
                              "search.semantic=off", "vault.watchSeconds=0.05"]))
    return home.root / "vault", config


async def eventually(condition: Callable[[], bool], bound: float = 20.0) -> None:
    with trio.fail_after(bound):
        while not condition():  # noqa: ASYNC110 (the sidecar's threads write the files)
            await trio.sleep(0.05)


def test_an_edit_is_synced_once_the_page_stops_changing(app: App, write_log: WriteLog) -> None:
    e = story(write_log)
    build(app)
    page = app.home.root / "vault" / AUTH
    watcher = vault_watcher(app, 1.0)
    watcher.look()  # the first look rebuilds (nothing new: nothing written)
    assert (watcher.syncs, watcher.builds) == (0, 1)
    tick(page)
    watcher.look()
    assert watcher.syncs == 0  # moving: an editor may write again
    with page.open("a") as f:  # it does
        f.write("\n")
    watcher.look()
    assert watcher.syncs == 0
    watcher.look()  # left alone for one look: synced, then rebuilt (the log grew)
    assert (watcher.syncs, watcher.builds) == (1, 2)
    done = [x for x in log_entries(app.home) if x.get("session") == "vault"]
    assert [(x["replaces"], x["status"]) for x in done] == [(e["task"]["id"], "done")]
    watcher.look()
    assert (watcher.syncs, watcher.builds) == (1, 2)  # nothing more to do


def test_an_edit_left_unapplied_is_not_synced_again_each_look(
        app: App, write_log: WriteLog) -> None:
    story(write_log)
    build(app)
    page = app.home.root / "vault" / AUTH
    page.write_text(page.read_text().replace("Backoff is 1s, 5s, 15s", ""))  # no text left
    watcher = vault_watcher(app, 1.0)
    watcher.look()
    watcher.look()
    assert watcher.syncs == 1
    watcher.look()
    assert watcher.syncs == 1


def test_a_rebuild_does_not_hide_an_unsynced_edit_from_the_next_sync(
        app: App, write_log: WriteLog) -> None:
    e = story(write_log)
    build(app)
    page = app.home.root / "vault" / AUTH
    tick(page)
    write_log(entry("fact", "Queue is SQS", subject="auth-migration", timestamp=DAY))
    assert build(app).lines_added >= 1  # writes the page the person edited
    result = sync(app, hide=forget_service.hide_for_vault)
    assert [(r.action, r.of) for r in result.receipts] == [("done", e["task"]["id"])]


def test_a_watcher_turned_off_returns_at_once(app: App) -> None:
    async def main() -> None:
        with trio.fail_after(scaled(5)):
            await vault_watcher(app, 0).run()
    trio.run(main)


async def test_an_edit_under_a_running_sidecar_becomes_a_correction_and_the_vault_follows_the_log(
        home: Home, workspace: Path, short_dir: Path, write_log: WriteLog,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="zettelclaw.vault.watch")
    subjects(home)
    e = story(write_log)
    root, config = built_and_watched(home, workspace, short_dir)
    async with trio.open_nursery() as nursery:
        await nursery.start(serve, config)
        tick(root / AUTH)
        await eventually(lambda: any(x.get("session") == "vault" for x in log_entries(home)))
        done = [x for x in log_entries(home) if x.get("session") == "vault"]
        assert [(x["replaces"], x["status"]) for x in done] == [(e["task"]["id"], "done")]
        await eventually(lambda: any("done of " + e["task"]["id"] in r.getMessage()
                                     for r in caplog.records))  # the receipt is logged
        # the log grows (as an extraction makes it): the new entry reaches the vault
        write_log(entry("fact", "Queue is SQS", subject="auth-migration",
                        timestamp="2026-02-21T09:00:00Z"))
        journal = root / "03 Journal" / "2026-02-21.md"
        # the build writes one page after another, in a worker thread: wait for both
        await eventually(lambda: journal.exists() and "Queue is SQS" in journal.read_text()
                         and "Queue is SQS" in (root / AUTH).read_text())
        assert (root / AUTH).read_text().count("Backfill 47") == 1  # the edit, not repeated
        nursery.cancel_scope.cancel()


def test_a_struck_line_hides_the_entry_and_asks_for_the_block_again(
        app: App, write_log: WriteLog) -> None:
    e = story(write_log)
    build(app)
    page = app.home.root / "vault" / AUTH
    fact = "Backoff is 1s, 5s, 15s"
    page.write_text(page.read_text().replace(fact, f"~~{fact}~~"))
    watcher = vault_watcher(app, 1.0)
    assert watcher.look() is False  # moving
    assert watcher.look() is True  # synced: hidden, so MEMORY.md's block is written again
    forgot = [x["forget"] for x in log_entries(app.home) if "forget" in x]
    assert forgot == [[e["fact"]["id"]]]
