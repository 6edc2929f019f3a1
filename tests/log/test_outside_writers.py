"""Other programs append to the log (README: ``echo ... >> log.jsonl``) without the sidecar's
lock. Nothing they append may be lost: not during a subject rename (1,849 of
6,350 appends were lost over 53 renames at c7e1242), not after a torn last line, and a
crash mid-rename leaves no temp file behind for good."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
import trio

from tests.conftest import entry, line
from tests.direct import Direct
from tests.timing import scaled
from zettelclaw import lock
from zettelclaw.forget import service
from zettelclaw.forget.select import Criteria
from zettelclaw.home import Home
from zettelclaw.log import tail_mender
from zettelclaw.protocol.params import SubjectsRenameParams
from zettelclaw.serve import Ready, ServerConfig, serve
from zettelclaw.subjects.rename import rewrite_subject_locked, temp_path


def ids_in(home: Home) -> list[str]:
    found = []
    for raw in home.log.read_bytes().splitlines():
        try:
            found.append(orjson.loads(raw)["id"])
        except (orjson.JSONDecodeError, KeyError, TypeError):
            continue
    return found


class Appenders:
    """Threads appending entries as a shell's ``echo >>`` does: open, one write, close."""

    def __init__(self, home: Home, threads: int) -> None:
        self.home = home
        self.stop = threading.Event()
        self.written: list[list[str]] = [[] for _ in range(threads)]
        self.threads = [threading.Thread(target=self._run, args=(i,)) for i in range(threads)]

    def _run(self, i: int) -> None:
        n = 0
        while not self.stop.is_set():
            n += 1
            value = entry(id=f"w{i:02d}{n:09d}", subject="old-name" if n % 2 else "other")
            fd = os.open(self.home.log, os.O_WRONLY | os.O_APPEND)
            try:
                os.write(fd, line(value))
            finally:
                os.close(fd)
            self.written[i].append(value["id"])
            self.stop.wait(0.001)  # about a shell's pace: a few thousand lines a second

    def __enter__(self) -> Appenders:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join()


@pytest.fixture
def memory(home: Home, workspace: Path) -> Iterator[Direct]:
    m = Direct.open(home, workspace)
    yield m
    m.close()


@pytest.mark.slow
def test_nothing_appended_during_renames_is_lost(memory: Direct, home: Home,
                                                 write_log: object) -> None:
    home.log.write_bytes(b"".join(line(entry(subject="old-name")) for _ in range(2000)))
    memory.sync()
    slugs = ["old-name", "new-name"]
    with Appenders(home, threads=3) as appenders:
        for i in range(20):
            memory.subjects_rename(SubjectsRenameParams.model_validate(
                {"from": slugs[i % 2], "to": slugs[(i + 1) % 2]}))
    written = [i for ids in appenders.written for i in ids]
    present = ids_in(home)
    assert len(written) > 100  # the writers ran during the renames
    missing = set(written) - set(present)
    assert not missing, f"{len(missing)} of {len(written)} appended entries lost"
    assert len(present) == len(set(present))  # and none twice
    assert not temp_path(home).exists()
    memory.sync()  # the index reads on from the right place: every entry once
    with memory.index.read() as conn:
        indexed = conn.execute("SELECT count(*) FROM entries").fetchone()[0]
    assert indexed == len(present)


def test_rename_maps_old_offsets_to_new_ones(home: Home) -> None:
    lines = [line(entry(subject="ab")), line(entry(subject="zz")), line(entry(subject="ab"))]
    home.log.write_bytes(b"".join(lines))
    with lock.exclusive(home.lock):
        result = rewrite_subject_locked(home, "ab", "abcdef")
    new = home.log.read_bytes()
    boundaries = [0, len(lines[0]), len(lines[0]) + len(lines[1]), sum(map(len, lines))]
    mapped = [result.new_offset(b) for b in boundaries]
    assert mapped == [0, len(lines[0]) + 4, len(lines[0]) + 4 + len(lines[1]), len(new)]
    assert new[mapped[1]:mapped[2]] == lines[1]


