"""A full disk: a real tmpfs of 4 MiB as the data directory, filled up. Writes answer
-32010 naming the cause (c7e1242: -32603), nothing half-written is left, reads go on, and once
there is room again the same calls succeed. Needs root to mount; skipped, saying so, elsewhere."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import trio

from tests.cli.test_cli import ZETTELCLAW, clean_env
from tests.conftest import entry, line
from tests.timing import scaled
from zettelclaw.client import AsyncClient, Client
from zettelclaw.errors import DataDirError
from zettelclaw.home import Home
from zettelclaw.index.file_chunks import WorkspaceIndexer
from zettelclaw.index.freshness import Freshness
from zettelclaw.serve import Ready, ServerConfig, serve

pytestmark = pytest.mark.slow  # mounts a tmpfs and runs a sidecar process


@pytest.fixture
def tmpfs() -> Iterator[Path]:
    if os.getuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root (and mount); the injected-errno tests "
                    "in test_dispatcher cover the codes")
    where = Path(tempfile.mkdtemp(prefix="zc-full-", dir="/tmp"))
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs",
                           str(where)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        where.rmdir()
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)
        where.rmdir()


def fill(directory: Path) -> Path:
    filler = directory / "filler"
    with filler.open("wb") as f:
        try:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        except OSError:
            pass
    return filler


def test_a_full_disk_is_answered_minus_32010_and_nothing_is_lost(tmpfs: Path,
                                                                  short_dir: Path) -> None:
    home, sock = tmpfs / "home", short_dir / "s.sock"
    home.mkdir(mode=0o700)
    kept = [entry(subject="disk", content=f"kept {i}") for i in range(5)]
    (home / "log.jsonl").write_bytes(b"".join(line(e) for e in kept))
    (short_dir / "ws").mkdir()
    env = {**clean_env(), "ZETTELCLAW_CRON_SCHEDULE": "off"}
    proc = subprocess.Popen([os.fspath(ZETTELCLAW), "serve", "--home", os.fspath(home),
                             "--socket", os.fspath(sock), "--workspace",
                             os.fspath(short_dir / "ws")], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        assert b"listening on" in proc.stdout.readline()
        hook = {"sessionId": "full-disk-1", "sessionKey": "agent:main:main",
                "messages": [{"role": "user", "content": "remember this " * 20_000}]}
        with Client(sock, timeout=scaled(30)) as client:
            client.call("memory.search", {"subject": "disk"})  # the index caught up
            late = entry(subject="disk", content="written just before the disk filled " * 5000)
            with (home / "log.jsonl").open("ab") as f:
                f.write(line(late))  # the index must grow to take it in: it cannot
            filler = fill(tmpfs)
            writes: list[tuple[str, dict[str, Any]]] = [
                ("hook.sessionEnd", hook), ("subjects.add", {"slug": "new-one", "display": "New"})]
            for method, params in writes:
                with pytest.raises(DataDirError, match="the disk is full"):
                    client.call(method, params)
            # reads go on, from the index as it is (c7e1242, and this commit's parent: -32603)
            assert len(client.call("memory.search", {"subject": "disk"})["results"]) >= 5
            assert client.call("status")["pid"] == proc.pid
            assert not list((home / "spool").glob("*.json"))  # no half-made job
            assert orjson.loads((home / "subjects.json").read_bytes()).get("new-one") is None
            filler.unlink()
            assert client.call("hook.sessionEnd", hook)["jobId"]  # room again: it goes
            assert client.call("subjects.add", {"slug": "new-one", "display": "New"})
            found = client.call("memory.search", {"subject": "disk", "maxResults": 10})
            assert len(found["results"]) == 6  # room again: the index caught up
        contents = [orjson.loads(raw)["content"] for raw in
                    (home / "log.jsonl").read_bytes().splitlines()]
        assert contents == [e["content"] for e in [*kept, late]]
    finally:
        proc.terminate()
        proc.communicate(timeout=scaled(30))


def test_a_memory_file_changed_on_a_full_disk_leaves_searches_answered_saying_so(
        tmpfs: Path, short_dir: Path) -> None:
    """At caac987 a full disk and any change to MEMORY.md (the nightly
    briefing is one) made every memory.search answer -32010, of the log alone and filters too.
    They are answered from the index there is, with ``stale`` saying why."""
    home, sock, ws = tmpfs / "home", short_dir / "s.sock", short_dir / "ws"
    home.mkdir(mode=0o700)
    kept = [entry(subject="disk", content=f"kept {i} about xylophones") for i in range(5)]
    (home / "log.jsonl").write_bytes(b"".join(line(e) for e in kept))
    ws.mkdir()
    (ws / "MEMORY.md").write_text("# Memory\n\nxylophones are loud\n")
    env = {**clean_env(), "ZETTELCLAW_CRON_SCHEDULE": "off"}
    proc = subprocess.Popen([os.fspath(ZETTELCLAW), "serve", "--home", os.fspath(home),
                             "--socket", os.fspath(sock), "--workspace", os.fspath(ws)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        assert b"listening on" in proc.stdout.readline()
        with Client(sock, timeout=scaled(30)) as client:
            first = client.call("memory.search", {"query": "xylophones"})
            assert "stale" not in first
            filler = fill(tmpfs)
            (ws / "MEMORY.md").write_text("# Memory\n\n" + "xylophones are loud\n" * 20_000)
            for params in [{"query": "xylophones"}, {"subject": "disk"},
                           {"query": "xylophones", "corpus": "log"}]:
                found = client.call("memory.search", params)
                assert len([r for r in found["results"] if r["source"] == "log"]) == 5
                assert "the disk is full" in found["stale"]["reason"]
            filler.unlink()
            again = client.call("memory.search", {"query": "xylophones"})
            assert "stale" not in again
    finally:
        proc.terminate()
        proc.communicate(timeout=scaled(30))


async def test_searches_answer_from_the_index_there_is_when_indexing_meets_a_full_disk(
        server_config: ServerConfig, home: Home, workspace: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 6 without a tmpfs: the errno injected where the index is written (the memory files'
    chunks, then the log's entries); every search is answered, ``stale`` saying why."""
    home.ensure()
    home.log.write_bytes(b"".join(line(entry(subject="disk", content=f"kept {i} xylophones"))
                                  for i in range(3)))
    async with trio.open_nursery() as nursery:
        ready: Ready = await nursery.start(serve, server_config)
        async with await AsyncClient.connect(ready.socket) as client:
            assert "stale" not in await client.call("memory.search", {"query": "xylophones"})

            def full(*_: object) -> None:
                raise OSError(errno.ENOSPC, "No space left on device")

            monkeypatch.setattr(WorkspaceIndexer, "_walk", full)
            (workspace / "MEMORY.md").write_text("# Memory\n\nxylophones\n")
            for params in [{"query": "xylophones"}, {"subject": "disk"}]:
                found = await client.call("memory.search", params)
                assert len(found["results"]) == 3
                assert "the disk is full" in found["stale"]["reason"]
            monkeypatch.undo()
            monkeypatch.setattr(Freshness, "sync", full)
            with home.log.open("ab") as f:
                f.write(line(entry(subject="disk", content="late xylophones")))
            found = await client.call("memory.search", {"subject": "disk"})
            assert found["stale"]["reason"] == ("the log could not be indexed up to its end: "
                                                "the disk is full")
            monkeypatch.undo()
            found = await client.call("memory.search", {"subject": "disk"})
            assert "stale" not in found
            assert len(found["results"]) == 4
        nursery.cancel_scope.cancel()
