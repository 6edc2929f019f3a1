"""agents/upgrade.py: a single-agent home keeps working after the upgrade, and the extraction
work other agents had in flight moves to their own memory, once, whatever crashes when.

The legacy state is made as the old sidecar made it: hooks of two agents accepted into the one
data directory (main's spool and provenance transcripts). Then the real ``zettelclaw serve`` is
killed at the failpoint between a job's two renames, started again, and extracts every job into
the right log, exactly once (the real SDK against the fake Messages API).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.conftest import entry, line
from tests.direct import open_app
from tests.extraction.test_crash import REPLY, Sidecar, fake  # noqa: F401  (the fixture)
from tests.extraction.test_crash import entries as log_entries
from tests.fakes.anthropic_api import FakeAnthropic
from zettelclaw.agents.roster import memory_home
from zettelclaw.agents.upgrade import move_foreign_jobs
from zettelclaw.extraction.intake import HookCall
from zettelclaw.home import Home


def accept(home: Home, workspace: Path, session: str, key: str | None,
           agent: str | None) -> None:
    """A hook as the sidecar before per-agent memory took it: into the one data directory."""
    app = open_app(home, workspace)
    try:
        app.extraction.intake.accept(HookCall(
            trigger="sessionEnd", session_id=session, session_key=key, agent_id=agent,
            messages=[{"role": "user", "content": f"words of {session}",
                       "timestamp": 1_795_000_000_000},
                      {"role": "assistant", "content": "Noted.",
                       "timestamp": 1_795_000_001_000}]))
    finally:
        app.close()


def legacy(home: Home, workspace: Path) -> None:
    home.ensure()
    home.log.write_bytes(line(entry("fact", "an entry from before the upgrade", id="old000000001")))
    accept(home, workspace, "main-1", "agent:main:main", "main")
    accept(home, workspace, "work-1", "agent:work:main", "work")
    accept(home, workspace, "work-2", "agent:work:telegram:direct:1", None)  # the key says
    accept(home, workspace, "other-1", None, None)  # another runtime: main


def jobs_in(home: Home) -> set[str]:
    return {orjson.loads(p.read_bytes())["sessionId"] for p in (home.root / "spool").glob("*.json")}


def test_foreign_jobs_move_with_their_transcripts_and_only_once(home: Home,
                                                                workspace: Path) -> None:
    legacy(home, workspace)
    work = memory_home(home, "work")
    assert jobs_in(home) == {"main-1", "work-1", "work-2", "other-1"}
    assert move_foreign_jobs(home, lambda agent: agent) == 2
    assert jobs_in(home) == {"main-1", "other-1"}
    assert jobs_in(work) == {"work-1", "work-2"}
    for session in ("work-1", "work-2"):
        assert not (home.root / "transcripts" / f"{session}.jsonl").exists()
        assert (work.root / "transcripts" / f"{session}.jsonl").exists()
    assert (home.root / "transcripts" / "main-1.jsonl").exists()
    assert (work.root.stat().st_mode & 0o777) == 0o700
    assert ((home.root / "agents").stat().st_mode & 0o777) == 0o700
    assert move_foreign_jobs(home, lambda agent: agent) == 0
    assert home.log.read_bytes().count(b"old000000001") == 1, "the log is not touched"


def test_a_shared_agent_keeps_its_jobs_where_its_memory_is(home: Home, workspace: Path) -> None:
    legacy(home, workspace)
    share = {"work": "main"}
    moved = move_foreign_jobs(home, lambda agent: share.get(agent, agent))
    assert moved == 0
    assert jobs_in(home) == {"main-1", "work-1", "work-2", "other-1"}


@pytest.mark.slow
def test_a_crash_between_the_two_renames_is_finished_at_the_next_start(
        tmp_path: Path, short_dir: Path, fake: FakeAnthropic) -> None:  # noqa: F811
    home, workspace = Home(tmp_path / "home"), tmp_path / "ws"
    workspace.mkdir()
    legacy(home, workspace)
    fake.numbered(REPLY)  # each job its own entries: the same ones would be written once
    car = Sidecar(home.root, short_dir / "s.sock", fake)
    with pytest.raises(AssertionError, match="b''"):  # killed before it could say it listens
        car.start(failpoint="upgrade-after-transcript")
    assert car.died_of_sigkill()
    work = memory_home(home, "work")
    moved = [s for s in ("work-1", "work-2") if (work.root / "transcripts" / f"{s}.jsonl").exists()]
    assert len(moved) == 1, "killed after the first transcript moved, before its job did"
    assert jobs_in(home) == {"main-1", "work-1", "work-2", "other-1"}
    car.start()
    try:
        deadline = time.monotonic() + 30
        while car.call("jobs.list")["jobs"] or car.call("jobs.list", {"agentId": "work"})["jobs"]:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        status = car.call("status", {"agentId": "work"})
    finally:
        car.stop()
    main_log: list[dict[str, Any]] = log_entries(home.root)
    work_log: list[dict[str, Any]] = log_entries(work.root)
    assert {e["session"] for e in work_log} == {"work-1", "work-2"}
    assert {e["session"] for e in main_log} >= {"main-1", "other-1"}
    assert not {e["session"] for e in main_log} & {"work-1", "work-2"}
    per_session = len(REPLY.splitlines())
    assert len(work_log) == 2 * per_session, "each job extracted once"
    assert len([e for e in main_log if e.get("session") in ("main-1", "other-1")]) \
        == 2 * per_session
    assert any(e["id"] == "old000000001" for e in main_log), "the old log keeps working"
    assert status["entries"]["total"] == 2 * per_session
    assert not list((home.root / "transcripts").glob("work-*.jsonl"))