def test_a_temp_file_left_by_a_crashed_rename_is_removed_at_start(home: Home,
                                                                   workspace: Path) -> None:
    leftover = temp_path(home)
    home.ensure()
    leftover.write_bytes(b"x" * 100_000)  # a kill -9 mid-rename
    Direct.open(home, workspace).close()
    assert not leftover.exists()


async def test_a_torn_last_line_is_ended_before_the_next_outside_append(
        server_config: ServerConfig, home: Home, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tail_mender, "SETTLE_SECONDS", 0.2)
    monkeypatch.setattr(tail_mender, "POLL_SECONDS", 0.05)
    first = entry()
    home.log.write_bytes(line(first) + b'{"id":"e99999999999","content":"torn by a cra')
    async with trio.open_nursery() as nursery:
        ready: Ready = await nursery.start(serve, server_config)
        assert home.log.read_bytes().endswith(b"cra\n")  # a crash's tail: ended at start
        with home.log.open("ab") as f:
            f.write(b'{"id":"e99999999998","content":"typed without a newl')  # printf
        with trio.fail_after(scaled(10)):
            while True:
                if home.log.read_bytes().endswith(b"newl\n"):
                    break
                await trio.sleep(0.02)
        late = entry()
        with home.log.open("ab") as f:
            f.write(line(late))  # echo >> log.jsonl, a while later
        assert ready.socket.exists()
        nursery.cancel_scope.cancel()
    assert ids_in(home) == [first["id"], late["id"]]


APPENDER = r"""
import os, sys, time
path, stop = sys.argv[1], sys.argv[2]
fd = os.open(path, os.O_WRONLY | os.O_APPEND)  # opened once, held: a long-running appender
n = 0
while not os.path.exists(stop):
    n += 1
    os.write(fd, ('{"id":"a%011d","timestamp":"2026-02-20T14:00:00Z","type":"fact",'
                  '"content":"appended %d","session":"s-app","subject":"old-name"}\n'
                  % (n, n)).encode())
    time.sleep(0.0005)
os.close(fd)
print(n)
"""


@pytest.mark.slow
def test_a_writer_holding_the_log_open_loses_nothing_across_purges_and_renames(
        memory: Direct, home: Home, tmp_path: Path) -> None:
    """A second process keeps log.jsonl open and appends to it while purges and subject renames
    rewrite the log. Every line it wrote is in the log afterwards, once (on 00f0efb the
    rewrites renamed a new file over the log, and what it wrote after each went to a file
    nobody read), and the purged entries are not."""
    seeded = [entry(subject="old-name", content=f"seeded {n}") for n in range(2000)]
    home.log.write_bytes(b"".join(line(e) for e in seeded))
    memory.sync()
    stop = tmp_path / "stop"
    proc = subprocess.Popen([sys.executable, "-c", APPENDER, str(home.log), str(stop)],
                            stdout=subprocess.PIPE, text=True)
    try:
        size = home.log.stat().st_size
        deadline = time.monotonic() + 60
        while home.log.stat().st_size == size:  # until the writer is writing
            assert time.monotonic() < deadline, "the appender never wrote"
            time.sleep(0.01)
        slugs = ["old-name", "new-name"]
        purged: list[str] = []
        for i in range(10):
            gone = [e["id"] for e in seeded[i * 7:i * 7 + 5]]
            service.purge(memory.app, Criteria(ids=tuple(gone)), dry_run=False)
            purged += gone
            memory.subjects_rename(SubjectsRenameParams.model_validate(
                {"from": slugs[i % 2], "to": slugs[(i + 1) % 2]}))
    finally:
        stop.touch()
        out, _ = proc.communicate(timeout=scaled(60))
    written = int(out)
    present = ids_in(home)
    appended = [i for i in present if i.startswith("a")]
    assert written > 100  # it wrote during the rewrites
    assert sorted(appended) == [f"a{n:011d}" for n in range(1, written + 1)]
    assert not set(purged) & set(present)
    assert len(present) == len(set(present)) == 2000 - len(purged) + written
    assert not temp_path(home).exists()
    memory.sync()
    with memory.index.read() as conn:
        indexed = conn.execute("SELECT count(*) FROM entries").fetchone()[0]
    assert indexed == len(present)
