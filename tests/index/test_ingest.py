"""Ingester.catch_up over an Index: reading on after appends, starting over after rewrites.

Covers: incremental reads (only new lines are parsed), appends by other tools (plain writes, a
torn tail, a hand-written line without its newline), rewrite detection (new inode, truncation,
in-place edits of the first and last indexed bytes), duplicate ids and invalid lines with their
line numbers, a build interrupted between batches, and a property: catching up chunk by
chunk gives the same index as one fresh build, and the same current entries as the pure
resolver. (The index file itself, unreadable or of another version: test_database.py.)
"""

from __future__ import annotations

import itertools
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest.mock import patch

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import entry, line
from tests.oracles import resolve
from zettelclaw.home import Home
from zettelclaw.index import counts, entry_rows, ingest, subject_counts
from zettelclaw.index.database import DEFERRABLE_INDEXES, Index
from zettelclaw.index.ingest import Ingester
from zettelclaw.index.terms import TermIndex
from zettelclaw.log.lines import START, read_lines, read_records

Snapshot = tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]


def snapshot(index: Index) -> Snapshot:
    """Every entry row and every invalid line of the index, in line order; and the counts
    the index keeps, checked against a count."""
    with index.read() as conn:
        assert counts.load(conn) == counts.count(conn), "kept counts agree with the rows"
        assert subject_counts.load(conn) == subject_counts.count(conn), "and subjects' too"
        entries = [tuple(r) for r in conn.execute("SELECT * FROM entries ORDER BY line")]
        invalid = [tuple(r) for r in conn.execute("SELECT * FROM invalid_lines ORDER BY line")]
    return entries, invalid


def ids(index: Index) -> list[str]:
    with index.read() as conn:
        return [r[0] for r in conn.execute("SELECT id FROM entries ORDER BY line")]


def terms_ok(index: Index) -> None:
    """The term index (kept next to the index file across calls, so that each call is an
    incremental update) has one document per entry, replaced exactly as the table says."""
    terms = TermIndex(index.path.parent / "terms")
    with terms.updating(index):
        pass
    with index.read() as conn:
        expected = [(row[0], row[1] is not None) for row in conn.execute(
            "SELECT line, replaced_by FROM entries ORDER BY line")]
    assert terms.documents() == expected


_fresh_names = itertools.count()


def fresh_snapshot(log: Path, tmp: Path) -> Snapshot:
    """The index a single catch-up over the whole log builds from nothing."""
    index = Index(tmp / f"fresh-{next(_fresh_names)}.sqlite")
    try:
        Ingester(index, log).catch_up()
        return snapshot(index)
    finally:
        index.close()


@pytest.fixture
def ingester(index: Index, home: Home) -> Ingester:
    return Ingester(index, home.log)


