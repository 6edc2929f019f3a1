"""``zettelclaw init``: make Zettelclaw OpenClaw's memory (docs/10-openclaw.md; OpenClaw 2026.9.6).

What it does, each step only when needed (a second run changes nothing and says so):

1. creates the data directory (``HOME``, mode 0700, with an empty log);
2. in ``openclaw.json`` (see ``config_file`` for the format): gives Zettelclaw the memory slot
   and lets it see conversations (OpenClaw blocks ``before_prompt_build`` for plugins without
   ``hooks.allowConversationAccess``); disables memory-core (its ``memory_search``/``memory_get``
   would clash with ours, and its nightly "dreaming" rewrites MEMORY.md), the ``session-memory``
   hook and the pre-compaction memory flush (Zettelclaw extracts whole transcripts); and, when
   the user has not set them, says in ``memory.search`` what OpenClaw's own memory search does
   while Zettelclaw holds the slot: no embedding provider (``provider: "none"``; the sidecar
   embeds) and no transcript recall of its own (``rememberAcrossConversations: false``;
   Zettelclaw carries memory across conversations). Unset, ``openclaw doctor`` reads them as
   memory-core's defaults ("openai", on) and advises an OpenAI key and a command of memory-core's
   (docs/12-openclaw-surfaces.md);
3. adds the briefing markers to the workspace's MEMORY.md (creating it when missing).

memory-core's "Memory Dreaming Promotion" cron job survives memory-core being disabled. Cron
jobs live in the gateway's SQLite state database and only the gateway may change them (the
``openclaw cron`` commands go through it), so init does not touch that database: the plugin
removes the job when the gateway loads it with this config (at start, or at the plugin reload a
config change causes), and logs that it did.

The config is backed up before it is written; ``--dry-run`` prints the changes and writes
nothing; a config that cannot be parsed, or whose edited sections come from ``$include`` files,
is refused with nothing written.

The settings it writes, and why: ``init_config.SETTINGS``. The plugin's own settings
(``plugins.entries.zettelclaw.config``) are checked against the plugin's schema first, before
OpenClaw is run (``plugin_repair``): a misspelt key with one close match (``timeoutMS``) is moved
to that key (``repair``, written before the plugin is installed); anything else OpenClaw would
refuse is refused, with nothing written. A plugin that is turned off (``enabled: false``) is
turned on again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zettelclaw.agent_ids import MAIN
from zettelclaw.errors import MarkersError, ZettelclawError
from zettelclaw.home import Home, resolve_workspace
from zettelclaw.openclaw.agents import openclaw_workspaces
from zettelclaw.openclaw.config_file import ConfigFile, ConfigFileError, backup, write_config
from zettelclaw.openclaw.init_config import (
    DREAMING_NOTE,
    PLUGIN_ID,
    SETTINGS,
    Change,
    InitError,
    check_path,
    lookup,
    read,
    set_path,
)
from zettelclaw.openclaw.plugin_repair import plugin_known, plugin_repairs, repair
from zettelclaw.workspace import claims as workspace_claims
from zettelclaw.workspace import memory_md
from zettelclaw.workspace.markers import layout, splice

# the command's surface, for its front end (cli/init.py) and its tests, named with plan and
# apply though defined beside them
__all__ = ["DREAMING_NOTE", "SETTINGS", "InitError", "Outcome", "Plan", "apply", "plan",
           "repair", "workspace_for"]

ENABLED = ".".join(("plugins", "entries", PLUGIN_ID, "enabled"))


@dataclass
class Plan:
    config_path: Path
    config: ConfigFile
    new_config: dict[str, Any]
    changes: list[Change]
    unchanged: list[str]
    data_dir: Path
    data_dir_exists: bool
    memory_md: Path
    memory_md_action: str  # "present" | "add" | "create" | "skip: <why>"
    warnings: list[str] = field(default_factory=list)
    # the other agents openclaw.json lists: (agent id, their MEMORY.md, the action), each with
    # its own workspace and its own memory
    agents: list[tuple[str, Path, str]] = field(default_factory=list)

    def markers_to_write(self) -> list[Path]:
        return [path for path, action in [(self.memory_md, self.memory_md_action),
                                          *((p, a) for _, p, a in self.agents)]
                if action in ("add", "create")]

    @property
    def nothing_to_do(self) -> bool:
        return not self.changes and self.data_dir_exists and not self.markers_to_write()


def workspace_for(explicit: str | None, config: Mapping[str, Any], env: Mapping[str, str]
                  ) -> Path:
    """``--workspace``, ``$ZETTELCLAW_WORKSPACE``, OpenClaw's ``agents.defaults.workspace``, else
    the default (``workspace`` in OpenClaw's state directory: home.py)."""
    if explicit or env.get("ZETTELCLAW_WORKSPACE"):
        return resolve_workspace(explicit, env)
    configured = openclaw_workspaces(config, env)
    if MAIN in configured:
        return configured[MAIN]
    found, value = lookup(config, ("agents", "defaults", "workspace"))
    if found and isinstance(value, str) and value.strip():
        return Path(value).expanduser().absolute()
    return resolve_workspace(None, env)


def _memory_md(workspace: Path) -> tuple[Path, str]:
    """Where the briefing's markers go and what init does there, read as the briefing reads
    MEMORY.md (briefing.memory_md and briefing.markers), so the two never disagree."""
    if not workspace.is_dir():
        return workspace / memory_md.NAMES[0], "create"
    try:
        found = memory_md.target(workspace)
        current = memory_md.read(found)
        if not current.exists:
            return found.path, "create"
        return found.path, ("present" if layout(current.text).found else "add")
    except MarkersError as exc:
        return found.path, f"skip: {exc.data['problem']}; fix it by hand"
    except ZettelclawError as exc:  # a link out of the workspace, not a file, too large
        return workspace / memory_md.NAMES[0], f"skip: {exc.message}"


def plan(config_path: Path, home: Home, workspace: str | None, env: Mapping[str, str],
         force: bool = False) -> Plan:
    config = read(config_path)
    for setting in SETTINGS:
        check_path(config.data, setting, config_path)
    if not force and not plugin_known(config.data, env):
        raise InitError(
            f"{config_path}: OpenClaw does not know the zettelclaw plugin yet (no "
            "plugins.entries.zettelclaw, no plugins.load.paths entry holding it), and it refuses "
            "a memory slot naming an unknown plugin. `zettelclaw init` installs the plugin "
            "when `openclaw` is on PATH (put it there and run this command again); "
            "--force writes the config anyway")
    new, changes = plugin_repairs(config)  # a dry run's: else `repair` has written them
    unchanged: list[str] = []
    for setting in SETTINGS:
        found, current = lookup(config.data, setting.path)
        same = current == setting.value and type(current) is type(setting.value)
        if found and (setting.if_unset or same):
            unchanged.append(setting.dotted)
            continue
        set_path(new, setting.path, setting.value)
        why = setting.why
        if setting.dotted == ENABLED and found and current is False:
            why = ("the plugin is turned on again (`openclaw doctor --fix` turns off a plugin "
                   "whose settings OpenClaw refused)")
        changes.append(Change(setting.dotted, setting.value, current, found, why))
    ws = workspace_for(workspace, config.data, env)
    memory_md, action = _memory_md(ws)
    warnings = []
    if changes and config.json5_syntax:
        warnings.append(f"{config_path} uses JSON5 syntax: it is rewritten as plain JSON, as "
                        "OpenClaw's own config writes do, so its comments are dropped (the "
                        "backup keeps them)")
    agents = []
    configured = openclaw_workspaces(config.data, env)
    claims = [workspace_claims.claim(a, a, w, True) for a, w in {**configured, MAIN: ws}.items()]
    warnings.extend(workspace_claims.describe(c) for c in workspace_claims.conflicts(claims))
    for agent, agent_ws in sorted(configured.items()):
        if agent != MAIN and agent_ws != ws:
            agents.append((agent, *_memory_md(agent_ws)))
    for path, why in [(memory_md, action), *((p, a) for _, p, a in agents)]:
        if why.startswith("skip"):
            warnings.append(f"{path}: briefing markers not added: {why.removeprefix('skip: ')}")
    return Plan(config_path, config, new, changes, unchanged, home.root, home.exists(),
                memory_md, action, warnings, agents)


@dataclass(frozen=True)
class Outcome:
    backup: Path | None
    written: bool


def apply(p: Plan) -> Outcome:
    """Carry the plan out: data directory, then the config (backed up first), then MEMORY.md."""
    Home(p.data_dir).ensure()
    backup_path = None
    if p.changes:
        try:
            if p.config.exists:
                backup_path = backup(p.config_path)
            write_config(p.config_path, p.new_config)
        except ConfigFileError as exc:
            raise InitError(f"{exc}; nothing was written") from exc
        except OSError as exc:
            raise InitError(f"cannot write {p.config_path}: {exc.strerror or exc}",
                            usage=False) from exc
    for path in p.markers_to_write():
        _add_markers(path.parent)
    return Outcome(backup_path, bool(p.changes))


def _add_markers(workspace: Path) -> None:
    try:
        workspace.mkdir(parents=True, exist_ok=True)
        found = memory_md.target(workspace)
        current = memory_md.read(found)
        memory_md.write(found, splice(current.text, []), current.mode)
    except OSError as exc:
        raise InitError(f"cannot write {workspace / memory_md.NAMES[0]}: "
                        f"{exc.strerror or exc}", usage=False) from exc
    except ZettelclawError as exc:  # changed since the plan was made
        raise InitError(exc.message, usage=False) from exc
