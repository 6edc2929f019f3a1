"""The ``zettelclaw`` command as a subprocess, in both of its modes.

Every command runs twice, at once: on a data directory no sidecar serves (the CLI works on the
files), and on an identical one that a ``zettelclaw serve`` subprocess serves (the CLI asks it).
The answers (``--json``) and exit codes must be the same. One pair of data directories serves
the read-only commands of this module, another the commands that write.
"""

from __future__ import annotations

import math
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.timing import scaled
from zettelclaw.home import Home

pytestmark = pytest.mark.slow  # the zettelclaw command, a process, often with a sidecar

ZETTELCLAW = Path(sys.executable).with_name("zettelclaw")
TIMEOUT = scaled(60)  # a guard against a hung subprocess, never a timing check

# A small log: ids tell the type (t: task, f: fact, d: decision, q: question, h: handoff).
LOG: list[dict[str, Any]] = [
    {"id": "t00000000001", "timestamp": "2026-02-18T09:00:00Z", "type": "task",
     "content": "write the backfill script", "status": "open", "subject": "auth-migration",
     "session": "s-1"},
    {"id": "t00000000002", "timestamp": "2026-02-18T10:00:00Z", "type": "task",
     "content": "rotate the webhook secret", "status": "done", "subject": "auth-migration",
     "session": "s-1"},
    {"id": "f00000000001", "timestamp": "2026-02-19T12:00:00Z", "type": "fact",
     "content": "invoices are generated nightly", "subject": "billing", "session": "s-2"},
    {"id": "d00000000001", "timestamp": "2026-02-20T08:00:00Z", "type": "decision",
     "content": "queue-based retries for webhook delivery",
     "detail": "cascading failures under load", "subject": "auth-migration", "session": "s-2"},
    {"id": "f00000000002", "timestamp": "2026-02-20T23:59:59Z", "type": "fact",
     "content": "the webhook endpoint moved to v2", "session": "s-3"},
    {"id": "f00000000003", "timestamp": "2026-02-21T01:00:00Z", "type": "fact",
     "content": "the webhook endpoint moved to v3", "replaces": "f00000000002",
     "session": "s-3"},
    {"id": "q00000000001", "timestamp": "2026-02-21T02:00:00Z", "type": "question",
     "content": "who owns the billing cron?", "session": "s-3"},
    {"id": "h00000000001", "timestamp": "2026-02-21T03:00:00Z", "type": "handoff",
     "content": "auth migration half done", "session": "s-3"},
]
ALL_IDS = [e["id"] for e in LOG]


def clean_env() -> dict[str, str]:
    """This process's environment without anything that would choose another data directory
    (and without semantic search: the answers of both modes are compared)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ZETTELCLAW_", "OPENCLAW_"))}
    env["ZETTELCLAW_SEARCH_SEMANTIC"] = "off"  # no embedding model in these sidecars
    return env


@dataclass(frozen=True)
class Result:
    argv: list[str]
    rc: int
    out: str
    err: str

    def json(self) -> Any:
        return orjson.loads(self.out)


@dataclass(frozen=True)
class Site:
    """A data directory, its workspace and the socket path the CLI is pointed at."""

    home: Path
    workspace: Path
    socket: Path

    def argv(self, *args: str) -> list[str]:
        return [os.fspath(ZETTELCLAW), *args, "--home", os.fspath(self.home),
                "--socket", os.fspath(self.socket), "--workspace", os.fspath(self.workspace)]

    def start(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(self.argv(*args), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=clean_env())

    def run(self, *args: str) -> Result:
        return finish(self.start(*args))


def finish(proc: subprocess.Popen[str]) -> Result:
    out, err = proc.communicate(timeout=TIMEOUT)
    assert isinstance(proc.args, list)
    return Result([str(a) for a in proc.args], proc.returncode, out, err)


def make_site(root: Path, sockets: Path, name: str) -> Site:
    home = Home(root / name / "home")
    home.ensure()
    home.log.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in LOG))
    workspace = root / name / "workspace"
    (workspace / "memory").mkdir(parents=True)
    return Site(home.root, workspace, sockets / f"{name}.sock")


@dataclass
class Pair:
    """Two identical data directories: ``files`` with no sidecar, ``served`` with one."""

    files: Site
    served: Site
    server: subprocess.Popen[str]

    def run(self, *args: str) -> tuple[Result, Result]:
        """Run the command in both modes at once."""
        procs = self.files.start(*args), self.served.start(*args)
        return finish(procs[0]), finish(procs[1])

    def same(self, *args: str, rc: int = 0) -> Result:
        """Run in both modes; both exit ``rc`` and, with --json, print the same JSON."""
        files, served = self.run(*args)
        assert files.rc == rc, files
        assert served.rc == rc, served
        if "--json" in args:
            assert alike(files.json(), served.json()), (files, served)
        return files


def alike(a: Any, b: Any) -> bool:
    """Equal, but for floats, which may differ in the last printed digit: a score's recency is
    counted from each process's own clock, and the two runs start a fraction of a second apart
    (a 6-digit score flipped once in ~100 runs)."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-6)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(alike(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(alike(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def start_server(site: Site, stderr: Path) -> tuple[subprocess.Popen[str], str]:
    """``zettelclaw serve`` on ``site``; returns it once its ready line is read, with the line."""
    with stderr.open("w") as err:
        # the briefing only when asked: a run at start would add MEMORY.md to one site only
        proc = subprocess.Popen(site.argv("serve", "--set", "cron.schedule=off"),
                                stdout=subprocess.PIPE, stderr=err,
                                text=True, env=clean_env())
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], TIMEOUT)
    line = proc.stdout.readline() if ready else ""
    if not line:
        proc.kill()
        proc.wait()
        pytest.fail(f"serve did not get ready: {stderr.read_text()}")
    return proc, line


