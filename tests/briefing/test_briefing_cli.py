"""``zettelclaw briefing`` and the briefing lines of ``zettelclaw status``, as subprocesses, on
the files and through a sidecar; and ``zettelclaw serve`` running the briefing at start.

Covers: --dry-run --json gives the same answer in both modes (and writes nothing); a run prints
the block and what happened, and writes MEMORY.md; status shows the last and next run and
MEMORY.md's lines, and warns over 200 lines; malformed markers exit 2; a sidecar started by
``zettelclaw serve`` writes the briefing at start, on its own.
"""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.briefing.briefing_data import SUBJECTS
from tests.briefing.test_briefing_server import EXPECTED, LOG
from tests.timing import scaled
from zettelclaw.client import Client
from zettelclaw.home import Home
from zettelclaw.workspace.markers import BEGIN, END

pytestmark = pytest.mark.slow  # the zettelclaw command, a process, and often a sidecar

ZETTELCLAW = Path(sys.executable).with_name("zettelclaw")
TIMEOUT = scaled(60)  # a guard against a hung process, never a timing check


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ZETTELCLAW_", "OPENCLAW_", "ANTHROPIC_"))}
    env["ZETTELCLAW_CRON_TIMEZONE"] = "America/Detroit"
    env["ZETTELCLAW_SEARCH_SEMANTIC"] = "off"  # no embedding model in these sidecars
    return env


@dataclass(frozen=True)
class Site:
    home: Path
    workspace: Path
    socket: Path

    def argv(self, *args: str) -> list[str]:
        return [os.fspath(ZETTELCLAW), *args, "--home", os.fspath(self.home), "--socket",
                os.fspath(self.socket), "--workspace", os.fspath(self.workspace)]

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.argv(*args), capture_output=True, text=True,
                              env=clean_env(), timeout=TIMEOUT, check=False)

    def json(self, *args: str) -> Any:
        done = self.run(*args, "--json")
        assert done.returncode == 0, done.stderr
        return orjson.loads(done.stdout)


@pytest.fixture
def sockets() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="zc-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def make_site(root: Path, sockets: Path, name: str) -> Site:
    home = Home(root / name / "home")
    home.ensure()
    home.log.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in LOG))
    home.subjects.write_bytes(orjson.dumps(SUBJECTS))
    workspace = root / name / "workspace"
    workspace.mkdir()
    (workspace / "MEMORY.md").write_text("# Goals\n- ship it\n")
    return Site(home.root, workspace, sockets / f"{name}.sock")


class Sidecar:
    def __init__(self, site: Site, *args: str) -> None:
        self.proc = subprocess.Popen(site.argv("serve", *args), stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, env=clean_env())
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], TIMEOUT)
        assert ready
        assert "listening on" in self.proc.stdout.readline()

    def stop(self) -> None:
        self.proc.terminate()
        assert self.proc.wait(timeout=TIMEOUT) == 0
        assert self.proc.stdout is not None
        self.proc.stdout.close()


@pytest.fixture
def pair(tmp_path: Path, sockets: Path) -> Iterator[tuple[Site, Site]]:
    files, served = make_site(tmp_path, sockets, "files"), make_site(tmp_path, sockets, "served")
    sidecar = Sidecar(served, "--set", "cron.schedule=off")  # runs only when asked, here
    try:
        yield files, served
    finally:
        sidecar.stop()


def without_paths(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "path"}


def test_dry_run_json_is_the_same_in_both_modes(pair: tuple[Site, Site]) -> None:
    files, served = pair
    a, b = files.json("briefing", "--dry-run"), served.json("briefing", "--dry-run")
    assert without_paths(a) == without_paths(b)
    assert a["block"] == "".join(f"{line}\n" for line in EXPECTED)
    assert a["path"] == str(files.workspace / "MEMORY.md")
    assert b["path"] == str(served.workspace / "MEMORY.md")
    for site in pair:
        assert (site.workspace / "MEMORY.md").read_text() == "# Goals\n- ship it\n"


def test_a_run_prints_the_block_and_writes_memory_md(pair: tuple[Site, Site]) -> None:
    expected_file = "# Goals\n- ship it\n\n" + "".join(
        f"{line}\n" for line in (BEGIN, *EXPECTED, END))
    for site in pair:
        done = site.run("briefing")
        assert done.returncode == 0, done.stderr
        assert done.stdout == "\n".join([
            *EXPECTED, "",
            f"{site.workspace / 'MEMORY.md'}: written; the block is 15 lines, MEMORY.md 20 "
            "lines",
            "model      not used: no Anthropic API key and no connected host offers llm.complete "
            "(route auto) (the block is made from the log alone)",
        ]) + "\n"
        assert (site.workspace / "MEMORY.md").read_text() == expected_file
        again = site.run("briefing")
        assert "unchanged (not rewritten)" in again.stdout


def test_status_shows_the_briefing_and_warns_over_200_lines(pair: tuple[Site, Site]) -> None:
    for site in pair:
        before = site.run("status").stdout
        assert "briefing   last run never; next " in before
        schedule = "off" if site is pair[1] else "0 3 * * *"  # the served one: --set off
        assert f"(America/Detroit, schedule {schedule})" in before
        assert f"MEMORY.md  {site.workspace / 'MEMORY.md'}: 2 lines" in before
        site.run("briefing")
        path = site.workspace / "MEMORY.md"
        path.write_text("".join(f"line {i}\n" for i in range(200)) + path.read_text())
        after = site.run("status").stdout
        assert "briefing   last run 20" in after
        assert "(manual, changed)" in after
        assert ("warning    MEMORY.md is 220 lines; OpenClaw loads only the first 200: shorten "
                "the part outside the briefing markers") in after
        assert site.json("status")["briefing"]["memoryMdLines"] == 220


def test_malformed_markers_exit_2(pair: tuple[Site, Site]) -> None:
    for site in pair:
        (site.workspace / "MEMORY.md").write_text(f"{BEGIN}\n")
        done = site.run("briefing")
        assert done.returncode == 2
        assert "without an END" in done.stderr
        assert (site.workspace / "MEMORY.md").read_text() == f"{BEGIN}\n"


def test_serve_writes_the_briefing_at_start(tmp_path: Path, sockets: Path) -> None:
    site = make_site(tmp_path, sockets, "started")
    sidecar = Sidecar(site)
    try:
        with Client(site.socket, timeout=TIMEOUT) as client:
            for _ in range(2000):  # a bound, not a timing check: the run at start is quick
                briefing = client.call("status")["briefing"]
                if briefing["lastResult"]:
                    break
                select.select([], [], [], 0.01)
    finally:
        sidecar.stop()
    assert briefing["lastResult"]["trigger"] == "start"
    assert (site.workspace / "MEMORY.md").read_text() == "# Goals\n- ship it\n\n" + "".join(
        f"{line}\n" for line in (BEGIN, *EXPECTED, END))


def test_help() -> None:
    done = subprocess.run([os.fspath(ZETTELCLAW), "briefing", "--help"], capture_output=True,
                          text=True, env=clean_env(), timeout=TIMEOUT, check=False)
    assert done.returncode == 0
    assert done.stdout.startswith("usage: zettelclaw briefing")
    assert "--dry-run" in done.stdout
    assert "exit codes:" in done.stdout
