"""The agents OpenClaw's config lists, and their workspaces, read as OpenClaw reads them.

A sidecar started by hand (no plugin to tell it) learns the agents and their workspaces here;
the plugin's ``agents.register`` wins over it (the running gateway knows best).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from zettelclaw.agent_ids import MAIN, AgentIdError, check_agent_id
from zettelclaw.home import resolve_openclaw_path, resolve_openclaw_state_dir
from zettelclaw.openclaw.config_file import ConfigFileError, read_config, resolve_config_path

logger = logging.getLogger(__name__)


def configured_workspaces(env: Mapping[str, str]) -> dict[str, Path]:
    """``openclaw.json``'s agents and workspaces; empty when there is no such file or it cannot
    be read (logged: the sidecar runs without it)."""
    path = resolve_config_path(None, env)
    try:
        config = read_config(path)
    except ConfigFileError as exc:
        logger.warning("%s; agents' workspaces come from the host only", exc)
        return {}
    return openclaw_workspaces(config.data, env)


class ConfiguredWorkspaces:
    """``configured_workspaces`` read again only when openclaw.json changed (its mtime, size)."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = dict(env)
        self._stamp = self._stat()

    def _stat(self) -> tuple[int, int] | None:
        try:
            st = resolve_config_path(None, self.env).stat()
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size)

    def first(self) -> dict[str, Path]:
        return configured_workspaces(self.env)

    def changed(self) -> dict[str, Path] | None:
        stamp = self._stat()
        if stamp == self._stamp:
            return None
        self._stamp = stamp
        return configured_workspaces(self.env)


def openclaw_workspaces(config: Mapping[str, Any], env: Mapping[str, str]) -> dict[str, Path]:
    """Each configured agent's workspace, as OpenClaw 2026.9 resolves it: its own
    ``workspace``, else for the default agent ``agents.defaults.workspace`` (or the state
    directory's ``workspace``), for the others ``<defaults.workspace>/<id>`` (or
    ``workspace-<id>`` in the state directory); a leading ``~`` is OpenClaw's home
    (``$OPENCLAW_HOME``, home.py)."""
    agents = config.get("agents")
    if not isinstance(agents, Mapping):
        return {}
    entries: dict[str, Mapping[str, Any]] = {}
    raw = agents.get("entries")
    items: list[Mapping[str, Any]]
    if "entries" in agents:  # it owns the roster, even when malformed (OpenClaw's rule)
        items = [{**v, "id": k} for k, v in raw.items() if isinstance(v, Mapping)] \
            if isinstance(raw, Mapping) else []
    elif isinstance(agents.get("list"), list):
        items = [v for v in agents["list"] if isinstance(v, Mapping)]
    else:
        items = []
    for item in items:
        try:
            raw_id = item.get("id")
            if not isinstance(raw_id, str):
                raise AgentIdError(f"{raw_id!r} is not a string")
            entries.setdefault(check_agent_id(raw_id), item)
        except AgentIdError:
            logger.warning("openclaw.json: agent id %r is not one Zettelclaw can use; skipped",
                           item.get("id"))
    if not entries:
        return {}
    default = next((i for i, e in entries.items() if e.get("default") is True),
                   MAIN if MAIN in entries else next(iter(entries)))
    defaults = agents.get("defaults")
    fallback = defaults.get("workspace") if isinstance(defaults, Mapping) else None
    fallback = fallback.strip() if isinstance(fallback, str) and fallback.strip() else None
    state = resolve_openclaw_state_dir(env)
    found: dict[str, Path] = {}
    for agent, entry in entries.items():
        own = entry.get("workspace")
        if isinstance(own, str) and own.strip():
            path = resolve_openclaw_path(own, env)
        elif agent == default:
            path = resolve_openclaw_path(fallback, env) if fallback else state / "workspace"
        else:
            path = resolve_openclaw_path(fallback, env) / agent if fallback else \
                state / f"workspace-{agent}"
        found[agent] = path.absolute()
    return found
