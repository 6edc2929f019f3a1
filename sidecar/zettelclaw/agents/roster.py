"""Which agents exist, whose memory each one uses, and where each one's workspace is.

An agent is known when it is ``main``, when it has a memory on disk, when the host registered
its workspace (``agents.register``, or the ``workspaceDir`` of a hook), when OpenClaw's
``openclaw.json`` lists it, or when ``agents.share`` names it. A read for any other id is an
error (``UnknownAgentError``), not an empty answer that would look like "no memory".

Workspaces, for each agent: what the host registered last (kept in ``HOME/agents.json``, so a
restart or the CLI knows it too), else ``openclaw.json`` (resolved as OpenClaw's
``resolveAgentWorkspaceDir`` does), else, for ``main``, ``--workspace`` / the default. The host's
word wins: it is where OpenClaw reads MEMORY.md from.

Sharing (``agents.share`` in config.json, off by default): ``{"phone": "main"}`` makes the agent
``phone`` use ``main``'s memory: its log, its recall, its MEMORY.md. Only what is named there is
shared; an agent that shares is never itself shared (no chains).

A workspace is owned by one memory's agents (``workspace/claims.py``): a registration of
a workspace that is, contains or lies inside another memory's agent's is refused, and said so.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from zettelclaw.agent_ids import MAIN, AgentIdError, check_agent_id
from zettelclaw.errors import InvalidParamsError
from zettelclaw.files import atomic_write_json, read_json_object
from zettelclaw.home import DIR_MODE, Home
from zettelclaw.workspace import claims as workspace_claims
from zettelclaw.workspace.claims import Claim, Claims

logger = logging.getLogger(__name__)

AGENTS_DIR = "agents"
REGISTRY_FILE = "agents.json"
# agents whose workspace the host may register, since without a bound a host's 10,000 made
# status megabytes long; one past it is refused (an agent already registered may still move)
MAX_REGISTERED = 1000


def memory_home(root: Home, memory: str) -> Home:
    """Where a memory lives: ``main``'s is the data directory itself (the layout a
    single-agent home already has), every other one ``HOME/agents/<id>/``."""
    return root if memory == MAIN else Home(root.root / AGENTS_DIR / memory)


def ensure_memory_home(root: Home, memory: str) -> Home:
    """``memory_home``, made when missing: ``HOME/agents`` 0700 too (``Home.ensure`` makes its
    own directory 0700, but parents with the default mode), and the memory's empty log."""
    home = memory_home(root, memory)
    if memory != MAIN:
        (root.root / AGENTS_DIR).mkdir(mode=DIR_MODE, exist_ok=True)
    home.ensure()
    return home


def memories_on_disk(root: Home) -> list[str]:
    """The memories that have a directory (``main`` always)."""
    found = {MAIN}
    try:
        for child in (root.root / AGENTS_DIR).iterdir():
            try:
                if child.is_dir() and not child.is_symlink():
                    found.add(check_agent_id(child.name))
            except AgentIdError:
                continue  # not ours (a temp dir, a stray file)
    except FileNotFoundError:
        pass
    return sorted(found)


def check_workspace(value: str) -> Path:
    """A workspace a caller names: an absolute path, nothing else (it is where MEMORY.md is
    written, so a relative one would depend on the sidecar's working directory)."""
    if "\x00" in value or not os.path.isabs(value):
        raise InvalidParamsError(f"workspace {value[:200]!r} must be an absolute path",
                                 [{"field": "workspace", "message": "not an absolute path",
                                   "type": "value_error"}])
    return Path(os.path.normpath(value))


@dataclass(frozen=True, slots=True)
class Refusal:
    """A workspace ``register`` did not record, and why (``owner``: the other memory's agent
    whose workspace it overlaps, ``relation`` how)."""

    agent_id: str
    workspace: str
    reason: str
    owner: str | None = None
    owner_workspace: str | None = None
    relation: str | None = None


