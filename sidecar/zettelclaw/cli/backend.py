"""Where a CLI command's call goes: to the running sidecar, or straight to the files.

When a sidecar answers on the socket, commands ask it (it holds the warm index and serializes
writes). When none does, the command builds the same method table in-process and calls it under
the same data lock, so the answers are the same either way.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Protocol

import trio

from zettelclaw.client import Client, SidecarUnavailableError
from zettelclaw.errors import DataDirError
from zettelclaw.home import Home, ensure_workspace


class Backend(Protocol):
    where: str

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any: ...

    def close(self) -> None: ...


class SidecarBackend:
    def __init__(self, client: Client) -> None:
        self.client = client
        self.where = f"sidecar at {client.socket_path}"

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return self.client.call(method, params)

    def close(self) -> None:
        self.client.close()


class FilesBackend:
    """The sidecar's own method table, run in this process on the data directory."""

    READS = frozenset({"memory.search", "memory.get", "subjects.list", "status"})

    def __init__(self, home: Home, workspace: Path) -> None:
        from zettelclaw.app import build_app  # the heavy imports only when no sidecar answers
        from zettelclaw.config import load_config
        from zettelclaw.methods import build_methods
        from zettelclaw.protocol.dispatcher import Dispatcher

        self.where = f"files in {home.root}"
        self.app = build_app(home, workspace, load_config(home), serving=False)
        info = {"socket": None, "mode": "files (no sidecar answered)"}
        self.dispatcher = Dispatcher(build_methods(self.app, lambda: info))

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        if method == "index.rebuild":  # here, the progress can be drawn as it goes
            from zettelclaw.methods.admin import rebuild

            return rebuild(self.app, ProgressBar("reindexing log.jsonl")).wire()
        if method in self.READS and self.app.freshness.needs_sync():
            self.app.freshness.sync(progress=ProgressBar("indexing log.jsonl"))
        return trio.run(self.dispatcher.call, method, params or {})

    def close(self) -> None:
        self.app.close()


def open_backend(home: Home, socket: Path, workspace: Path, files_only: bool, *,
                 explicit_workspace: bool = False) -> Backend:
    """The sidecar when one answers, else the files (whose workspace is created when missing,
    as `serve` does: ``home.ensure_workspace``)."""
    if not files_only:
        try:
            return SidecarBackend(Client(socket).connect())
        except SidecarUnavailableError:
            pass
        except OSError as exc:  # not "nothing listens": the path itself cannot be used
            raise DataDirError(f"cannot connect to {socket}: {exc.strerror or exc}") from exc
    ensure_workspace(workspace, explicit=explicit_workspace)
    return FilesBackend(home, workspace)


class ProgressBar:
    """A one-line progress bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.enabled = sys.stderr.isatty()
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total < (8 << 20):  # small logs index faster than a redraw
            return
        fraction = done / total if total else 1.0
        filled = int(fraction * 30)
        sys.stderr.write(f"\r{self.label} [{'#' * filled}{'.' * (30 - filled)}] "
                         f"{fraction:4.0%} {done >> 20}/{total >> 20} MiB")
        self.drawn = True
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()
