"""A memory's sync set-up and its progress, in ``HOME/replicate/`` (never synced).

``sync.json``: the remote (written by ``sync init``; no file, no sync: sync is opt-in, per
memory). ``sync-state.json``: the commit last read, how far each other machine's file was read,
the purges applied here, and the last sync's outcome (for ``sync status``). Both replaced
atomically.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from zettelclaw.errors import ConfigError
from zettelclaw.files import atomic_write_json, read_json_object
from zettelclaw.home import Home
from zettelclaw.replicate.machine import directory


def config_path(home: Home) -> Path:
    return directory(home) / "sync.json"


def repo_path(home: Home) -> Path:
    return directory(home) / "repo"


def lock_path(home: Home) -> Path:
    return directory(home) / "sync.lock"


@dataclass
class Settings:
    remote: str
    branch: str = "main"


def load_settings(home: Home) -> Settings | None:
    try:
        value = read_json_object(config_path(home))
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if value is None:
        return None
    if not isinstance(value.get("remote"), str):
        raise ConfigError(f"{config_path(home)}: no remote; run `zettelclaw sync init REMOTE`")
    return Settings(value["remote"], str(value.get("branch") or "main"))


def require_settings(home: Home) -> Settings:
    found = load_settings(home)
    if found is None:
        raise ConfigError("sync is not set up for this memory: run `zettelclaw sync init REMOTE` "
                          "(docs/14-sync.md)")
    return found


def save_settings(home: Home, settings: Settings) -> None:
    atomic_write_json(config_path(home), asdict(settings))


@dataclass
class State:
    seen: str | None = None  # the remote commit last read
    read: dict[str, list[int]] = field(default_factory=dict)  # file -> [offset, lines]
    applied: dict[str, str] = field(default_factory=dict)  # purge id -> when
    last: dict[str, Any] = field(default_factory=dict)  # the last sync: at, ok, error, counts


def state_path(home: Home) -> Path:
    return directory(home) / "sync-state.json"


def load_state(home: Home) -> State:
    try:
        value = read_json_object(state_path(home)) or {}
    except ValueError:
        value = {}  # unreadable: read everything again (take_foreign dedups by id)
    return State(value.get("seen"), dict(value.get("read") or {}),
                 dict(value.get("applied") or {}), dict(value.get("last") or {}))


def save_state(home: Home, state: State) -> None:
    atomic_write_json(state_path(home), asdict(state))