@pytest.fixture
def fresh(home: Home, tmp_path: Path) -> Callable[[], Snapshot]:
    """A snapshot of a fresh index built from the log as it is now."""
    return lambda: fresh_snapshot(home.log, tmp_path)


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The numbers of the lines the ingester parses, in order."""
    seen: list[int] = []
    real = read_records

    def counting(fd: int, start: Any, end: int) -> Iterator[Any]:
        for item in real(fd, start, end):
            seen.append(item[0].number)
            yield item

    monkeypatch.setattr(ingest, "read_records", counting)
    return seen


def padded(n: int, tag: str = "x", size: int = 300) -> dict[str, Any]:
    """An entry whose content is ``size`` characters long, starting with ``tag``."""
    text = f"{tag} entry {n} "
    return entry(content=text + "p" * (size - len(text)))


# -- incremental ---------------------------------------------------------------------------


def test_first_catch_up_indexes_everything(ingester: Ingester, index: Index,
                                           write_log: Callable[..., Any]) -> None:
    written = write_log(entry(), entry("task"), entry("decision", subject="auth-migration"))
    report = ingester.catch_up()
    assert report.entries == 3
    assert report.invalid == 0
    assert not report.rebuilt
    assert report.subjects == {"auth-migration"}
    assert ids(index) == [e["id"] for e in written]


def test_only_appended_lines_are_read(ingester: Ingester, index: Index, parsed: list[int],
                                      write_log: Callable[..., Any]) -> None:
    write_log(entry(), entry(), entry())
    ingester.catch_up()
    assert parsed == [1, 2, 3]
    parsed.clear()

    written = write_log(entry(subject="new-thing"), entry())
    report = ingester.catch_up()
    assert parsed == [4, 5]
    assert report.entries == 2
    assert report.subjects == {"new-thing"}
    assert not report.rebuilt
    assert ids(index)[3:] == [e["id"] for e in written]


def test_catch_up_without_change_reads_nothing(ingester: Ingester, parsed: list[int],
                                               write_log: Callable[..., Any]) -> None:
    write_log(entry(), entry())
    ingester.catch_up()
    parsed.clear()
    report = ingester.catch_up()
    assert (report.entries, report.invalid, report.rebuilt) == (0, 0, False)
    assert parsed == []


def test_a_new_ingester_resumes_from_the_stored_position(home: Home, index: Index,
                                                         parsed: list[int],
                                                         write_log: Callable[..., Any]) -> None:
    write_log(entry(), entry())
    Ingester(index, home.log).catch_up()
    index.close()
    write_log(entry())
    parsed.clear()
    reopened = Index(home.index)
    try:
        report = Ingester(reopened, home.log).catch_up()
        assert parsed == [3]
        assert report.entries == 1
        assert len(ids(reopened)) == 3
    finally:
        reopened.close()


def test_appends_by_another_tool_are_picked_up(home: Home, ingester: Ingester, index: Index,
                                               write_log: Callable[..., Any]) -> None:
    first = write_log(entry())
    ingester.catch_up()
    second = entry(content="written by a plain file append")
    with open(home.log, "ab") as f:  # as `echo >> log.jsonl` would
        f.write(line(second))
    assert ingester.catch_up().entries == 1
    assert ids(index) == [first[0]["id"], second["id"]]
    with index.read() as conn:
        row = conn.execute("SELECT line, content FROM entries WHERE id = ?",
                           (second["id"],)).fetchone()
    assert tuple(row) == (2, "written by a plain file append")


def test_a_torn_tail_waits_until_it_is_completed(ingester: Ingester, index: Index,
                                                 write_log: Callable[..., Any]) -> None:
    write_log(entry())
    ingester.catch_up()
    late = entry(content="finished later")
    data = line(late)
    write_log(data[:20])  # a write in progress
    report = ingester.catch_up()
    assert (report.entries, report.invalid) == (0, 0)
    write_log(data[20:])
    assert ingester.catch_up().entries == 1
    assert ids(index)[-1] == late["id"]
    with index.read() as conn:
        assert conn.execute("SELECT count(*) FROM invalid_lines").fetchone()[0] == 0


def test_a_torn_tail_closed_by_a_newline_becomes_an_invalid_line(
        ingester: Ingester, index: Index, write_log: Callable[..., Any]) -> None:
    write_log(entry(), b'{"id": "torn')
    ingester.catch_up()
    after = write_log(b"\n", entry())  # what the store does: close the torn line, then append
    report = ingester.catch_up()
    assert (report.entries, report.invalid) == (1, 1)
    assert ids(index)[-1] == after[0]["id"]
    _, invalid = snapshot(index)
    assert [row[0] for row in invalid] == [2]


def test_an_entry_without_its_newline_is_read_and_not_read_twice(
        home: Home, ingester: Ingester, index: Index, fresh: Callable[[], Snapshot],
        write_log: Callable[..., Any]) -> None:
    hand = entry(content="typed by hand, no newline")
    write_log(line(hand)[:-1])
    assert ingester.catch_up().entries == 1
    later = write_log(b"\n", entry())
    assert ingester.catch_up().entries == 1
    assert ids(index) == [hand["id"], later[0]["id"]]
    assert snapshot(index) == fresh()


def test_a_line_continued_after_its_entry_was_read_matches_a_fresh_build(
        home: Home, ingester: Ingester, index: Index, fresh: Callable[[], Snapshot],
        write_log: Callable[..., Any]) -> None:
    """Another tool appends right after a hand-written entry that had no newline: the two run
    together into one line that is not an entry. The index must say so, as a fresh build does,
    rather than keep the first entry and silently lose the second: it keeps the entry that ends
    the line and reports the bytes before it."""
    hand = entry(content="typed by hand, no newline")
    write_log(line(hand)[:-1])
    ingester.catch_up()
    late = entry(content="appended without a leading newline")
    write_log(late)
    ingester.catch_up()
    entries, invalid = snapshot(index)
    assert (entries, invalid) == fresh()
    assert [row[1] for row in entries] == [late["id"]]
    assert [row[0] for row in invalid] == [1]
    terms_ok(index)


# -- rewrites ------------------------------------------------------------------------------


def content_of(index: Index, entry_id: str) -> str:
    with index.read() as conn:
        row = conn.execute("SELECT content FROM entries WHERE id = ?", (entry_id,)).fetchone()
    return str(row[0])


def test_a_new_inode_is_a_rewrite(home: Home, tmp_path: Path, index: Index,
                                  write_log: Callable[..., Any],
                                  fresh: Callable[[], Snapshot]) -> None:
    """A new file renamed over the log, identical in its first and last indexed bytes and at
    least as long: only the inode tells it apart from an append."""
    ingester = Ingester(index, home.log)
    written = write_log(*(padded(n) for n in range(40)))  # well over 2 x 4096 bytes
    ingester.catch_up()
    data = home.log.read_bytes()
    middle = written[20]
    old = line(middle)
    new = line({**middle, "content": middle["content"].replace("x entry", "y entry")})
    assert len(old) == len(new)
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(data.replace(old, new))
    os.replace(replacement, home.log)

    report = ingester.catch_up()
    assert report.rebuilt
    assert report.entries == 40
    assert content_of(index, middle["id"]).startswith("y entry")
    assert snapshot(index) == fresh()
    terms_ok(index)


def test_a_truncation_is_a_rewrite(home: Home, ingester: Ingester, index: Index,
                                   write_log: Callable[..., Any],
                                   fresh: Callable[[], Snapshot]) -> None:
    written = write_log(*(entry() for _ in range(5)), b"garbage\n")
    ingester.catch_up()
    keep = len(line(written[0])) + len(line(written[1]))
    os.truncate(home.log, keep)
    report = ingester.catch_up()
    assert report.rebuilt
    assert ids(index) == [written[0]["id"], written[1]["id"]]
    assert snapshot(index) == fresh()
    terms_ok(index)


def test_truncation_then_longer_appends_is_a_rewrite(home: Home, ingester: Ingester,
                                                     index: Index,
                                                     write_log: Callable[..., Any],
                                                     fresh: Callable[[], Snapshot]) -> None:
    written = write_log(*(entry() for _ in range(3)))
    ingester.catch_up()
    os.truncate(home.log, len(line(written[0])))
    more = write_log(*(entry(content="a longer replacement line " * 3) for _ in range(3)))
    report = ingester.catch_up()
    assert report.rebuilt
    assert ids(index) == [written[0]["id"]] + [e["id"] for e in more]
    assert snapshot(index) == fresh()


@pytest.mark.parametrize("which", ["first", "last"])
def test_an_in_place_edit_of_the_indexed_ends_is_a_rewrite(
        which: str, home: Home, index: Index, write_log: Callable[..., Any],
        fresh: Callable[[], Snapshot]) -> None:
    ingester = Ingester(index, home.log)
    written = write_log(*(padded(n) for n in range(40)))  # head and tail hashes: apart
    ingester.catch_up()
    target = written[0] if which == "first" else written[-1]
    old = line(target)
    new = line({**target, "content": target["content"].replace("x entry", "z entry")})
    assert len(old) == len(new)
    data = home.log.read_bytes()
    at = data.index(old)
    inode = home.log.stat().st_ino
    with open(home.log, "r+b") as f:  # same inode, same size
        f.seek(at)
        f.write(new)
    assert home.log.stat().st_ino == inode
    assert home.log.stat().st_size == len(data)

    report = ingester.catch_up()
    assert report.rebuilt
    assert content_of(index, target["id"]).startswith("z entry")
    assert snapshot(index) == fresh()
    terms_ok(index)


def test_a_deleted_log_empties_the_index(home: Home, ingester: Ingester, index: Index,
                                         write_log: Callable[..., Any]) -> None:
    write_log(entry(), b"junk\n")
    ingester.catch_up()
    home.log.unlink()
    report = ingester.catch_up()
    assert report.rebuilt
    assert snapshot(index) == ([], [])
    write_log(entry())
    assert ingester.catch_up().entries == 1


# -- duplicates and invalid lines ----------------------------------------------------------


def test_a_duplicate_id_is_an_invalid_line_naming_the_first(
        ingester: Ingester, index: Index, write_log: Callable[..., Any]) -> None:
    first = entry(content="the original")
    write_log(entry(), first, entry(), {**first, "content": "an impostor"})
    report = ingester.catch_up()
    assert (report.entries, report.invalid) == (3, 1)
    assert content_of(index, first["id"]) == "the original"
    _, invalid = snapshot(index)
    assert len(invalid) == 1
    number, reason, excerpt = invalid[0]
    assert number == 4
    assert "duplicate id" in reason
    assert first["id"] in reason
    assert "line 2" in reason
    assert "an impostor" in excerpt


def test_a_duplicate_in_a_later_append_names_the_first_line(
        ingester: Ingester, index: Index, write_log: Callable[..., Any]) -> None:
    first = entry()
    write_log(first)
    ingester.catch_up()
    write_log(entry(), dict(first))
    assert ingester.catch_up().invalid == 1
    _, invalid = snapshot(index)
    assert invalid[0][0] == 3
    assert "duplicate id" in invalid[0][1]
    assert "line 1" in invalid[0][1]


def test_invalid_lines_are_recorded_with_their_numbers(
        ingester: Ingester, index: Index, write_log: Callable[..., Any]) -> None:
    good = write_log(
        entry(),
        b"this is not json\n",
        b"\n",  # a blank line: counted, neither an entry nor an error
        b'{"id": "short", "type": "fact"}\n',
        entry(),
        line({**entry(), "colour": "blue"}),
        line({**entry(), "type": "memo"}),
        entry(),
    )
    report = ingester.catch_up()
    assert (report.entries, report.invalid) == (3, 4)
    entries, invalid = snapshot(index)
    assert [row[0] for row in entries] == [1, 5, 8]
    assert [row[1] for row in entries] == [e["id"] for e in good]
    assert [row[0] for row in invalid] == [2, 4, 6, 7]
    reasons = {row[0]: row[1] for row in invalid}
    assert "not valid JSON" in reasons[2]
    assert "colour" in reasons[6]
    assert "type must be one of" in reasons[7]
    assert invalid[0][2] == "this is not json"


# -- interrupted builds --------------------------------------------------------------------


def test_an_interrupted_build_resumes_without_gaps_or_duplicates(
        monkeypatch: pytest.MonkeyPatch, home: Home, index: Index,
        write_log: Callable[..., Any], fresh: Callable[[], Snapshot]) -> None:
    monkeypatch.setattr(ingest, "BATCH", 2)
    ingester = Ingester(index, home.log)
    a, b = entry(), entry()
    write_log(a, entry(), b"bad line\n", b, entry(replaces=a["id"]), dict(b), entry(),
              entry(replaces=b["id"]))

    class Interrupted(Exception):
        pass

    calls: list[tuple[int, int]] = []

    def stop_at_first(done: int, total: int) -> None:
        calls.append((done, total))
        raise Interrupted

    with pytest.raises(Interrupted):
        ingester.catch_up(stop_at_first)
    assert len(calls) == 1
    assert calls[0][0] < calls[0][1]  # it stopped part of the way
    assert len(ids(index)) == 2  # the first batch was committed

    progress: list[tuple[int, int]] = []
    report = ingester.catch_up(lambda done, total: progress.append((done, total)))
    assert not report.rebuilt
    assert report.entries == 4  # 6 valid entries, 2 of them in the first batch
    assert report.invalid == 2  # the bad line and the duplicate
    assert progress[-1] == (home.log.stat().st_size,) * 2
    assert [p[0] for p in progress] == sorted(p[0] for p in progress)
    assert snapshot(index) == fresh()
    terms_ok(index)


# -- the property: incremental == fresh == resolver ----------------------------------------

POOL = [f"id{n:010d}" for n in range(8)]  # entry ids: few, so duplicates happen
TARGETS = [*POOL, "nowhere00001", "nowhere00002"]  # replaces: back, forward, self or nowhere
WORDS = ["webhook", "retry", "queue", "auth", "deploy", "canary", "backoff", "café"]
BAD_LINES = [
    b"not json",
    b"{}",
    b"[]",
    b'{"id": "short", "type": "fact", "content": "x", "session": "s",'
    b' "timestamp": "2026-02-20T14:00:00Z"}',
    b'{"id": "id0000000000", "type": "task", "content": "no status", "session": "s",'
    b' "timestamp": "2026-02-20T14:00:00Z"}',
    b"\xff\xfe binary",
    b'{"id": "id0000000001", "type": "fact", "content": "x", "session": "s",'
    b' "timestamp": "2026-02-20T14:00:00Z"} trailing words',
]


@st.composite
def log_lines(draw: st.DrawFn) -> bytes:
    lines: list[bytes] = []
    for _ in range(draw(st.integers(0, 14))):
        kind = draw(st.sampled_from(["entry", "entry", "entry", "bad", "blank"]))
        if kind == "bad":
            lines.append(draw(st.sampled_from(BAD_LINES)))
        elif kind == "blank":
            lines.append(b"")
        else:
            type_ = draw(st.sampled_from(["fact", "task", "decision", "question", "handoff"]))
            value = entry(
                type_,
                " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3))),
                id=draw(st.sampled_from(POOL)),
                replaces=draw(st.none() | st.sampled_from(TARGETS)),
                subject=draw(st.none() | st.sampled_from(["auth-migration", "whisper-stt"])),
                timestamp=draw(st.sampled_from(["2026-02-20T14:00:00Z", "2026-02-21T09:30:00Z",
                                                "2025-12-01T08:00:00Z"])),
                detail=draw(st.none() | st.sampled_from(WORDS)),
            )
            if type_ == "task":
                value["status"] = draw(st.sampled_from(["open", "done"]))
            lines.append(orjson.dumps(value))
    data = b"\n".join(lines)
    final_newline = draw(st.booleans())  # most logs end with a newline; some do not
    if lines and final_newline:
        data += b"\n"
    return data


def current_by_resolver(log: Path) -> tuple[list[str], dict[str, str], dict[str, str]]:
    fd = os.open(log, os.O_RDONLY)
    try:
        parsed = [ln.entry for ln, _ in read_lines(fd, START, os.fstat(fd).st_size)
                  if ln.entry is not None]
    finally:
        os.close(fd)
    resolver = resolve(parsed)
    return resolver.current(), resolver.replaced_by, resolver.replaces


def cut_points(data: bytes, cuts: list[tuple[bool, int]]) -> list[int]:
    """Where to split the log into appends: anywhere, or right after a closing brace (the
    moment a line may already read as a whole entry before its newline arrives)."""
    braces = [m.end() for m in re.finditer(rb"}", data)]
    points = set()
    for at_brace, n in cuts:
        if at_brace and braces:
            points.add(braces[n % len(braces)])
        elif data:
            points.add(n % len(data))
    return sorted(p for p in points if 0 < p < len(data))


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=log_lines(),
       cuts=st.lists(st.tuples(st.booleans(), st.integers(0, 10_000)), max_size=6))
def test_catching_up_chunk_by_chunk_equals_a_fresh_build(
        data: bytes, cuts: list[tuple[bool, int]]) -> None:
    points = cut_points(data, cuts)
    chunks = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        log = root / "log.jsonl"
        log.touch()
        index = Index(root / "index.sqlite")
        try:
            ingester = Ingester(index, log)
            for chunk in chunks:
                with log.open("ab") as f:
                    f.write(chunk)
                ingester.catch_up()
            incremental = snapshot(index)
            terms_ok(index)
            with index.read() as conn:
                rows = conn.execute("SELECT id, replaced_by, supersedes FROM entries"
                                    " ORDER BY line").fetchall()
        finally:
            index.close()
        assert incremental == fresh_snapshot(log, root)

        current, replaced_by, replaces = current_by_resolver(log)
        assert [r["id"] for r in rows if r["replaced_by"] is None] == current
        assert {r["id"]: r["replaced_by"] for r in rows if r["replaced_by"]} == replaced_by
        assert {r["id"]: r["supersedes"] for r in rows if r["supersedes"]} == replaces


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=log_lines(), batch=st.integers(1, 5))
def test_a_large_build_from_its_ids_in_memory_equals_one_with_the_ids_index(
        data: bytes, batch: int) -> None:
    """Duplicate ids and replacements, across batch boundaries, resolved the same way by a
    large build (the ids' index dropped, the ids kept in memory) as by an ordinary one."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        log = root / "log.jsonl"
        log.write_bytes(data)
        ordinary = fresh_snapshot(log, root)
        with patch.object(ingest, "DEFER_INDEXES_BYTES", 0), patch.object(ingest, "BATCH", batch):
            index = Index(root / "large.sqlite")
            try:
                Ingester(index, log).catch_up()
                assert snapshot(index) == ordinary
                assert DEFERRABLE_INDEXES.keys() <= _index_names(index)
            finally:
                index.close()


def _index_names(index: Index) -> set[str]:
    with index.read() as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}