def stop_server(proc: subprocess.Popen[str]) -> int:
    proc.send_signal(signal.SIGTERM)
    rc = proc.wait(timeout=TIMEOUT)
    assert proc.stdout is not None
    proc.stdout.close()
    return rc


@pytest.fixture(scope="module")
def short_sockets() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="zc-", dir="/tmp"))
    os.chmod(path, 0o700)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def served_pair(root: Path, sockets: Path, name: str) -> Iterator[Pair]:
    files, served = make_site(root, sockets, f"{name}-files"), make_site(root, sockets,
                                                                         f"{name}-served")
    server, line = start_server(served, root / f"{name}-serve.err")
    assert str(served.socket) in line
    try:
        yield Pair(files, served, server)
    finally:
        assert stop_server(server) == 0
    assert not served.socket.exists()
    assert not files.socket.exists()  # nothing ever served the files-mode site


@pytest.fixture(scope="module")
def reads(tmp_path_factory: pytest.TempPathFactory, short_sockets: Path) -> Iterator[Pair]:
    yield from served_pair(tmp_path_factory.mktemp("cli"), short_sockets, "reads")


@pytest.fixture(scope="module")
def writes(tmp_path_factory: pytest.TempPathFactory, short_sockets: Path) -> Iterator[Pair]:
    yield from served_pair(tmp_path_factory.mktemp("cli"), short_sockets, "writes")


def ids(result: Result) -> list[str]:
    return [r["id"] for r in result.json()["results"]]


# -- reads, in both modes --------------------------------------------------------------------


def test_status_reports_where_the_answer_came_from(reads: Pair) -> None:
    files, served = reads.run("status", "--json")
    assert files.rc == served.rc == 0
    a, b = files.json(), served.json()
    for key in ("version", "log", "entries", "invalidLines", "subjects"):
        assert a[key] == b[key], key
    assert a["entries"] == {"total": 8, "current": 7, "replaced": 1, "byType": {
        "task": 2, "fact": 3, "decision": 1, "question": 1, "handoff": 1}}
    assert a["server"]["socket"] is None
    assert b["server"]["socket"] == str(reads.served.socket)
    assert b["pid"] == reads.server.pid
    assert a["home"] == str(reads.files.home)
    assert b["home"] == str(reads.served.home)


def test_status_text(reads: Pair) -> None:
    files, served = reads.run("status")
    assert files.rc == served.rc == 0
    assert f"files in {reads.files.home}" in files.out
    assert "not running" in files.out
    assert f"sidecar at {reads.served.socket}" in served.out
    assert f"pid {reads.server.pid}" in served.out
    for out in (files.out, served.out):
        assert "entries    8 (" in out
        assert "without a newline" not in out  # no torn tail: the index has read it all


def test_log_shows_every_entry_oldest_first(reads: Pair) -> None:
    assert ids(reads.same("log", "--json")) == ALL_IDS  # replaced entries too


def test_log_n_as_text(reads: Pair) -> None:
    files, served = reads.run("log", "-n", "2")
    assert files.rc == served.rc == 0
    assert files.out == served.out
    assert "f00000000003" not in files.out
    assert files.out.index("q00000000001") < files.out.index("h00000000001")  # oldest first
    assert "auth migration half done" in files.out


def test_search_by_keyword_hides_replaced_entries(reads: Pair) -> None:
    assert set(ids(reads.same("search", "webhook", "--json"))) == {
        "t00000000002", "d00000000001", "f00000000003"}


