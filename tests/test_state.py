"""state.json: defaults when missing or partial, a save/load round trip, bad files reported.

Covers load_state (defaults, a partial file filled in, unknown keys kept, fresh defaults each
time), save_state_locked (round trip, whole-file replacement, owner-only mode), and a file that
is not a JSON object.
"""

from __future__ import annotations

import stat
from typing import Any

import pytest

from zettelclaw.home import Home
from zettelclaw.state import STATE_VERSION, default_state, load_state, save_state_locked


def test_defaults_when_there_is_no_file(home: Home) -> None:
    assert not home.state.exists()
    assert load_state(home) == {"version": STATE_VERSION, "extractedSessions": {},
                                "failedSessions": {}}


def test_defaults_are_fresh_each_time(home: Home) -> None:
    first = load_state(home)
    first["extractedSessions"]["s1"] = {"at": "2026-02-20T15:30:00Z"}
    assert load_state(home)["extractedSessions"] == {}
    assert default_state()["extractedSessions"] == {}


def test_round_trip(home: Home) -> None:
    state: dict[str, Any] = {
        "version": STATE_VERSION,
        "extractedSessions": {"abc12345": {"at": "2026-02-20T15:30:00Z", "entries": 4}},
        "failedSessions": {"def67890": {"error": "model timed out", "attempts": 2}},
    }
    save_state_locked(home, state)
    assert load_state(home) == state


def test_a_partial_file_is_completed_with_defaults(home: Home) -> None:
    save_state_locked(home, {"extractedSessions": {"a": {}}, "futureField": [1, 2]})
    assert load_state(home) == {"version": STATE_VERSION, "extractedSessions": {"a": {}},
                                "failedSessions": {}, "futureField": [1, 2]}


def test_a_save_replaces_the_whole_file(home: Home) -> None:
    save_state_locked(home, {**default_state(), "failedSessions": {"x": {}}})
    save_state_locked(home, default_state())
    assert load_state(home)["failedSessions"] == {}
    assert stat.S_IMODE(home.state.stat().st_mode) == 0o600
    assert [p.name for p in home.root.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize("content", [b"not json", b"[1, 2]", b'"text"'])
def test_a_file_that_is_not_an_object_is_an_error_naming_it(home: Home, content: bytes) -> None:
    home.state.write_bytes(content)
    with pytest.raises(ValueError, match=r"state\.json"):
        load_state(home)
