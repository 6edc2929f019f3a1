"""The replication core (replicate/ingest.py): foreign lines into the log once each, in a
stated order; this machine's own lines out from a durable cursor; purged ids never back; and a
kill -9 at any point of a take neither loses nor duplicates a line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.conftest import entry, line
from zettelclaw import failpoints, lock
from zettelclaw.forget.purge import rewrite_without_locked
from zettelclaw.home import Home
from zettelclaw.log import hides
from zettelclaw.replicate import machine
from zettelclaw.replicate.ingest import Cursor, ForeignLine, Replica


def data(value: dict[str, object]) -> bytes:
    return orjson.dumps(value)


def log_ids(home: Home) -> list[str]:
    return [orjson.loads(raw)["id"] for raw in home.log.read_bytes().splitlines() if raw.strip()]


def test_machine_id_is_made_once_per_data_directory(tmp_path: Path) -> None:
    one, two = Home(tmp_path / "a"), Home(tmp_path / "b")
    one.ensure()
    two.ensure()
    first = machine.machine_id(one)
    assert machine.machine_id(one) == first
    assert machine.machine_id(two) != first  # two data dirs on one host: two machines
    path = one.root / "replicate" / "machine"
    assert path.stat().st_mode & 0o777 == 0o600
    assert (one.root / "replicate").stat().st_mode & 0o777 == 0o700
    path.write_text("not an id\n")
    with pytest.raises(ValueError, match="replicate/machine"):
        machine.machine_id(one)


def test_foreign_lines_are_appended_once_and_never_published(home: Home) -> None:
    mine = entry(content="mine")
    home.log.write_bytes(line(mine))
    replica = Replica(home)
    theirs = [entry(content=f"theirs {n}") for n in range(3)]
    batch = [ForeignLine("mB", n, data(e)) for n, e in enumerate(theirs)]
    taken = replica.take_foreign(batch)
    assert (taken.appended, taken.known) == (3, 0)
    assert replica.take_foreign(batch).known == 3  # again: nothing appended
    assert replica.take_foreign([ForeignLine("mC", 0, data(mine))]).known == 1
    assert log_ids(home) == [mine["id"]] + [e["id"] for e in theirs]
    out = replica.own_lines_since()
    assert [o.id for o in out.lines] == [mine["id"]]


def test_invalid_own_and_purged_lines_are_refused(home: Home) -> None:
    replica = Replica(home)
    gone = entry(content="purged elsewhere")
    replica.add_purged([gone["id"]])
    taken = replica.take_foreign([
        ForeignLine("mB", 0, b"{not json"),
        ForeignLine("mB", 1, data({"id": "x", "type": "fact"})),
        ForeignLine("mB", 2, data(gone)),
        ForeignLine(replica.machine_id, 3, data(entry())),
        ForeignLine("mB", 4, data(entry()) + b"\n" + data(entry())),
    ])
    assert (taken.appended, taken.invalid, taken.purged, taken.own) == (0, 3, 1, 1)
    assert home.log.read_bytes() == b""


def test_order_is_by_machine_then_place_with_replacements_after_targets(home: Home) -> None:
    replica = Replica(home)
    a1, a2 = entry(content="a1"), entry(content="a2")
    b1 = entry(content="b1 replaces a2", replaces=a2["id"])
    c0 = entry(content="c0 replaces b1", replaces=b1["id"])
    batch = [ForeignLine("mC", 0, data(c0)), ForeignLine("mB", 0, data(b1)),
             ForeignLine("mA", 1, data(a2)), ForeignLine("mA", 0, data(a1))]
    replica.take_foreign(batch)
    assert log_ids(home) == [a1["id"], a2["id"], b1["id"], c0["id"]]
    # a replacement from a machine sorted before its target's machine waits for the target
    other = Home(home.root.parent / "other")
    other.ensure()
    x = entry(content="x")
    y = entry(content="y replaces x", replaces=x["id"])
    Replica(other).take_foreign([ForeignLine("mZ", 0, data(x)), ForeignLine("mA", 0, data(y))])
    assert log_ids(other) == [x["id"], y["id"]]


def test_hide_records_travel_like_entries(home: Home) -> None:
    replica = Replica(home)
    target = entry()
    record = hides.line([target["id"]], hide=True, by="id").rstrip(b"\n")
    taken = replica.take_foreign([ForeignLine("mB", 0, data(target)),
                                  ForeignLine("mB", 1, record)])
    assert taken.appended == 2
    with lock.exclusive(home.lock):
        replica.store.append_lines_locked(hides.line([target["id"]], hide=False, by="id"))
    out = replica.own_lines_since()
    assert len(out.lines) == 1
    assert out.lines[0].data.startswith(b'{"unforget":')


def test_cursor_is_durable_and_a_rewrite_rescans(home: Home) -> None:
    first = [entry(content=f"first {n}") for n in range(3)]
    home.log.write_bytes(b"".join(line(e) for e in first))
    replica = Replica(home)
    out = replica.own_lines_since(replica.load_cursor("git"))
    assert len(out.lines) == 3
    assert not out.rescanned
    replica.save_cursor("git", out.cursor)
    assert Replica(home).load_cursor("git") == out.cursor
    later = entry(content="later")
    replica.store.append_lines_locked(line(later))
    again = Replica(home).own_lines_since(replica.load_cursor("git"))
    assert [o.id for o in again.lines] == [later["id"]]
    with lock.exclusive(home.lock):  # a purge rewrites the log: a new file
        rewrite_without_locked(home, frozenset({first[0]["id"]}))
    after = replica.own_lines_since(again.cursor)
    assert after.rescanned
    assert [o.id for o in after.lines] == [e["id"] for e in first[1:]] + [later["id"]]
    limited = replica.own_lines_since(Cursor(), limit=2)
    rest = replica.own_lines_since(limited.cursor)
    assert [o.id for o in limited.lines + rest.lines] == [o.id for o in after.lines]


def test_a_rewrite_in_place_before_the_cursor_loses_no_unpublished_line(home: Home) -> None:
    # published: a, b, c; then d and e are written but not yet published; a purge of a (in
    # place: the inode stays, b..e move up) must not leave the cursor inside moved lines
    published = [entry(content=f"published {n} " + "x" * n * 7) for n in range(3)]
    home.log.write_bytes(b"".join(line(e) for e in published))
    replica = Replica(home)
    out = replica.own_lines_since()
    replica.save_cursor("git", out.cursor)
    waiting = [entry(content=f"waiting {n}") for n in range(2)]
    replica.store.append_lines_locked(b"".join(line(e) for e in waiting))
    inode = home.log.stat().st_ino
    with lock.exclusive(home.lock):
        rewrite_without_locked(home, frozenset({published[0]["id"]}))
    assert home.log.stat().st_ino == inode  # rewritten in place
    after = replica.own_lines_since(replica.load_cursor("git"))
    assert after.rescanned
    ids = [o.id for o in after.lines]
    assert [e["id"] for e in waiting] == [i for i in ids if i in {e["id"] for e in waiting}]


def test_torn_foreign_data_and_duplicates_in_the_log(home: Home) -> None:
    dup = entry(content="twice")
    home.log.write_bytes(line(dup) + line(dup) + b'{"torn')
    replica = Replica(home)
    assert [o.id for o in replica.own_lines_since().lines] == [dup["id"]]
    fresh = entry(content="fresh")
    assert replica.take_foreign([ForeignLine("mB", 0, data(fresh))]).appended == 1
    assert home.log.read_bytes().endswith(b'{"torn\n' + line(fresh))


TAKE = """
import sys, orjson
from zettelclaw.home import Home
from zettelclaw.replicate.ingest import ForeignLine, Replica
from pathlib import Path
home = Home(Path(sys.argv[1]))
lines = [orjson.loads(raw) for raw in open(sys.argv[2], 'rb').read().splitlines()]
taken = Replica(home).take_foreign(
    [ForeignLine('mB', n, orjson.dumps(v)) for n, v in enumerate(lines)])
