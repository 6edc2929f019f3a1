"""Where a CLI command's call goes: to the running sidecar, or straight to the files.

When a sidecar answers on the socket, commands ask it (it holds the warm index and serializes
writes). When none does, the command builds the same method table in-process and calls it under
the same data lock, so the answers are the same either way.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
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


class AgentBackend:
    """``--agent ID``: every call names that agent (``agentId``), unless it names one itself;
    the methods that are not about one memory (``agents.*``, ``host.offer``) are left as
    they are."""

    NOT_PER_AGENT = frozenset({"agents.list", "agents.register", "host.offer"})

    def __init__(self, inner: Backend, agent: str) -> None:
        self.inner = inner
        self.agent = agent
        self.where = inner.where

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        if method not in self.NOT_PER_AGENT and isinstance(params, dict | None):
            params = {"agentId": self.agent, **(params or {})}
        return self.inner.call(method, params)

    def close(self) -> None:
        self.inner.close()


class FilesBackend:
    """The sidecar's own method table, run in this process on the data directory."""

    READS = frozenset({"memory.search", "memory.get", "subjects.list", "status", "agents.list"})

    def __init__(self, home: Home, workspace: Path, *, explicit_workspace: bool = True,
                 socket: Path | None = None) -> None:
        # the heavy imports only when no sidecar answers
        from zettelclaw.agents.pool import open_agents
        from zettelclaw.agents.upgrade import move_foreign_jobs
        from zettelclaw.config import load_config
        from zettelclaw.methods import build_methods
        from zettelclaw.protocol.dispatcher import Dispatcher

        self.where = f"files in {home.root}"
        home.ensure()
        self.agents = open_agents(home, workspace, load_config(home), serving=False,
                                  main_workspace_explicit=explicit_workspace)
        move_foreign_jobs(home, self.agents.roster.memory_of)  # as `serve` does, first
        info = {"socket": None, "mode": "files (no sidecar answered)",
                "triedSocket": None if socket is None else str(socket)}
        self.dispatcher = Dispatcher(build_methods(self.agents, lambda: info))

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        params = params or {}
        if method in ("index.rebuild", "vault.build") or method in self.READS:
            rebuilt = trio.run(self._catch_up, method, params)
            if rebuilt is not None:
                return rebuilt
        return trio.run(self.dispatcher.call, method, params)

    async def _catch_up(self, method: str, params: dict[str, Any]) -> dict[str, Any] | None:
        """Index with a progress bar drawn as it goes (the sidecar's methods cannot draw one),
        before the call itself; an unknown or malformed agent is left for the call to report."""
        from zettelclaw.agent_ids import AgentIdError, chosen_agent
        from zettelclaw.methods.admin import rebuild

        try:
            agent = chosen_agent(params.get("agentId"), params.get("sessionKey"))
        except (AgentIdError, AttributeError, TypeError):
            return None
        if not self.agents.roster.known(agent):
            return None
        async with self.agents.lease(agent) as app:
            if method == "index.rebuild":
                return rebuild(app, ProgressBar("reindexing log.jsonl")).wire()
            if method == "vault.build":  # the same build as the method's, with a progress bar
                return _vault_build(app, params)
            if app.freshness.needs_sync():
                app.freshness.sync(progress=ProgressBar("indexing log.jsonl"))
        return None

    def close(self) -> None:
        self.agents.close_all()


def _vault_build(app: Any, params: dict[str, Any]) -> dict[str, Any]:
    from zettelclaw.methods.vault import vault_built, vault_path
    from zettelclaw.protocol.params import VaultBuildParams
    from zettelclaw.vault.build import build

    checked = VaultBuildParams.model_validate(params)
    bar = ProgressBar("rendering the vault", threshold=20_000)
    return vault_built(build(app, vault_path(checked.path), from_scratch=checked.from_scratch,
                             force=checked.force, progress=bar)).wire()


def open_backend(home: Home, socket: Path, workspace: Path, files_only: bool, *,
                 explicit_workspace: bool = False, missing: str | None = None,
                 before_files: Callable[[], None] | None = None) -> Backend:
    """The sidecar when one answers, else the files (whose workspace is created when missing,
    as `serve` does: ``home.ensure_workspace``), once ``before_files`` has not refused. With
    ``missing``, a data directory that holds no memory yet is refused instead of started, with
    ``missing`` said after why."""
    if not files_only:
        try:
            return SidecarBackend(Client(socket).connect())
        except SidecarUnavailableError:
            pass
        except OSError as exc:  # not "nothing listens": the path itself cannot be used
            raise DataDirError(f"cannot connect to {socket}: {exc.strerror or exc}") from exc
    if missing is not None and not home.exists():
        answered = "" if files_only else f" and no sidecar answers on {socket}"
        raise DataDirError(f"there is no memory in {home.root}{answered}. {missing}")
    if before_files is not None:
        before_files()
    ensure_workspace(workspace, explicit=explicit_workspace)
    return FilesBackend(home, workspace, explicit_workspace=explicit_workspace,
                        socket=None if files_only else socket)


class ProgressBar:
    """A one-line progress bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self, label: str, threshold: int = 8 << 20) -> None:
        self.label = label
        self.threshold = threshold  # below this total, no bar (faster done than redrawn)
        self.enabled = sys.stderr.isatty()

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total < self.threshold:
            return
        fraction = done / total if total else 1.0
        filled = int(fraction * 30)
        amount = (f"{done}/{total}" if self.threshold < (8 << 20)
                  else f"{done >> 20}/{total >> 20} MiB")
        sys.stderr.write(f"\r{self.label} [{'#' * filled}{'.' * (30 - filled)}] "
                         f"{fraction:4.0%} {amount}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()
