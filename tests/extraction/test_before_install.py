"""The memory's start (state.json ``since``) and the gateway's sweep: a session the memory has
never seen whose last activity is older than the start is left out, counted, and named as
``zettelclaw import openclaw``'s (docs/13-import.md)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import entry, line, started
from tests.direct import open_app
from zettelclaw import lock
from zettelclaw.client import AsyncClient
from zettelclaw.extraction.intake import HookCall
from zettelclaw.extraction.sweep import HostSession
from zettelclaw.home import Home
from zettelclaw.log.schema import parse_timestamp
from zettelclaw.serve import Ready
from zettelclaw.state import State, load_state, save_state_locked

START = "2026-11-01T00:00:00Z"
START_MS = parse_timestamp(START).timestamp() * 1000
DAY_MS = 86_400_000
MESSAGES = [{"role": "user", "content": "We chose GREENFINCH for staging.",
             "timestamp": START_MS - 2 * DAY_MS},
            {"role": "assistant", "content": "Noted.", "timestamp": START_MS - 2 * DAY_MS + 1000}]


def _sweep(home: Home, workspace: Path, *sessions: HostSession) -> tuple[list[str], list[str]]:
    app = open_app(home, workspace, serving=False)
    try:
        report = app.extraction.sweep(sessions)
    finally:
        app.close()
    return [n.session_id for n in report.sessions], [s.session_id for s in report.skipped]


def test_a_new_memory_starts_now_and_the_sweep_leaves_out_older_sessions(
        home: Home, workspace: Path) -> None:
    app = open_app(home, workspace)
    try:
        since = load_state(home).since
        assert since is not None
        since_ms = parse_timestamp(since).timestamp() * 1000
        report = app.extraction.sweep([
            HostSession("old-1", "agent:main:main", updated_at=since_ms - DAY_MS),
            HostSession("new-1", "agent:main:main", updated_at=since_ms + 1),
            HostSession("unknown-age", "agent:main:main")])  # no updatedAt: swept as ever
        status = app.extraction.status().before_install
    finally:
        app.close()
    assert [n.session_id for n in report.sessions] == ["new-1", "unknown-age"]
    [skipped] = report.skipped
    assert skipped.session_id == "old-1"
    assert "zettelclaw import openclaw" in skipped.reason
    assert (status.since, status.sessions) == (since, 1)
    assert status.hint is not None
    assert "zettelclaw import openclaw" in status.hint


def test_a_session_that_started_before_but_was_active_after_the_start_is_swept(
        home: Home, workspace: Path) -> None:
    started(home, START)
    assert _sweep(home, workspace, HostSession("s-1", "agent:main:main",
                                               updated_at=START_MS + 1)) == (["s-1"], [])
    assert load_state(home).before_install.sessions == 0


def test_a_session_the_memory_has_a_copy_of_is_swept_as_before_whatever_its_age(
        home: Home, workspace: Path) -> None:
    started(home, START)
    app = open_app(home, workspace)
    try:  # received before the start (a hook), active since, still before the start
        app.extraction.intake.accept(HookCall(trigger="beforeReset", session_id="s-2",
                                              session_key="agent:main:main", messages=MESSAGES))
        report = app.extraction.sweep([HostSession("s-2", "agent:main:main",
                                                   updated_at=START_MS - DAY_MS)])
    finally:
        app.close()
    [need] = report.sessions
    assert need.session_id == "s-2"
    assert need.after is not None  # from the message after what the sidecar has
    assert report.skipped == []


def test_the_count_in_status_is_the_last_sweeps(home: Home, workspace: Path) -> None:
    started(home, START)
    old = [HostSession(f"old-{i}", "agent:main:main", updated_at=START_MS - i) for i in (1, 2)]
    assert _sweep(home, workspace, *old) == ([], ["old-1", "old-2"])
    assert load_state(home).before_install.sessions == 2
    _sweep(home, workspace, old[0])
    assert load_state(home).before_install.sessions == 1


async def test_the_gateway_sweep_and_status_say_so_on_the_wire(home: Home, server: Ready) -> None:
    started(home, START)
    async with await AsyncClient.connect(server.socket) as client:
        sweep = await client.call("hook.gatewayStart", {"sessions": [
            {"sessionId": "old-1", "sessionKey": "agent:main:main",
             "updatedAt": START_MS - DAY_MS},
            {"sessionId": "new-1", "sessionKey": "agent:main:main",
             "updatedAt": "2026-11-02T00:00:00Z"}]})
        status = await client.call("status", {})
    assert [s["sessionId"] for s in sweep["sessions"]] == ["new-1"]
    [skipped] = sweep["skipped"]
    assert skipped["sessionId"] == "old-1"
    assert "zettelclaw import openclaw" in skipped["reason"]
    before = status["extraction"]["beforeInstall"]
    assert (before["since"], before["sessions"]) == (START, 1)
    assert "zettelclaw import openclaw" in before["hint"]


def test_an_upgraded_memory_starts_at_its_first_entry(
        home: Home, workspace: Path) -> None:
    """A memory an earlier version kept (entries, a state.json without ``since``): its start is
    its first entry's time, so nothing that version would have swept is left out."""
    first, later = "2026-03-04T05:06:07Z", "2026-05-01T00:00:00Z"
    with home.log.open("ab") as f:
        f.write(line(entry(content="first", timestamp=first)))
        f.write(line(entry(content="later", timestamp=later)))
    with lock.exclusive(home.lock):
        save_state_locked(home, State(admission_refused=3))  # as the earlier version left it
    older = parse_timestamp(first).timestamp() * 1000 - 1
    assert _sweep(home, workspace,
                  HostSession("before", "agent:main:main", updated_at=older),
                  HostSession("after", "agent:main:main", updated_at=older + 2)) == (
        ["after"], ["before"])
    state = load_state(home)
    assert state.since == first
    assert state.admission_refused == 3  # the rest of the file is kept


def test_a_restart_keeps_the_start(home: Home, workspace: Path) -> None:
    open_app(home, workspace, serving=True).close()
    since = load_state(home).since
    assert since is not None
    with home.log.open("ab") as f:  # entries written since do not move it
        f.write(line(entry(content="x", timestamp="2000-01-01T00:00:00Z")))
    open_app(home, workspace, serving=True).close()
    assert load_state(home).since == since
