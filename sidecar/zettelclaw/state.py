"""state.json: the sidecar's own bookkeeping (spec §4.1.1), replaced atomically under the lock.

Extraction (its own issue) records there which sessions were extracted and which failed; this
module only knows how to read the file with defaults and write it back whole.
"""

from __future__ import annotations

from typing import Any

from zettelclaw.files import atomic_write_json, read_json_object
from zettelclaw.home import Home

STATE_VERSION = 1


def default_state() -> dict[str, Any]:
    return {"version": STATE_VERSION, "extractedSessions": {}, "failedSessions": {}}


def load_state(home: Home) -> dict[str, Any]:
    return {**default_state(), **(read_json_object(home.state) or {})}


def save_state_locked(home: Home, state: dict[str, Any]) -> None:
    atomic_write_json(home.state, state)
