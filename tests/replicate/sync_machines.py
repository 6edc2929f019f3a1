"""Machines for the sync tests: each a data directory and workspace of its own (a HOME of its
own), all syncing through one bare git repository on a path."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import orjson

from tests.conftest import entry
from zettelclaw import lock
from zettelclaw.home import Home
from zettelclaw.log.store import LogStore
from zettelclaw.replicate import git_sync


def bare(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True)
    return path


class Machine:
    def __init__(self, root: Path, name: str) -> None:
        self.name = name
        self.home = Home(root / name / "data")
        self.workspace = root / name / "workspace"
        self.home.ensure()
        self.workspace.mkdir(parents=True, exist_ok=True)

    def write(self, count: int, prefix: str | None = None, **fields: Any) -> list[dict[str, Any]]:
        """``count`` new entries appended as one batch, as extraction appends them."""
        made = [entry(content=f"{prefix or self.name} fact {n}", **fields) for n in range(count)]
        with lock.exclusive(self.home.lock):
            LogStore(self.home).append_lines_locked(
                b"".join(orjson.dumps(e) + b"\n" for e in made))
        return made

    def append(self, *entries: dict[str, Any]) -> None:
        with lock.exclusive(self.home.lock):
            LogStore(self.home).append_lines_locked(
                b"".join(orjson.dumps(e) + b"\n" for e in entries))

    def sync(self) -> git_sync.SyncReport:
        """One sync with no App: a purge from elsewhere rewrites the log alone."""
        return git_sync.sync(self.home, self.purge_log_only)

    def purge_log_only(self, ids: list[str]) -> None:
        from zettelclaw.forget.purge import rewrite_without_locked

        with lock.exclusive(self.home.lock):
            rewrite_without_locked(self.home, frozenset(ids))

    def home_machine(self) -> str:
        from zettelclaw.replicate.machine import machine_id

        return machine_id(self.home)

    def ids(self) -> list[str]:
        found = []
        for raw in self.home.log.read_bytes().splitlines():
            try:
                value = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            found.append(value["id"])
        return found

    def texts(self) -> bytes:
        return self.home.log.read_bytes()


def remote_blobs(remote: Path) -> bytes:
    """Every object the bare repository holds, reachable or not, as bytes."""
    listed = subprocess.run(["git", "-C", str(remote), "cat-file", "--batch-all-objects",
                             "--batch-check=%(objectname)"], capture_output=True, check=True)
    names = listed.stdout
    dumped = subprocess.run(["git", "-C", str(remote), "cat-file", "--batch"], input=names,
                            capture_output=True, check=True)
    return dumped.stdout
