"""Appending to the log (``LogStore``): whole lines, one fsynced write per batch, under the lock.

Covers the bytes an append writes, one write per batch with the fsync after it, repair of a torn
last line (kept verbatim on its own line) and of a hand-written entry without its newline, the
data lock (an append waits for it), reading lines and entries back, and several processes
appending at once.
"""

from __future__ import annotations

import functools
import itertools
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import entry, line
from tests.timing import scaled
from zettelclaw import lock
from zettelclaw.errors import LockTimeoutError
from zettelclaw.home import Home
from zettelclaw.log.schema import Entry, entry_to_line, parse_entry_json, validate_entry
from zettelclaw.log.store import LogStore

WriteLog = Callable[..., list[dict[str, Any]]]


def entries(*types: str) -> list[Entry]:
    return [validate_entry(entry(t)) for t in types]


def fd_path(fd: int) -> str:
    return os.readlink(f"/proc/self/fd/{fd}")


@pytest.fixture
def store(home: Home) -> LogStore:
    return LogStore(home)


def test_append_writes_whole_lines_in_order(home: Home, store: LogStore) -> None:
    first = entries("fact", "task")
    result = store.append(first)
    assert home.log.read_bytes() == b"".join(entry_to_line(e) for e in first)
    assert (result.offset, result.size, result.repaired_tail) == (
        0, home.log.stat().st_size, False)

    second = entries("decision")
    before = home.log.stat().st_size
    result = store.append(second)
    assert home.log.read_bytes()[before:] == entry_to_line(second[0])
    assert (result.offset, result.size, result.repaired_tail) == (
        before, home.log.stat().st_size, False)
    assert list(store.entries()) == first + second


def test_append_creates_a_missing_log_private(home: Home, store: LogStore) -> None:
    home.log.unlink()
    store.append(entries("fact"))
    assert home.log.stat().st_mode & 0o777 == 0o600
    assert len(list(store.entries())) == 1


def test_a_batch_is_one_write_followed_by_an_fsync_of_the_log(
        home: Home, store: LogStore, write_log: WriteLog,
        monkeypatch: pytest.MonkeyPatch) -> None:
    write_log(entry(), b'{"id":"torn')  # so that the repair newline has to go in the same write
    events: list[tuple[str, str, bytes]] = []
    real_write, real_fsync = os.write, os.fsync

    def write(fd: int, data: Any) -> int:
        events.append(("write", fd_path(fd), bytes(data)))
        return real_write(fd, data)

    def fsync(fd: int) -> None:
        events.append(("fsync", fd_path(fd), b""))
        real_fsync(fd)

    monkeypatch.setattr(os, "write", write)
    monkeypatch.setattr(os, "fsync", fsync)
    batch = entries("fact", "task", "question")
    store.append(batch)
    monkeypatch.undo()

    log = str(home.log)
    assert [(kind, path) for kind, path, _ in events] == [("write", log), ("fsync", log)]
    assert events[0][2] == b"\n" + b"".join(entry_to_line(e) for e in batch)


def test_an_empty_batch_writes_nothing(home: Home, store: LogStore, write_log: WriteLog) -> None:
    write_log(entry())
    before = home.log.read_bytes()
    result = store.append([])
    assert home.log.read_bytes() == before
    assert (result.size, result.repaired_tail) == (len(before), False)


def test_torn_last_line_is_kept_verbatim_and_the_new_entry_gets_its_own_line(
        home: Home, store: LogStore, write_log: WriteLog) -> None:
    first = entry()
    torn = b'{"id":"e99999999999","timestamp":"2026-02-20T14:00:00Z","type":"fa'
    write_log(first, torn)
    size = home.log.stat().st_size
    [new] = entries("decision")

    result = store.append([new])

    assert home.log.read_bytes() == line(first) + torn + b"\n" + entry_to_line(new)
    assert result.repaired_tail is True
    assert result.offset == size + 1  # the batch starts after the repair newline
    assert result.size == home.log.stat().st_size
    got = list(store.lines())
    assert [(x.number, x.entry is not None) for x in got] == [(1, True), (2, False), (3, True)]
    assert got[1].data == torn
    assert got[1].error is not None
    assert got[2].entry == new