def test_search_all_includes_replaced_entries(reads: Pair) -> None:
    result = reads.same("search", "webhook", "--all", "--json").json()["results"]
    assert {r["id"] for r in result} == {"t00000000002", "d00000000001", "f00000000002",
                                         "f00000000003"}
    assert next(r for r in result if r["id"] == "f00000000002")["replacedBy"] == "f00000000003"


FILTERS = [
    (["--type", "task"], ["t00000000002", "t00000000001"]),
    (["--type", "task", "-n", "1"], ["t00000000002"]),
    (["--subject", "auth-migration"], ["d00000000001", "t00000000002", "t00000000001"]),
    (["--status", "open"], ["t00000000001"]),
    (["--session", "s-3"], ["h00000000001", "q00000000001", "f00000000003"]),
    (["--since", "2026-02-20"], ["h00000000001", "q00000000001", "f00000000003",
                                 "d00000000001"]),
    (["--until", "2026-02-20", "--all"], ["f00000000002", "d00000000001", "f00000000001",
                                          "t00000000002", "t00000000001"]),
    (["--since", "2026-02-20T09:00", "--until", "2026-02-21T01:00:00Z", "--all"],
     ["f00000000003", "f00000000002"]),
    (["billing", "--type", "question"], ["q00000000001"]),
]


@pytest.mark.parametrize(("args", "expected"),
                         [pytest.param(a, e, id=" ".join(a)) for a, e in FILTERS])
def test_search_filters(reads: Pair, args: list[str], expected: list[str]) -> None:
    assert ids(reads.same("search", *args, "--json")) == expected


def test_search_without_results_exits_1(reads: Pair) -> None:
    files, served = reads.run("search", "zeppelin")
    assert files.rc == served.rc == 1
    assert files.out == served.out == ""
    assert "no matching entries" in files.err
    assert "no matching entries" in served.err


def test_subjects_list(reads: Pair) -> None:
    subjects = reads.same("subjects", "list", "--json").json()["subjects"]
    assert [(s["slug"], s["entries"], s["registered"]) for s in subjects] == [
        ("auth-migration", 3, True), ("billing", 1, True)]


def test_subjects_alone_lists_them(reads: Pair) -> None:
    """At aecbe53 `zettelclaw subjects` exited 2 (an action required); `jobs` alone lists."""
    listed = reads.same("subjects", "list", "--json").json()
    assert alike(reads.same("subjects", "--json").json(), listed)
    assert alike(reads.same("subjects", "--json", "list").json(), listed)
    assert reads.same("subjects").out == reads.same("subjects", "list").out
    assert "auth-migration" in reads.same("subjects").out


def test_a_bad_since_exits_2_naming_the_field(reads: Pair) -> None:
    files, served = reads.run("search", "--since", "last tuesday")
    assert files.rc == served.rc == 2, (files, served)
    assert files.err == served.err == (
        "zettelclaw: Invalid params: since: not an ISO 8601 date or date-time: 'last tuesday'\n")


# -- writes, in both modes -------------------------------------------------------------------


def test_reindex_rebuilds_and_searches_still_answer(writes: Pair) -> None:
    files, served = writes.run("reindex", "--json")
    assert files.rc == served.rc == 0, (files, served)
    for result in (files.json(), served.json()):
        assert result["entries"] == len([e for e in LOG if "id" in e])
        assert result["seconds"] >= 0
    writes.same("search", "--json", "--all", "-n", "50")


def test_subjects_add_then_again_exits_4(writes: Pair) -> None:
    added = writes.same("subjects", "add", "whisper-stt", "--type", "system",
                        "--display", "Whisper STT", "--json").json()
    assert added == {"subject": {"slug": "whisper-stt", "display": "Whisper STT",
                                 "type": "system"}}
    files, served = writes.run("subjects", "add", "whisper-stt")
    assert files.rc == served.rc == 4
    assert "already exists" in files.err
    assert files.err == served.err
    listed = writes.same("subjects", "list", "--json").json()["subjects"]
    assert "whisper-stt" in [s["slug"] for s in listed]


def test_subjects_rename_rewrites_the_log(writes: Pair) -> None:
    renamed = writes.same("subjects", "rename", "auth-migration", "auth-v2", "--json").json()
    assert renamed == {"from": "auth-migration", "to": "auth-v2", "merged": False,
                       "entriesRewritten": 3,
                       "subject": {"slug": "auth-v2", "display": "Auth V2", "type": "project"}}
    assert ids(writes.same("search", "--subject", "auth-v2", "--json")) == [
        "d00000000001", "t00000000002", "t00000000001"]
    for site in (writes.files, writes.served):
        assert b'"subject":"auth-migration"' not in site.home.joinpath("log.jsonl").read_bytes()


