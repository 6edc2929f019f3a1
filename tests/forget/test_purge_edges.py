"""A purge's edges: what a write cut short by a kill left (temp files, in every place a purge
writes to) goes with the purge, a resumed one too; a purge a full disk stops says so and how
to go on."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.conftest import entry
from tests.direct import open_pool
from tests.forget.test_forget_crash import ZETTELCLAW, Sidecar
from tests.hostile.test_full_disk import tmpfs
from tests.timing import scaled
from zettelclaw.agents.pool import Agents
from zettelclaw.cli import render
from zettelclaw.client import SidecarUnavailableError
from zettelclaw.forget import purge
from zettelclaw.home import Home
from zettelclaw.methods import build_methods
from zettelclaw.protocol.dispatcher import Dispatcher

FACT = "the spare key hides under the blue zucchini pot"
WORD = "zucchini"
__all__ = ["tmpfs"]  # a fixture, used by name


def grep(root: Path, text: str) -> list[str]:
    found = subprocess.run(["grep", "-rlaF", text, str(root)], capture_output=True, text=True,
                           check=False)
    return found.stdout.split()


def fill(directory: Path) -> Path:
    """The file system of ``directory`` filled to its last byte (unbuffered writes, smaller
    and smaller)."""
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        size = 1 << 20
        while size:
            try:
                os.write(fd, b"\0" * size)
            except OSError:
                size //= 2
    finally:
        os.close(fd)
    return filler


def calls(pool: Agents) -> Dispatcher:
    return Dispatcher(build_methods(pool, dict))


@pytest.fixture
async def built(home: Home, workspace: Path, write_log: Any) -> dict[str, Any]:
    """A memory holding the fact (log, a conversation copy, a spooled job, a built vault), and
    another entry; the pool closed before the test runs its purge."""
    fact = entry("fact", FACT, subject="garden", session="s-key")
    other = entry("decision", "water the fig tree weekly", subject="garden", session="s-fig")
    write_log(fact, other)
    agents = open_pool(home, workspace)
    try:
        d = calls(agents)
        hook = {"sessionId": "s-key", "sessionKey": "agent:main:main", "reason": "new",
                "messages": [{"role": "user", "content": f"Remember: {FACT}.",
                              "timestamp": 1795234915428}]}
        assert (await d.call("hook.sessionEnd", hook))["accepted"]
        await d.call("vault.build", {})
    finally:
        agents.close_all()
    return {"fact": fact, "other": other}


def plant_leftovers(home: Home) -> list[Path]:
    """The temp files writes cut short by kill -9 leave beside each file a purge replaces, each
    holding the fact: of another process (a pid not this one's), and of an earlier process
    that had this one's pid (a container's sidecar restarts with its pid)."""
    vault = home.root / "vault"
    places = [
        home.root / "vault-state" / "pages" / "0123456789abcdef0123.json",
        home.root / "vault-state" / "state.json",
        next(vault.rglob("Garden.md")),
        home.root / "transcripts" / "s-key.jsonl",
        next((home.root / "spool").glob("*.json")),
        home.root / "exports" / "log.json",
    ]
    places[-1].parent.mkdir(mode=0o700, exist_ok=True)
    planted = []
    for n, place in enumerate(places):
        pid = os.getpid() if n % 2 else 999_999_999
        temp = place.with_name(f".{place.name}.{pid}.tmp")
        temp.write_text(f"- {FACT} ^zc0000\n")
        if pid == os.getpid():
            os.utime(temp, (1_600_000_000, 1_600_000_000))  # before this process started
        planted.append(temp)
    for rewrite in ("purge", "rename"):  # the log rewrites' own temp files
        temp = home.log.with_name(f".log.jsonl.{rewrite}.tmp")
        temp.write_bytes(orjson.dumps(entry("fact", FACT)) + b"\n")
        planted.append(temp)
    return planted


async def test_a_purge_removes_every_temp_file_a_killed_write_left(
        home: Home, workspace: Path, built: dict[str, Any], tmp_path: Path) -> None:
    planted = plant_leftovers(home)
    agents = open_pool(home, workspace)
    try:
        answer = await calls(agents).call("memory.forget", {"session": "s-key", "purge": True})
    finally:
        agents.close_all()
    assert answer["changed"] == 1
    assert [p for p in planted if p.exists()] == []
    assert grep(tmp_path, WORD) == []
    assert built["other"]["id"] in home.log.read_text()


async def test_a_resumed_purge_removes_them_too(
        home: Home, workspace: Path, built: dict[str, Any], tmp_path: Path) -> None:
    """kill -9 mid-purge: the intent stays, with what the killed writes left; the next start
    finishes the purge, and no copy of the text survives it."""
    purge.write_intent(home, [built["fact"]["id"]], ["s-key"], ["s-key"])
    planted = plant_leftovers(home)
    agents = open_pool(home, workspace)
    try:
        await calls(agents).call("status", {})  # the memory opened: the purge resumed
    finally:
        agents.close_all()
    assert not purge.intent_path(home).exists()
    assert [p for p in planted if p.exists()] == []
    assert grep(tmp_path, WORD) == []


@pytest.mark.slow
def test_a_purge_the_full_disk_stopped_at_its_index_step_says_so_at_start_and_finishes_later(
        tmpfs: Path, short_dir: Path) -> None:
    """kill -9 once the files are scrubbed (the index not yet built again), then the disk
    fills: the next start cannot finish the purge. It says the disk is full, what it needs and
    the way on (exit 5), not "internal error"; with room again it starts, purge finished."""
    home = tmpfs / "home"
    home.mkdir(mode=0o700)
    others = [entry("fact", f"other fact number {n} " + "filler " * 40) for n in range(400)]
    purged = entry("fact", FACT, session="s-key")
    (home / "log.jsonl").write_bytes(b"".join(orjson.dumps(e) + b"\n"
                                              for e in [*others, purged]))
    car = Sidecar(home, short_dir / "s.sock")
    car.start()
    assert car.call("memory.search", {"query": WORD})["results"]
    car.stop()
    car.start(failpoint="purge-after-vault")
    with pytest.raises(SidecarUnavailableError):
        car.call("memory.forget", {"session": "s-key", "purge": True})
    car.stop()
    assert (home / "purge.json").exists()
    filler = fill(tmpfs)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZETTELCLAW_")}
    env["ZETTELCLAW_CRON_SCHEDULE"] = "off"
    refused = subprocess.run(
        [ZETTELCLAW, "serve", "--home", str(home), "--socket", str(short_dir / "s.sock"),
         "--set", "search.semantic=off"], capture_output=True, text=True, env=env,
        timeout=scaled(120), check=False)
    assert refused.returncode == 5, refused.stderr
    assert "internal error" not in refused.stderr
    assert "a purge is not finished: the disk is full" in refused.stderr
    assert "MiB free" in refused.stderr
    assert "then start again" in refused.stderr
    filler.unlink()
    car.start()
    try:
        assert not (home / "purge.json").exists()
        assert car.call("memory.search", {"query": WORD})["results"] == []
        assert car.call("status")["entries"]["total"] == len(others)
    finally:
        car.stop()


async def test_a_purge_takes_on_the_one_a_full_disk_left_unfinished(
        home: Home, workspace: Path, built: dict[str, Any], write_log: Any,
        tmp_path: Path) -> None:
    """The intent of a purge the machine stopped stays; the next purge (of something else)
    finishes it too instead of writing over it."""
    later = write_log(entry("fact", "the gate code is on the fridge", session="s-gate"))[0]
    agents = open_pool(home, workspace)
    try:
        d = calls(agents)
        await d.call("status", {})  # open: the stopped purge happens while it serves
        purge.write_intent(home, [built["fact"]["id"]], ["s-key"], ["s-key"])
        answer = await d.call("memory.forget", {"ids": [later["id"]], "purge": True})
    finally:
        agents.close_all()
    assert answer["changed"] == 1
    assert grep(tmp_path, WORD) == []
    assert grep(tmp_path, "gate code") == []
    assert built["other"]["id"] in home.log.read_text()


async def test_a_forget_names_the_memory_file_lines_that_still_hold_the_text(
        home: Home, workspace: Path, write_log: Any) -> None:
    """After importing the workspace, `forget --purge` reported success while search still
    found the text in memory/*.md. The answer names those lines (the person's file, not
    edited), and not MEMORY.md's generated block."""
    (workspace / "memory" / "notes.md").write_text(
        f"# Notes\n\n- the fig tree needs water\n- {FACT.capitalize()}\n")
    (workspace / "MEMORY.md").write_text("# Mine\n")
    imported = entry("fact", FACT, session="import-notes")
    write_log(imported, entry("fact", "the fig tree needs water", session="import-notes"))
    agents = open_pool(home, workspace)
    try:
        d = calls(agents)
        await d.call("briefing.generate", {})
        answer = await d.call("memory.forget", {"text": WORD, "purge": True})
        assert answer["changed"] == 1
        assert answer["inMemoryFiles"] == [
            {"path": "memory/notes.md", "line": 4, "text": f"- {FACT.capitalize()}",
             "deleted": False}]
        found = await d.call("memory.search", {"query": WORD})
        assert [r["source"] for r in found["results"]] == ["memory"]  # what it said is so
        quiet = await d.call("memory.forget", {"text": "nothing like it", "dryRun": True})
        assert quiet["inMemoryFiles"] == []
    finally:
        agents.close_all()
    text = render.forgot(answer)
    assert "still in your memory files" in text
    assert f"  memory/notes.md:4: - {FACT.capitalize()}" in text


async def test_a_hidden_entry_leaves_the_vault_pages(
        home: Home, workspace: Path, write_log: Any, tmp_path: Path) -> None:
    fact = entry("fact", FACT, subject="garden", session="s-key")
    write_log(fact, entry("fact", "water the fig tree weekly", subject="garden"))
    agents = open_pool(home, workspace)
    try:
        d = calls(agents)
        await d.call("vault.build", {})
        vault = home.root / "vault"
        assert grep(vault, WORD)
        await d.call("memory.forget", {"ids": [fact["id"]]})
        assert grep(vault, WORD) == []
        assert grep(home.root / "vault-state", WORD) == []
        assert grep(vault, "water the fig tree weekly")  # the rest stays
        assert (await d.call("vault.sync", {}))["receipts"] == []  # no edit is read into it
    finally:
        agents.close_all()


async def test_edit_files_deletes_those_lines_and_nothing_else(
        home: Home, workspace: Path, write_log: Any) -> None:
    notes = workspace / "memory" / "notes.md"
    notes.write_text(f"# Notes\n\n- the fig tree needs water\n- {FACT}\n- the end\n")
    notes.chmod(0o640)
    write_log(entry("fact", FACT, session="import-notes"))
    agents = open_pool(home, workspace)
    try:
        d = calls(agents)
        dry = await d.call("memory.forget", {"text": WORD, "purge": True, "dryRun": True,
                                             "editFiles": True})
        assert dry["inMemoryFiles"][0]["deleted"] is False
        assert FACT in notes.read_text()  # a dry run edits nothing
        answer = await d.call("memory.forget", {"text": WORD, "purge": True,
                                                "editFiles": True})
        assert answer["inMemoryFiles"] == [
            {"path": "memory/notes.md", "line": 4, "text": f"- {FACT}", "deleted": True}]
        assert notes.read_text() == "# Notes\n\n- the fig tree needs water\n- the end\n"
        assert notes.stat().st_mode & 0o777 == 0o640
        assert (await d.call("memory.search", {"query": WORD}))["results"] == []
    finally:
        agents.close_all()
    assert "deleted from your memory files:" in render.forgot(answer)
