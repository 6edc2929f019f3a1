"""The ``briefing`` record in state.json: the last run, its result, and the next run.

``{"lastRun": "2026-02-21T03:00:00-05:00", "lastResult": {...}, "nextRun": "..."}``, merged into
state.json under the data lock (the file is replaced atomically, its other keys kept).
"""

from __future__ import annotations

from typing import Any

from zettelclaw.home import Home
from zettelclaw.state import load_state, save_state_locked

KEY = "briefing"


def load(home: Home) -> dict[str, Any]:
    try:
        value = load_state(home).get(KEY)
    except ValueError:  # a damaged state.json: status still answers
        return {}
    return dict(value) if isinstance(value, dict) else {}


def save_locked(home: Home, update: dict[str, Any]) -> None:
    """Merge ``update`` into the record; the caller holds the data lock."""
    state = load_state(home)
    current = state.get(KEY)
    state[KEY] = {**(current if isinstance(current, dict) else {}), **update}
    save_state_locked(home, state)