def test_subjects_rename_merges_into_an_existing_subject(writes: Pair) -> None:
    writes.same("subjects", "add", "merge-from")
    files, served = writes.run("subjects", "rename", "merge-from", "billing")
    assert files.rc == served.rc == 0
    assert files.out == served.out == "merge-from merged into billing: 0 log entries rewritten\n"


def test_subjects_rename_of_an_unknown_subject_exits_3(writes: Pair) -> None:
    files, served = writes.run("subjects", "rename", "no-such-subject", "other")
    assert files.rc == served.rc == 3
    assert "no subject 'no-such-subject'" in files.err
    assert files.err == served.err


@pytest.mark.parametrize("args", [
    ["subjects", "add", "Bad_Slug"],
    ["subjects", "rename", "same", "same"],
], ids=" ".join)
def test_invalid_subjects_exit_2(writes: Pair, args: list[str]) -> None:
    files, served = writes.run(*args)
    assert files.rc == served.rc == 2, (files, served)
    assert files.err == served.err
    assert "Traceback" not in files.err + served.err


# -- usage and unavailability ----------------------------------------------------------------


@pytest.fixture
def empty(tmp_path: Path, short_dir: Path) -> Site:
    # made: a read of a --home that does not exist fails (tests/forget/test_forget_edges.py)
    (tmp_path / "home").mkdir(mode=0o700)
    (tmp_path / "workspace").mkdir()
    return Site(tmp_path / "home", tmp_path / "workspace", short_dir / "none.sock")


def test_empty_log_exits_1(empty: Site) -> None:
    log, search = empty.start("log"), empty.start("search", "anything", "--json")
    log_result, search_result = finish(log), finish(search)
    assert log_result.rc == 1
    assert "no entries" in log_result.err
    assert search_result.rc == 1
    assert search_result.json() == {"results": []}


USAGE_ERRORS = [[], ["search", "--bogus"], ["search", "-n", "0"],
                ["serve", "--max-message-bytes", "10"]]


def test_usage_errors_exit_2(empty: Site) -> None:
    results = [finish(proc) for proc in [empty.start(*args) for args in USAGE_ERRORS]]
    for args, result in zip(USAGE_ERRORS, results, strict=True):
        assert result.rc == 2, (args, result)
        assert result.err.startswith(("usage: zettelclaw", "zettelclaw: ")), (args, result)
        assert "Traceback" not in result.err


@pytest.mark.parametrize("no_sidecar", [False, True], ids=["default", "no-sidecar"])
def test_a_data_directory_that_is_a_file_exits_5(tmp_path: Path, no_sidecar: bool) -> None:
    not_a_dir = tmp_path / "home"
    not_a_dir.write_text("a file, not a directory")
    proc = subprocess.run([os.fspath(ZETTELCLAW), "status", "--home", os.fspath(not_a_dir),
                           *(["--no-sidecar"] if no_sidecar else [])],
                          capture_output=True, text=True, env=clean_env(), timeout=TIMEOUT,
                          check=False)
    assert proc.returncode == 5, proc
    assert proc.stderr.startswith("zettelclaw: ")
    assert str(not_a_dir) in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not_a_dir.read_text() == "a file, not a directory"


def test_a_socket_path_that_cannot_exist_exits_5(empty: Site, short_dir: Path) -> None:
    too_long = Site(empty.home, empty.workspace, short_dir / ("s" * 120))
    result = too_long.run("status")
    assert result.rc == 5, result
    assert "Traceback" not in result.err


COMMANDS = [[], ["serve"], ["log"], ["search"], ["reindex"], ["jobs"], ["subjects"],
            ["subjects", "list"],
            ["subjects", "add"], ["subjects", "rename"], ["status"], ["vault"]]


def test_help_of_every_command_prints_the_exit_codes() -> None:
    procs = [subprocess.Popen([os.fspath(ZETTELCLAW), *command, "--help"], text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=clean_env())
             for command in COMMANDS]
    for command, proc in zip(COMMANDS, procs, strict=True):
        result = finish(proc)
        assert result.rc == 0, command
        assert result.out.startswith(f"usage: zettelclaw {' '.join(command)}".rstrip()), command
        assert "exit codes:" in result.out, command
        for code, meaning in [(0, "success"), (1, "nothing found"), (2, "bad usage"),
                              (3, "no such"), (4, "already exists"), (5, "cannot be used"),
                              (70, "internal error")]:
            assert f"  {code} " in result.out, (command, code)
            assert meaning in result.out, (command, meaning)