def test_garbage_tail_without_newline_is_kept(home: Home, store: LogStore,
                                              write_log: WriteLog) -> None:
    write_log(b"\xff\x00 not json at all")
    [new] = entries("fact")
    store.append([new])
    assert home.log.read_bytes() == b"\xff\x00 not json at all\n" + entry_to_line(new)


def test_hand_written_entry_without_newline_stays_an_entry(
        home: Home, store: LogStore, write_log: WriteLog) -> None:
    by_hand = entry("task", content="written with printf")
    write_log(line(by_hand)[:-1])
    [new] = entries("fact")
    result = store.append([new])
    assert result.repaired_tail is True
    assert home.log.read_bytes() == line(by_hand) + entry_to_line(new)
    assert list(store.entries()) == [validate_entry(by_hand), new]


def test_lines_keep_blank_and_invalid_lines_and_entries_skip_them(
        store: LogStore, write_log: WriteLog) -> None:
    a, b = entry(), entry("task")
    write_log(a, b"\n", b"oops\n", b)
    assert [(x.number, x.blank, x.error is not None) for x in store.lines()] == [
        (1, False, False), (2, True, False), (3, False, True), (4, False, False)]
    assert list(store.entries()) == [validate_entry(a), validate_entry(b)]


def test_append_waits_for_the_data_lock(home: Home, store: LogStore,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # flock belongs to an open file description: holding it here is another writer holding it.
    monkeypatch.setattr(lock, "exclusive", functools.partial(lock.exclusive, timeout=0.05))
    with lock.exclusive(home.lock), pytest.raises(LockTimeoutError):
        store.append(entries("fact"))
    assert home.log.read_bytes() == b""
    store.append(entries("fact"))  # and goes ahead once it is free
    assert len(list(store.entries())) == 1


# -- several processes at once ---------------------------------------------------------------

WRITER = """
import sys
import time
from pathlib import Path
from zettelclaw.home import Home
from zettelclaw.log.schema import validate_entry
from zettelclaw.log.store import LogStore

root, proc, batches = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
store = LogStore(Home(root))
print("ready", flush=True)
sys.stdin.readline()
for b in range(batches):
    store.append([
        validate_entry({"id": f"p{proc:02d}b{b:05d}i{i:02d}", "timestamp": "2026-02-20T14:00:00Z",
                        "type": "fact", "content": f"{proc} {b} {i} " + "x" * 1500,
                        "session": f"writer-{proc}"})
        for i in range(1 + (proc + b) % 4)
    ])
    time.sleep(0.001)  # let the others in: flock polling is not fair
"""


@pytest.mark.slow
def test_processes_appending_at_once_leave_only_whole_valid_lines(home: Home) -> None:
    procs, batches = 4, 100
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "sidecar")}
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(home.root), str(p), str(batches)],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        for p in range(procs)
    ]
    try:
        for w in writers:  # all started and importing done: let them go together
            assert w.stdout is not None
            assert w.stdout.readline() == b"ready\n"
        for w in writers:
            assert w.stdin is not None
            w.stdin.write(b"go\n")
            w.stdin.close()
        for w in writers:
            assert w.wait(timeout=scaled(120)) == 0
    finally:
        for w in writers:
            if w.poll() is None:
                w.kill()
                w.wait()
            if w.stdout is not None:
                w.stdout.close()

    raw = home.log.read_bytes()
    assert raw.endswith(b"\n")
    ids = [parse_entry_json(x).id for x in raw.split(b"\n")[:-1]]  # raises on any bad line
    expected = {f"p{p:02d}b{b:05d}i{i:02d}"
                for p in range(procs) for b in range(batches) for i in range(1 + (p + b) % 4)}
    assert len(ids) == len(expected)
    assert set(ids) == expected

    # Each batch is contiguous and in order, and each writer's batches are in its order.
    batch_of = [i[:9] for i in ids]
    runs = [batch_of[0]] + [b for prev, b in itertools.pairwise(batch_of) if b != prev]
    assert len(runs) == len(set(runs)) == procs * batches
    for p in range(procs):
        mine = [i for i in ids if i.startswith(f"p{p:02d}")]
        assert mine == sorted(mine)