print(taken.appended)
"""


@pytest.mark.slow
@pytest.mark.parametrize("point", ["take-after-received", "torn-append", "take-after-append"])
def test_kill_during_a_take_loses_and_duplicates_nothing(home: Home, tmp_path: Path,
                                                         point: str) -> None:
    mine = [entry(content=f"mine {n}") for n in range(5)]
    home.log.write_bytes(b"".join(line(e) for e in mine))
    theirs = [entry(content=f"theirs {n} " + "x" * 200) for n in range(50)]
    source = tmp_path / "theirs.jsonl"
    source.write_bytes(b"".join(line(e) for e in theirs))
    env = {**os.environ, failpoints.ENV: point}
    run = [sys.executable, "-c", TAKE, str(home.root), str(source)]
    killed = subprocess.run(run, env=env, capture_output=True, check=False)
    assert killed.returncode == -9
    env.pop(failpoints.ENV)
    subprocess.run(run, env=env, check=True, capture_output=True)
    ids = [e["id"] for e in mine + theirs]
    entries = []
    for raw in home.log.read_bytes().splitlines():
        try:
            entries.append(orjson.loads(raw)["id"])
        except orjson.JSONDecodeError:
            assert point == "torn-append"  # the torn line stays, invalid, as any torn line
    assert sorted(entries) == sorted(ids)
    assert [o.id for o in Replica(home).own_lines_since().lines] == [e["id"] for e in mine]
