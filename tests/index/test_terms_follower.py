"""index/terms_follower.py: a large catch-up's term index built by a second process.

Covers: the child alone brings the term index up to what SQLite committed (the parent adds
nothing after it); a catch-up over the follower threshold, through ``Freshness``, ends with
every entry searchable, replaced ones left out; a child that fails leaves the work to the
parent, with a warning; a build that fails kills the child and frees the term index's lock; a
child whose parent is gone (stdin closed at once) commits what there is and exits; the child
refuses an index that is not there; the child and tantivy's threads run at a lower priority.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import entry, nice_of_threads
from tests.direct import Direct
from tests.timing import scaled
from zettelclaw.home import Home
from zettelclaw.index import terms_follower
from zettelclaw.index.database import Index
from zettelclaw.index.entries import Filters
from zettelclaw.index.ingest import Ingester
from zettelclaw.index.terms import TermIndex
from zettelclaw.index.terms_follower import Follower

pytestmark = pytest.mark.slow  # starts the term index's follower process


def _log(write_log: Callable[..., list[dict[str, Any]]], count: int) -> list[dict[str, Any]]:
    return write_log(*[entry("fact", f"note {i} about the ledger") for i in range(count)])


def _lines(terms: TermIndex, word: str) -> list[int]:
    hits = terms.search(terms.tokens([word]), every=True, filters=Filters(), limit=100_000)
    return sorted(hit.line for hit in hits)


def test_the_child_alone_indexes_what_sqlite_committed(home: Home, index: Index,
                                                       write_log: Any) -> None:
    _log(write_log, 500)
    terms = TermIndex(home.terms)
    with Follower(index.path, terms.root) as follower:
        Ingester(index, home.log).catch_up()  # no term index in this process at all
        assert follower.finish()
    fresh = TermIndex(home.terms)  # what the child committed, read from disk
    assert _lines(fresh, "ledger") == list(range(1, 501))


def test_a_large_catch_up_goes_through_the_follower(
        home: Home, workspace: Path, write_log: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(terms_follower, "FOLLOW_BYTES", 1000)
    started: list[bool] = []
    finish = Follower.finish

    def recorded(self: Follower) -> bool:
        started.append(finish(self))
        return started[-1]

    monkeypatch.setattr(Follower, "finish", recorded)
    entries = _log(write_log, 300)
    write_log(entry("fact", "the ledger moved to Postgres", replaces=entries[0]["id"]))
    direct = Direct.open(home, workspace)
    try:
        report = direct.sync()
        assert report.entries == 301
        assert started == [True], "the follower ran and committed"
        terms = direct.app.freshness.terms
        assert _lines(terms, "ledger") == list(range(2, 302)), "the replaced line 1 is left out"
        assert _lines(terms, "postgres") == [301]
    finally:
        direct.app.close()


def test_the_index_is_said_to_be_building_until_the_follower_has_finished(
        home: Home, workspace: Path, write_log: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """``status`` says ``indexing`` while the follower ends its tail: a search then waits for
    that catch-up, so a status that said "built" sent the first search to wait (bench/run.py's
    cold start at 1M answered -32007 after the status said the index was built)."""
    monkeypatch.setattr(terms_follower, "FOLLOW_BYTES", 1000)
    direct = Direct.open(home, workspace)
    seen: list[tuple[int, int] | None] = []
    finish = Follower.finish

    def watched(self: Follower) -> bool:
        seen.append(direct.app.freshness.progress)
        return finish(self)

    monkeypatch.setattr(Follower, "finish", watched)
    _log(write_log, 300)
    try:
        direct.sync()
        size = home.log.stat().st_size
        assert seen == [(size, size)], "still indexing while the follower finishes"
        assert direct.app.freshness.progress is None, "and built after"
    finally:
        direct.app.close()


def test_a_child_that_fails_leaves_the_work_to_the_parent(
        home: Home, workspace: Path, write_log: Any, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(terms_follower, "FOLLOW_BYTES", 1000)
    monkeypatch.setattr(Follower, "command",
                        staticmethod(lambda: [sys.executable, "-c", "import sys; sys.exit(3)"]))
    _log(write_log, 200)
    direct = Direct.open(home, workspace)
    try:
        with caplog.at_level(logging.WARNING):
            direct.sync()
        assert "the follower process exited with 3" in caplog.text
        assert _lines(direct.app.freshness.terms, "ledger") == list(range(1, 201))
    finally:
        direct.app.close()


def test_a_failed_build_kills_the_child_and_frees_the_lock(home: Home, index: Index,
                                                           write_log: Any) -> None:
    _log(write_log, 50)
    terms = TermIndex(home.terms)
    follower = Follower(index.path, terms.root)
    failed = RuntimeError("the build failed")
    follower.__enter__()
    process = follower._process
    assert process is not None
    follower.__exit__(RuntimeError, failed, None)
    assert process.returncode is not None, "killed and reaped"
    with terms.updating(index):  # the child's lock is gone: this does not wait
        pass


def test_a_child_whose_parent_is_gone_commits_what_there_is(home: Home, index: Index,
                                                            write_log: Any) -> None:
    _log(write_log, 40)
    Ingester(index, home.log).catch_up()
    done = subprocess.run([*Follower.command(), str(index.path), str(home.terms)],
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=scaled(60),
                          check=False)
    assert done.returncode == 0, done.stderr
    assert _lines(TermIndex(home.terms), "ledger") == list(range(1, 41))


def test_the_child_refuses_an_index_that_is_not_there(home: Home) -> None:
    done = subprocess.run([*Follower.command(), str(home.root / "missing.sqlite"),
                           str(home.terms)], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=scaled(60), check=False)
    assert done.returncode != 0
    assert "no index at" in done.stderr
    assert not (home.root / "missing.sqlite").exists()


def test_a_rebuild_goes_through_the_follower_and_starts_the_terms_over(
        home: Home, workspace: Path, write_log: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    _log(write_log, 120)
    direct = Direct.open(home, workspace)
    try:
        direct.sync()  # small: in this process
        monkeypatch.setattr(terms_follower, "FOLLOW_BYTES", 1000)
        finished: list[bool] = []
        finish = Follower.finish

        def finish_kept(self: Follower) -> bool:
            finished.append(finish(self))
            return finished[-1]

        monkeypatch.setattr(Follower, "finish", finish_kept)
        report = direct.app.freshness.rebuild()
        assert report.entries == 120
        assert finished == [True]
        terms = direct.app.freshness.terms
        assert _lines(terms, "ledger") == list(range(1, 121)), "once each: no old documents"
        assert terms.documents() == [(line, False) for line in range(1, 121)]
    finally:
        direct.app.close()


@pytest.mark.skipif(sys.platform != "linux", reason="a nice value per thread is Linux's")
def test_the_child_and_tantivys_threads_yield_the_cores_to_the_parent(
        home: Home, index: Index, write_log: Any) -> None:
    _log(write_log, 200)
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    with Follower(index.path, home.terms) as follower:
        process = follower._process
        assert process is not None
        Ingester(index, home.log).catch_up()
        deadline = time.monotonic() + 60
        while len(nice := nice_of_threads(process.pid)) < 3:  # the writer's threads made
            assert time.monotonic() < deadline, nice
            time.sleep(0.05)
        assert set(nice.values()) == {min(ours + terms_follower.FOLLOWER_NICE, 19)}
        assert follower.finish()
    assert os.getpriority(os.PRIO_PROCESS, 0) == ours
