"""States of the machine and the data directory (its owner, a log that is a link) that once
crashed the sidecar: each is now survived or refused with one clear line."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest
import trio

from tests.cli.test_cli import ZETTELCLAW, clean_env
from tests.timing import scaled
from zettelclaw.agents.briefings import AgentBriefings
from zettelclaw.client import AsyncClient, Client
from zettelclaw.errors import ZettelclawError
from zettelclaw.home import Home
from zettelclaw.serve import Ready, ServerConfig, serve

pytestmark = pytest.mark.slow  # sidecar processes on broken data directories


def serve_argv(home: Path, sock: Path) -> list[str]:
    return [os.fspath(ZETTELCLAW), "serve", "--home", os.fspath(home), "--socket",
            os.fspath(sock), "--workspace", os.fspath(home.parent / "ws"),
            "--set", "cron.schedule=off"]


def refused(home: Path, sock: Path) -> subprocess.CompletedProcess[str]:
    (home.parent / "ws").mkdir(exist_ok=True)
    return subprocess.run(serve_argv(home, sock), env=clean_env(), capture_output=True,
                          text=True, timeout=scaled(60), check=False)


def test_an_index_that_is_a_directory_is_named_not_a_traceback(tmp_path: Path,
                                                               short_dir: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "index.sqlite").mkdir()
    done = refused(home, short_dir / "s.sock")
    assert done.returncode == 5
    assert done.stderr == (f"zettelclaw: {home}/index.sqlite cannot be the search index (Is a "
                           "directory): move it away; the index is rebuilt from the log\n")


def test_a_log_that_is_a_symbolic_link_is_refused(tmp_path: Path, short_dir: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    elsewhere = tmp_path / "elsewhere.jsonl"
    elsewhere.write_text("")
    (home / "log.jsonl").symlink_to(elsewhere)
    done = refused(home, short_dir / "s.sock")
    assert done.returncode == 5
    assert "log.jsonl is a symbolic link" in done.stderr
    assert elsewhere.read_text() == ""


@pytest.mark.skipif(os.getuid() != 0, reason="giving a directory to another uid needs root")
def test_a_data_directory_of_another_user_is_refused(tmp_path: Path, short_dir: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    os.chown(home, 12345, 12345)
    done = refused(home, short_dir / "s.sock")
    assert done.returncode == 5
    assert f"{home} is owned by uid 12345, not by you (uid 0)" in done.stderr


FEW_FDS = """
import os, resource, sys
resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
os.execv(sys.argv[1], sys.argv[1:])
"""


def test_out_of_file_descriptors_right_after_start_is_survived(tmp_path: Path,
                                                               short_dir: Path) -> None:
    """c7e1242 died: the SDK's import, in the background, met EMFILE and nothing caught it."""
    home, sock = tmp_path / "home", short_dir / "s.sock"

    env = {**clean_env(), "ANTHROPIC_API_KEY": "unused"}
    proc = subprocess.Popen([sys.executable, "-c", FEW_FDS, *serve_argv(home, sock)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines: list[str] = []
    import_failures = threading.Semaphore(0)

    def read_log() -> None:
        assert proc.stderr is not None
        for raw in proc.stderr:
            lines.append(raw.decode(errors="replace"))
            if "loading the Anthropic SDK failed" in lines[-1]:
                import_failures.release()

    reader = threading.Thread(target=read_log, daemon=True)
    reader.start()
    try:
        assert proc.stdout is not None
        assert b"listening on" in proc.stdout.readline()
        flood = []
        for _ in range(120):  # more than the sidecar has descriptors left
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(os.fspath(sock))
            flood.append(s)
        for attempt in ("the SDK's import", "its retry a second later"):  # into the limit
            assert import_failures.acquire(timeout=scaled(30)), f"{attempt} never failed: {lines}"
            assert proc.poll() is None, "".join(lines)
        for s in flood:
            s.close()
        deadline = time.monotonic() + 30
        while True:  # accepting resumes once descriptors are free
            try:
                with Client(sock, timeout=scaled(5)) as client:
                    status = client.call("status")
                break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.2)
        assert status["pid"] == proc.pid
        assert proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(timeout=scaled(30))
        reader.join(30)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    assert sum("accept returned EMFILE" in line for line in lines) <= 2  # not ten a second


async def test_the_schedule_failing_on_a_full_disk_is_logged_and_survived(
        server_config: ServerConfig, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """c7e1242 died: Scheduler.run -> record_next -> atomic_write_json raised on a full disk."""
    calls: list[object] = []

    def full_disk(self: AgentBriefings, upcoming: object) -> None:
        calls.append(upcoming)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(AgentBriefings, "record_next", full_disk)
    monkeypatch.setattr("zettelclaw.briefing.scheduler.Scheduler.due_at_start",
                        lambda self, last: False)
    config = replace(server_config, briefing_schedule=True)
    async with trio.open_nursery() as nursery:
        ready: Ready = await nursery.start(serve, config)
        with trio.fail_after(scaled(10)):
            while True:  # record_next runs in a worker thread
                if calls:
                    break
                await trio.sleep(0.01)
        async with await AsyncClient.connect(ready.socket) as client:
            assert (await client.call("status"))["pid"] == os.getpid()
        nursery.cancel_scope.cancel()
    assert any("the briefing schedule failed; it starts again" in r.getMessage()
               for r in caplog.records)


async def test_an_entry_dated_past_year_9999_in_utc_is_an_invalid_line_not_a_broken_briefing(
        server_config: ServerConfig, home: Home) -> None:
    good = {"id": "e00000000001", "timestamp": "2026-11-20T10:00:00Z", "type": "fact",
            "content": "kept", "session": "s", "subject": "launch"}
    bad = {**good, "id": "e00000000002", "timestamp": "9999-12-31T23:59:59-23:00"}
    home.log.write_bytes(orjson.dumps(good) + b"\n" + orjson.dumps(bad) + b"\n")
    async with trio.open_nursery() as nursery:
        ready: Ready = await nursery.start(serve, server_config)
        async with await AsyncClient.connect(ready.socket) as client:
            run = await client.call("briefing.generate", {"dryRun": True})
            status = await client.call("status")
            until = await client.call("memory.search", {"until": "9999-12-31"})
        nursery.cancel_scope.cancel()
    assert run["block"]
    assert status["invalidLines"]["count"] == 1
    assert "timestamp out of range" in status["invalidLines"]["first"][0]["reason"]
    assert [r["id"] for r in until["results"]] == ["e00000000001"]


async def test_long_names_and_far_dates_are_bad_params_not_internal_errors(
        server_config: ServerConfig, workspace: Path) -> None:
    """c7e1242 answered -32603 to each of these."""
    (workspace / "memory").mkdir(exist_ok=True)
    async with trio.open_nursery() as nursery:
        ready: Ready = await nursery.start(serve, server_config)
        async with await AsyncClient.connect(ready.socket) as client:
            asked: list[tuple[str, dict[str, Any]]] = [
                ("memory.get", {"path": "memory/" + "a" * 300 + ".md"}),
                ("briefing.generate", {"workspaceDir": str(workspace / ("b" * 300)),
                                       "dryRun": True}),
                ("memory.search", {"until": "9999-12-31T23:59:59-23:00x"}),
            ]
            codes = []
            for method, params in asked:
                try:
                    await client.call(method, params)
                except ZettelclawError as exc:
                    codes.append(exc.code)
            until = await client.call("memory.search", {"until": "9999-12-31"})
        nursery.cancel_scope.cancel()
    assert codes == [-32602, -32602, -32602]
    assert until["results"] == []


def test_an_entry_of_20_mb_without_spaces_is_listed_searched_and_read(tmp_path: Path) -> None:
    """c7e1242: `log` and `search` did not finish in 120 s (16 MiB took 224 s): the wrapping
    and the line reader were quadratic. The timeout here only guards against a hang."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    home.mkdir(mode=0o700)
    workspace.mkdir()
    small = {"id": "e00000000001", "timestamp": "2026-02-20T14:00:00Z", "type": "fact",
             "content": "a small fact about xylophones", "session": "s"}
    huge = {**small, "id": "e00000000002", "content": "x" * (20 << 20)}
    home.joinpath("log.jsonl").write_bytes(orjson.dumps(small) + b"\n" + orjson.dumps(huge)
                                           + b"\n")
    base = ["--no-sidecar", "--home", os.fspath(home), "--workspace", os.fspath(workspace)]

    def run(*args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([os.fspath(ZETTELCLAW), *args, *base], env=clean_env(),
                              capture_output=True, timeout=scaled(120), check=True)

    listed = run("log").stdout.decode()
    assert "(cut for the list: `zettelclaw get e00000000002` shows all of it)" in listed
    assert len(listed) < 100_000
    found = orjson.loads(run("search", "--type", "fact", "--json").stdout)["results"]
    assert {r["id"]: r.get("contentTruncated", False) for r in found} == {
        "e00000000001": False, "e00000000002": True}
    assert b"xylophones" in run("search", "xylophones").stdout
    whole = orjson.loads(run("get", "e00000000002", "--json").stdout)
    assert len(whole["entry"]["content"]) == 20 << 20
