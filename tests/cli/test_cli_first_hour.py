"""A newcomer's first hour with the ``zettelclaw`` command: each test is a stumble
found at c7e1242, run as a subprocess in both modes (files, and a running sidecar)."""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from tests.cli.test_cli import (
    LOG,
    ZETTELCLAW,
    Pair,
    Site,
    alike,
    clean_env,
    finish,
    served_pair,
    short_sockets,  # noqa: F401 (a fixture)
    stop_server,
)
from tests.timing import scaled

pytestmark = pytest.mark.slow  # the zettelclaw command, a process, often with a sidecar

MEMORY_MD = "# Goals\n- move billing to postgres before June\n- keep the webhook queue\n"
# Appended last, dated first: filters sort by timestamp, `log` by place in the log.
BACKDATED = {"id": "f00000000009", "timestamp": "2026-01-01T00:00:00Z", "type": "fact",
             "content": "an old fact typed in by hand today", "session": "manual"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, short_sockets: Path  # noqa: F811
         ) -> Iterator[Pair]:
    for pair in served_pair(tmp_path_factory.mktemp("first-hour"), short_sockets, "first"):
        for s in (pair.files, pair.served):
            (s.workspace / "MEMORY.md").write_text(MEMORY_MD)
            with (s.home / "log.jsonl").open("ab") as f:
                f.write(orjson.dumps(BACKDATED) + b"\n")
        yield pair


def test_search_renders_hits_in_memory_files(site: Pair) -> None:
    """c7e1242: KeyError 'type' in cli/render.py, a traceback and exit 1."""
    result = site.same("search", "postgres")
    assert "MEMORY.md#L1-L3" in result.out
    assert "move billing to postgres" in result.out
    assert "Traceback" not in result.err


def test_search_takes_words_without_quotes(site: Pair) -> None:
    """c7e1242: `zettelclaw search webhook queue` exited 2 (unrecognized arguments)."""
    words = site.same("search", "webhook", "queue", "--json").json()
    quoted = site.same("search", "webhook queue", "--json").json()
    assert alike(words, quoted)  # the same results; scores alike (recency: each run's clock)
    assert {r["path"] for r in words["results"][:2]} == {"d00000000001", "MEMORY.md"}


def test_filters_alone_sort_by_timestamp_and_log_by_place(site: Pair) -> None:
    """c7e1242: filter-only results were "newest first" by log position."""
    facts = site.same("search", "--type", "fact", "--all", "--json").json()["results"]
    stamps = [r["timestamp"] for r in facts]
    assert stamps == sorted(stamps, reverse=True)
    assert facts[-1]["id"] == BACKDATED["id"]
    tail = site.same("log", "-n", "2", "--json").json()["results"]
    assert [r["id"] for r in tail] == [LOG[-1]["id"], BACKDATED["id"]]  # oldest first, as tail


def test_get_reads_an_entry_a_file_and_says_what_is_missing(site: Pair) -> None:
    entry = site.same("get", "f00000000003")
    assert "the webhook endpoint moved to v3" in entry.out
    assert "replaces f00000000002" in entry.out
    assert site.same("get", "f00000000003", "--json").json()["current"] is True
    part = site.same("get", "MEMORY.md", "--from", "2", "--lines", "1")
    assert part.out.splitlines() == ["- move billing to postgres before June",
                                     "-- MEMORY.md: lines 2-2 of 3"]
    missing = site.same("get", "zzzzzzzzzzzz", rc=3)
    assert "no entry with id zzzzzzzzzzzz" in missing.err


def test_call_speaks_the_protocol(site: Pair) -> None:
    result = site.same("call", "memory.search", '{"query": "webhook", "maxResults": 2}').json()
    assert len(result["results"]) == 2
    assert result["mode"] in ("keyword", "hybrid")
    bad = site.same("call", "memory.search", '{"maxResults": 0}', rc=2)
    assert "(code -32602)" in bad.err
    unknown = site.same("call", "no.such.method", rc=2)
    assert "(code -32601)" in unknown.err
    assert site.same("call", "status", "[1]", rc=2).err.startswith("zettelclaw: PARAMS must be")


def test_call_reads_params_from_stdin(site: Pair) -> None:
    proc = subprocess.run([*site.served.argv("call", "memory.search", "-")], env=clean_env(),
                          input='{"type": "task", "status": "open"}', capture_output=True,
                          text=True, timeout=scaled(60), check=False)
    assert proc.returncode == 0, proc.stderr
    assert [r["id"] for r in orjson.loads(proc.stdout)["results"]] == ["t00000000001"]