class Roster:
    def __init__(self, root: Home, main_workspace: Path, *, share: Mapping[str, str],
                 openclaw: Mapping[str, Path] | None = None,
                 reread: Callable[[], Mapping[str, Path] | None] | None = None) -> None:
        self.root = root
        self.main_workspace = main_workspace
        self.share = dict(share)
        self.openclaw = dict(openclaw or {})
        # openclaw.json again, when it changed since it was read (None: it did not): so that an
        # agent added to OpenClaw while a sidecar started by hand runs is known at once
        self._reread = reread
        self._lock = threading.Lock()
        self.registered: dict[str, Path] = self._load()

    @property
    def path(self) -> Path:
        return self.root.root / REGISTRY_FILE

    def _load(self) -> dict[str, Path]:
        data = read_json_object(self.path) or {}
        saved = data.get("workspaces")
        found: dict[str, Path] = {}
        if isinstance(saved, dict):
            for agent, ws in saved.items():
                try:
                    found[check_agent_id(agent)] = check_workspace(str(ws))
                except (AgentIdError, InvalidParamsError):
                    logger.warning("%s: skipped %r: %r", self.path, agent, ws)
        return found

    def memory_of(self, agent: str) -> str:
        return self.share.get(agent, agent)

    def agents(self) -> list[str]:
        """Every known agent id."""
        self._refresh()
        return sorted({MAIN, *memories_on_disk(self.root), *self.registered, *self.openclaw,
                       *self.share})

    def known(self, agent: str) -> bool:
        if self._known(agent):
            return True
        self._refresh()
        return self._known(agent)

    def _refresh(self) -> None:
        fresh = self._reread() if self._reread is not None else None
        if fresh is not None:
            self.openclaw = dict(fresh)

    def _known(self, agent: str) -> bool:
        return (agent == MAIN or agent in self.registered or agent in self.openclaw
                or agent in self.share or memory_home(self.root, agent).root.is_dir())

    def workspace_of(self, memory: str) -> Path | None:
        """The workspace of a memory (its own agent's: a shared memory briefs one MEMORY.md)."""
        if memory in self.registered:
            return self.registered[memory]
        if memory == MAIN:
            return self.main_workspace
        return self.openclaw.get(memory)

    def _configured(self, agent: str) -> Path | None:
        """The workspace the user configured for ``agent`` (openclaw.json; ``main``'s also
        ``--workspace``)."""
        if agent == MAIN:
            return self.main_workspace
        return self.openclaw.get(agent)

    def _claim(self, agent: str, workspace: Path) -> Claim:
        configured = self._configured(agent)
        return workspace_claims.claim(
            agent, self.memory_of(agent), workspace,
            configured is not None
            and os.path.realpath(configured) == os.path.realpath(workspace))

    def claims(self) -> list[Claim]:
        """Each agent's workspace as it stands (registered, else configured)."""
        self._refresh()
        found = []
        for agent in sorted({MAIN, *self.registered, *self.openclaw}):
            workspace = self.registered.get(agent) or self._configured(agent)
            if workspace is not None:
                found.append(self._claim(agent, workspace))
        return found

    def conflicts(self) -> list[workspace_claims.Conflict]:
        """Agents of different memories whose workspaces are the same or nested (status)."""
        return workspace_claims.conflicts(self.claims())

    def owner_of(self, agent: str, workspace: Path) -> tuple[Claim, str] | None:
        """Another memory's agent whose workspace ``workspace`` would overlap, for ``agent``."""
        return Claims(self.claims()).owner_against(self._claim(agent, workspace))

    def register(self, workspaces: Mapping[str, Path],
                 refused: list[Refusal] | None = None) -> list[str]:
        """Record what the host says; returns the agents whose workspace changed. Written to
        agents.json (atomically) only when something changed. A workspace another memory's
        agent owns (the same, or nested) is not recorded: it is added to ``refused``."""
        with self._lock:
            changed = [a for a, ws in workspaces.items() if self.registered.get(a) != ws]
            if not changed:
                return []
            claims: Claims | None = None  # made when an agent gets past the cap (realpaths)
            over: list[str] = []
            accepted: dict[str, Path] = {}
            for agent in changed:
                if (agent not in self.registered
                        and len(self.registered) + len(accepted) >= MAX_REGISTERED):
                    over.append(agent)
                    if refused is not None:
                        refused.append(Refusal(agent, str(workspaces[agent]),
                                               f"{MAX_REGISTERED} agents are registered "
                                               "already"))
                    continue
                mine = self._claim(agent, workspaces[agent])
                if claims is None:
                    claims = Claims(self.claims())
                found = claims.owner_against(mine)
                if found is not None:
                    owner, how = found
                    logger.warning("agent %s: workspace %s not recorded: it %s agent %s's (%s)",
                                   agent, mine.workspace, _HOW[how], owner.agent,
                                   owner.workspace)
                    if refused is not None:
                        refused.append(Refusal(agent, str(mine.workspace),
                                               f"it {_HOW[how]} agent {owner.agent}'s "
                                               "workspace, of another memory",
                                               owner=owner.agent,
                                               owner_workspace=str(owner.workspace),
                                               relation=how))
                    continue
                accepted[agent] = workspaces[agent]
                claims.add(mine)
            if over:  # one line a call, not one an agent
                logger.warning("%d agent(s) not registered (%s%s): %d are registered already",
                               len(over), ", ".join(over[:5]), ", ..." if len(over) > 5 else "",
                               MAX_REGISTERED)
            if not accepted:
                return []
            merged = {**self.registered, **accepted}
            atomic_write_json(self.path, {"workspaces": {a: str(p) for a, p in
                                                         sorted(merged.items())}})
            self.registered = merged
            return list(accepted)


_HOW = {"same": "is", "inside": "lies inside", "contains": "contains"}
