"""Retention of the transcript copies (extraction/retention.py, ``retention.transcriptDays``):
pruned after their days on a moved clock, never while their job is in the spool, the keys kept
so that nothing is extracted twice; the worker prunes at start and hourly; ``status`` says what
is kept."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from tests.direct import open_app
from zettelclaw.app import App
from zettelclaw.config import load_config
from zettelclaw.errors import NotFoundError
from zettelclaw.extraction.intake import Accepted, HookCall
from zettelclaw.extraction.retention import DAY, INTERVAL_SECONDS, Kept
from zettelclaw.extraction.sweep import HostSession
from zettelclaw.extraction.transcript import _iso
from zettelclaw.extraction.worker import Worker
from zettelclaw.home import Home


def messages(*texts: str, start: int = 0) -> list[dict[str, Any]]:
    return [{"role": "user", "content": text, "timestamp": 1_795_000_000_000 + (start + i) * 1000}
            for i, text in enumerate(texts)]


@pytest.fixture
def app(home: Home, workspace: Path) -> Iterator[App]:
    opened = open_app(home, workspace, settings=load_config(
        home, env={}, overrides=["retention.transcriptDays=30"]))
    yield opened
    opened.close()


def received(app: App, session_id: str, *texts: str, start: int = 0) -> Accepted:
    return app.extraction.intake.accept(HookCall(
        trigger="sessionEnd", session_id=session_id, session_key="agent:main:main",
        messages=messages(*texts, start=start)))


def finish_jobs(app: App) -> None:
    """As the worker does once a job's entries are in the log: the job leaves the spool."""
    for job in app.extraction.spool.jobs():
        app.extraction.spool.delete(job.job_id)


def age(path: Path, days: float) -> None:
    then = time.time() - days * DAY
    os.utime(path, (then, then))


def test_a_transcript_goes_after_its_days_and_not_before(app: App) -> None:
    received(app, "s1", "The staging database is Postgres 16")
    finish_jobs(app)
    transcript = app.extraction.provenance.path("s1")
    last = transcript.stat().st_mtime
    size = transcript.stat().st_size
    assert app.extraction.prune_transcripts(now=last + 29 * DAY).files == 0
    assert transcript.exists()
    pruned = app.extraction.prune_transcripts(now=last + 31 * DAY)
    assert (pruned.files, pruned.bytes) == (1, size)
    assert not transcript.exists()
    assert b"Postgres" not in app.extraction.provenance.keys_path("s1").read_bytes()
    with pytest.raises(NotFoundError, match="was pruned"):
        app.extraction.transcript("s1", 1, None)


def test_never_a_transcript_whose_job_is_still_in_the_spool(app: App) -> None:
    received(app, "s1", "Invoices go out on the first Monday")
    transcript = app.extraction.provenance.path("s1")
    later = transcript.stat().st_mtime + 365 * DAY
    assert app.extraction.prune_transcripts(now=later).files == 0
    assert transcript.exists()
    finish_jobs(app)
    assert app.extraction.prune_transcripts(now=later).files == 1


def test_a_pruned_conversation_sent_again_is_not_extracted_twice(app: App) -> None:
    received(app, "s1", "one", "two")
    finish_jobs(app)
    app.extraction.prune_transcripts(now=time.time() + 31 * DAY)
    again = received(app, "s1", "one", "two")
    assert again.messages == 0
    assert app.extraction.spool.jobs() == []
    # the sweep still knows where the session was received to
    [need] = app.extraction.sweep([HostSession("s1", updated_at=1_795_000_999_000)]).sessions
    assert need.after is not None
    assert need.after.timestamp == _iso(1_795_000_001_000)  # "two", the last received
    # new messages later: a new copy, and its prune keeps every key
    assert received(app, "s1", "one", "two", "three", start=0).messages == 1
    finish_jobs(app)
    app.extraction.prune_transcripts(now=time.time() + 31 * DAY)
    assert received(app, "s1", "one", "two", "three").messages == 0


def test_status_says_what_is_kept(app: App) -> None:
    assert app.extraction.status().transcripts == Kept(files=0, bytes=0, oldest=None,
                                                       retention_days=30)
    received(app, "s1", "first")
    received(app, "s2", "second")
    age(app.extraction.provenance.path("s1"), 3)
    kept = app.extraction.status().transcripts
    sizes = sum(app.extraction.provenance.path(s).stat().st_size for s in ("s1", "s2"))
    assert (kept.files, kept.bytes) == (2, sizes)
    oldest = app.extraction.provenance.path("s1").stat().st_mtime
    assert kept.oldest == time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(oldest))


async def test_the_worker_prunes_at_start_and_every_hour(
        app: App, autojump_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch
        ) -> None:
    received(app, "s1", "old news")
    received(app, "s2", "newer news")
    finish_jobs(app)
    first, second = (app.extraction.provenance.path(s) for s in ("s1", "s2"))
    age(first, 40)
    done: list[float] = []  # when each prune finished (mock time)
    prune = app.extraction.prune_transcripts

    def counted(now: float | None = None) -> Any:
        result = prune(now)
        done.append(autojump_clock.current_time())
        return result

    monkeypatch.setattr(app.extraction, "prune_transcripts", counted)
    async with trio.open_nursery() as nursery:
        await nursery.start(Worker(app.extraction).run)
        await until(lambda: len(done) == 1)  # the prune at start
        assert not first.exists()
        assert second.exists()
        age(second, 40)
        await until(lambda: len(done) == 2)  # the next: an hour later on the mock clock
        assert done[1] - done[0] >= INTERVAL_SECONDS
        assert not second.exists()
        nursery.cancel_scope.cancel()


async def until(condition: Callable[[], bool]) -> None:
    """Wait for ``condition``, for at most 20 s of real time (the clock of the test is mock:
    it jumps whenever every task waits, a prune in its thread included)."""
    deadline = time.monotonic() + 20
    while not condition():
        assert time.monotonic() < deadline, "the worker did not prune"
        await trio.sleep(1)


def test_a_prune_cut_short_by_a_crash_is_finished_by_the_next(app: App) -> None:
    """The keys file is written before the text goes: a crash between leaves both, which read
    as one set of keys, and the next prune merges them without a key twice."""
    received(app, "s1", "one", "two")
    finish_jobs(app)
    provenance = app.extraction.provenance
    transcript = provenance.path("s1")
    kept = transcript.read_bytes()
    provenance.prune("s1")
    transcript.write_bytes(kept)  # as if the crash came before the unlink
    assert received(app, "s1", "one", "two").messages == 0
    provenance.prune("s1")
    lines = provenance.keys_path("s1").read_bytes().splitlines()
    assert len(lines) == 2
    assert not transcript.exists()