BUG = """
import sys
import zettelclaw.cli.main as cli
import zettelclaw.cli.reads as reads

def status(*args):  # a bug in a command: an exception no code path expects
    raise RuntimeError("an unexpected state")

reads.status = status
sys.exit(cli.main(sys.argv[1:]))
"""


def test_an_internal_error_is_one_line_and_exit_70(tmp_path: Path) -> None:
    """c7e1242: a traceback and exit 1. The bug is planted (a command that raises
    RuntimeError): every state of the disk a user can make has its own message now."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    home.mkdir(mode=0o700)
    python = ZETTELCLAW.parent / "python"
    argv = [os.fspath(python), "-c", BUG, "status", "--no-sidecar", "--home", os.fspath(home),
            "--workspace", os.fspath(workspace)]
    quiet = finish(subprocess.Popen(argv, env=clean_env(), stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True))
    assert quiet.rc == 70
    assert quiet.err.count("\n") == 1
    assert quiet.err == ("zettelclaw: internal error: RuntimeError: an unexpected state (run "
                         "with -v for the traceback)\n")
    loud = finish(subprocess.Popen([*argv, "-v"], env=clean_env(), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True))
    assert loud.rc == 70
    assert "Traceback" in loud.err


def _fresh_machine(short_dir: Path) -> dict[str, str]:
    """A HOME with nothing in it, and no setting that points elsewhere: in a short directory,
    since the default socket, HOME/.openclaw/zettelclaw/sidecar.sock, must fit in 107 bytes
    (under pytest-xdist, tmp_path is 10 bytes longer, and it failed)."""
    home = short_dir / "user"
    home.mkdir()
    env = clean_env()
    env.pop("ANTHROPIC_API_KEY", None)
    return {**env, "HOME": os.fspath(home)}


def test_a_fresh_machine_creates_the_default_workspace(short_dir: Path) -> None:
    """c7e1242: `briefing --dry-run` failed: the workspace does not exist."""
    env = _fresh_machine(short_dir)
    dry = subprocess.run([os.fspath(ZETTELCLAW), "briefing", "--dry-run"], env=env,
                         capture_output=True, text=True, timeout=scaled(60), check=False)
    assert dry.returncode == 0, dry.stderr
    workspace = Path(env["HOME"]) / ".openclaw" / "workspace"
    assert stat.S_IMODE(workspace.stat().st_mode) == 0o700
    written = subprocess.run([os.fspath(ZETTELCLAW), "briefing"], env=env,
                             capture_output=True, text=True, timeout=scaled(60), check=False)
    assert written.returncode == 0, written.stderr
    assert "BEGIN GENERATED BRIEFING" in (workspace / "MEMORY.md").read_text()


def test_an_explicit_workspace_without_a_parent_is_one_clear_line(tmp_path: Path,
                                                                  short_dir: Path) -> None:
    env = _fresh_machine(short_dir)
    missing = tmp_path / "no" / "such" / "ws"
    run = subprocess.run([os.fspath(ZETTELCLAW), "status", "--workspace", os.fspath(missing)],
                         env=env, capture_output=True, text=True, timeout=scaled(60), check=False)
    assert run.returncode == 5
    assert run.stderr.count("\n") == 1
    assert "--workspace DIR" in run.stderr
    assert not missing.parent.exists()


def test_a_first_start_on_a_fresh_machine_warns_of_nothing(tmp_path: Path,
                                                           short_dir: Path) -> None:
    """c7e1242: 'WARNING: briefing (start) failed: the workspace ... does not exist'."""
    env = _fresh_machine(short_dir)
    data = Path(env["HOME"]) / ".openclaw"
    site = Site(data / "zettelclaw", data / "workspace", tmp_path / "s.sock")
    argv = [os.fspath(ZETTELCLAW), "serve", "--socket", os.fspath(site.socket)]
    err = tmp_path / "serve.err"
    with err.open("w") as stderr:
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=stderr, text=True)
    try:
        assert proc.stdout is not None
        assert "listening on" in proc.stdout.readline()
        done = subprocess.run([os.fspath(ZETTELCLAW), "status", "--socket",
                               os.fspath(site.socket), "--json"], env=env, capture_output=True,
                              text=True, timeout=scaled(60), check=False)
        assert done.returncode == 0, done.stderr
        assert orjson.loads(done.stdout)["briefing"]["lastResult"]["ok"] is True
    finally:
        assert stop_server(proc) == 0
    assert "WARNING" not in err.read_text(), err.read_text()
    assert (site.workspace / "MEMORY.md").exists()