@pytest.fixture
def large_build(monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches of 3 lines; any log is large enough to defer indexes."""
    monkeypatch.setattr(ingest, "DEFER_INDEXES_BYTES", 100)
    monkeypatch.setattr(ingest, "BATCH", 3)


@pytest.mark.usefixtures("large_build")
def test_a_large_build_makes_the_deferred_indexes_at_its_end(
        home: Home, index: Index,
        write_log: Callable[..., Any], fresh: Callable[[], Snapshot]) -> None:
    write_log(*[entry(subject=f"s{i % 3}") for i in range(10)])
    seen: list[set[str]] = []
    Ingester(index, home.log).catch_up(lambda done, total: seen.append(_index_names(index)))
    assert not any(DEFERRABLE_INDEXES.keys() & names for names in seen[:-1]), \
        "dropped while the batches go in"
    assert DEFERRABLE_INDEXES.keys() <= _index_names(index), "made at the end"
    assert snapshot(index) == fresh()
    with index.read() as conn:  # and used: a subject's newest entries come from its index
        plan = " ".join(str(r[-1]) for r in conn.execute(
            "EXPLAIN QUERY PLAN SELECT line FROM entries WHERE subject = 's1' ORDER BY ts DESC"))
    assert "entries_subject" in plan


@pytest.mark.usefixtures("large_build")
def test_a_large_build_stopped_midway_has_its_indexes_at_the_next_open(
        home: Home, index: Index,
        write_log: Callable[..., Any], fresh: Callable[[], Snapshot]) -> None:
    write_log(*[entry(session=f"s{i % 2}") for i in range(10)])

    class Stopped(Exception):
        pass

    def stop(done: int, total: int) -> None:
        raise Stopped

    with pytest.raises(Stopped):
        Ingester(index, home.log).catch_up(stop)
    assert not DEFERRABLE_INDEXES.keys() & _index_names(index)
    index.close()
    reopened = Index(home.index)  # a restart after the build stopped
    try:
        assert DEFERRABLE_INDEXES.keys() <= _index_names(reopened)
        Ingester(reopened, home.log).catch_up()  # resumes: no drop, it did not start at 0
        assert snapshot(reopened) == fresh()
    finally:
        reopened.close()


@pytest.mark.usefixtures("large_build")
def test_a_large_build_that_failed_midway_makes_its_indexes_when_it_ends_later(
        home: Home, index: Index,
        write_log: Callable[..., Any]) -> None:
    """No restart in between (the sidecar goes on after a full disk, say)."""
    write_log(*[entry(subject="s") for _ in range(10)])
    ingester = Ingester(index, home.log)

    class DiskFull(Exception):
        pass

    def fail(done: int, total: int) -> None:
        raise DiskFull

    with pytest.raises(DiskFull):
        ingester.catch_up(fail)
    assert not DEFERRABLE_INDEXES.keys() & _index_names(index)
    ingester.catch_up()
    assert DEFERRABLE_INDEXES.keys() <= _index_names(index)


@pytest.mark.usefixtures("large_build")
def test_a_large_build_whose_batch_failed_goes_on_with_the_ids_index(
        home: Home, index: Index, monkeypatch: pytest.MonkeyPatch,
        write_log: Callable[..., Any], fresh: Callable[[], Snapshot]) -> None:
    """The ids taken into the failed batch are not the committed ones: the build makes the
    indexes at its next batch and asks them from then on."""
    first, *rest = [entry() for _ in range(9)]
    write_log(first, *rest[:4], {**first, "content": "a duplicate"},
              entry(replaces=rest[1]["id"]), *rest[4:])
    real, calls = entry_rows.insert, itertools.count(1)

    def failing(*args: Any, **kwargs: Any) -> None:
        real(*args, **kwargs)
        if next(calls) == 5:  # in the second batch, after an insert
            raise OSError("disk full")

    monkeypatch.setattr(ingest, "insert", failing)
    ingester = Ingester(index, home.log)
    with pytest.raises(OSError, match="disk full"):
        ingester.catch_up()
    monkeypatch.setattr(ingest, "insert", real)
    seen: list[set[str]] = []
    ingester.catch_up(lambda done, total: seen.append(_index_names(index)))
    assert DEFERRABLE_INDEXES.keys() <= seen[0], "made before the next batch"
    assert snapshot(index) == fresh()


@pytest.mark.usefixtures("large_build")
def test_a_large_build_after_another_writer_came_in_between_asks_the_ids_index(
        home: Home, index: Index,
        write_log: Callable[..., Any], fresh: Callable[[], Snapshot]) -> None:
    first, *rest = [entry() for _ in range(6)]
    write_log(first, *rest[:3], {**first, "content": "a duplicate"},
              entry(replaces=rest[0]["id"]), *rest[3:])
    other = Ingester(index, home.log)
    took_over: list[int] = []

    def interleave(done: int, total: int) -> None:
        if not took_over:  # after the first batch, another writer reads the rest
            took_over.append(other.catch_up().entries)

    Ingester(index, home.log).catch_up(interleave)
    assert took_over == [4]  # (and line 5, a duplicate of line 1)
    assert DEFERRABLE_INDEXES.keys() <= _index_names(index)
    assert snapshot(index) == fresh()


def test_the_display_names_are_asked_once_per_batch(
        home: Home, index: Index, monkeypatch: pytest.MonkeyPatch,
        write_log: Callable[..., Any]) -> None:
    """Not once per subject per batch: each ask is a stat of subjects.json."""
    monkeypatch.setattr(ingest, "BATCH", 4)
    write_log(*[entry(subject=f"subject-{i % 5}") for i in range(10)])
    asked: list[int] = []

    def names() -> Callable[[str], str]:
        asked.append(1)
        return lambda slug: slug.upper()

    Ingester(index, home.log, names).catch_up()
    assert len(asked) == 3  # batches of 4, 4 and 2 lines
    with index.read() as conn:
        shown = {r[0] for r in conn.execute("SELECT subject_name FROM entries")}
    assert shown == {f"SUBJECT-{i}" for i in range(5)}


@pytest.mark.usefixtures("large_build")
def test_a_build_of_a_log_too_large_for_its_ids_in_memory_keeps_the_ids_index(
        home: Home, index: Index, monkeypatch: pytest.MonkeyPatch,
        write_log: Callable[..., Any], fresh: Callable[[], Snapshot]) -> None:
    monkeypatch.setattr(ingest, "IDS_IN_MEMORY_BYTES", 100)
    first, *rest = [entry(subject=f"s{i % 2}") for i in range(9)]
    write_log(first, *rest[:4], {**first, "content": "a duplicate"},
              entry(replaces=rest[1]["id"]), *rest[4:])
    seen: list[set[str]] = []
    Ingester(index, home.log).catch_up(lambda done, total: seen.append(_index_names(index)))
    others = DEFERRABLE_INDEXES.keys() - {"entries_id"}
    assert all("entries_id" in names and not others & names for names in seen[:-1]), seen
    assert DEFERRABLE_INDEXES.keys() <= seen[-1]
    assert snapshot(index) == fresh()
