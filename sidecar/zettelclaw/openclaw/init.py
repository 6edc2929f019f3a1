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

The plugin's own settings (``plugins.entries.zettelclaw.config``) are checked against the
plugin's schema first (``plugin_config.problems``), before OpenClaw is run: OpenClaw refuses to
start a gateway, or to install a plugin, while a plugin's settings break its schema, and
``openclaw doctor --fix`` then turns the plugin off. A misspelt key with one close match
(``timeoutMS``) is moved to that key (``repair``, written before the plugin is installed);
anything else (an unknown key with no close match, a bad value) is refused, each key named, with
nothing written. A plugin that is turned off (``enabled: false``) is turned on again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zettelclaw.agent_ids import MAIN
from zettelclaw.errors import MarkersError, ZettelclawError
from zettelclaw.home import Home, resolve_workspace
from zettelclaw.openclaw.agents import openclaw_workspaces
from zettelclaw.openclaw.config_file import (
    ConfigFile,
    ConfigFileError,
    backup,
    read_config,
    write_config,
)
from zettelclaw.openclaw.plugin_config import plugin_settings, problems
from zettelclaw.workspace import claims as workspace_claims
from zettelclaw.workspace import memory_md
from zettelclaw.workspace.markers import layout, splice

PLUGIN_ID = "zettelclaw"
# Set by the OpenClaw plugin in the environment of the commands it runs: the plugin is loaded.
PLUGIN_ENV = "ZETTELCLAW_OPENCLAW_PLUGIN"


@dataclass(frozen=True)
class Setting:
    path: tuple[str, ...]
    value: Any
    why: str
    if_unset: bool = False  # a value the user set is theirs: kept, whatever it is

    @property
    def dotted(self) -> str:
        return ".".join(self.path)


SETTINGS: tuple[Setting, ...] = (
    Setting(("plugins", "slots", "memory"), PLUGIN_ID,
            "Zettelclaw is the memory plugin"),
    Setting(("plugins", "entries", PLUGIN_ID, "enabled"), True,
            "the plugin is enabled"),
    Setting(("plugins", "entries", PLUGIN_ID, "hooks", "allowConversationAccess"), True,
            "OpenClaw runs its before_prompt_build hook (the handoff before each turn)"),
    Setting(("plugins", "entries", "memory-core", "enabled"), False,
            "memory-core is off: its memory tools and its nightly dreaming"),
    Setting(("plugins", "entries", PLUGIN_ID, "config", "dreaming", "enabled"), False,
            "the Control UI's memory tab shows no dreaming (OpenClaw reads the memory plugin's "
            "`dreaming` setting, memory-core's defaults when unset: on, at 3 a.m.)"),
    Setting(("hooks", "internal", "entries", "session-memory", "enabled"), False,
            "the session-memory hook is off: Zettelclaw extracts every session"),
    Setting(("agents", "defaults", "compaction", "memoryFlush", "enabled"), False,
            "no memory flush before compaction: Zettelclaw reads whole transcripts"),
    Setting(("memory", "search", "provider"), "none",
            "OpenClaw's own memory search embeds nothing (the sidecar does): `openclaw doctor` "
            "stops asking for an OpenAI key", if_unset=True),
    Setting(("memory", "search", "rememberAcrossConversations"), False,
            "OpenClaw's own transcript recall is off (Zettelclaw carries memory across "
            "conversations): `openclaw doctor` stops saying the provider cannot do it",
            if_unset=True),
)

DREAMING_NOTE = (
    "memory-core's \"Memory Dreaming Promotion\" cron job (if memory-core ever ran) is removed "
    "by the Zettelclaw plugin when the gateway loads this config"
)


class InitError(Exception):
    """init cannot go on; nothing was written. ``usage`` tells a bad input from a failed write."""

    def __init__(self, message: str, usage: bool = True) -> None:
        super().__init__(message)
        self.usage = usage


@dataclass
class Change:
    path: str
    value: Any
    was: Any = None
    was_set: bool = False
    why: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "value": self.value, "was": self.was, "wasSet": self.was_set,
                "why": self.why}


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


def _lookup(data: Mapping[str, Any], path: Sequence[str]) -> tuple[bool, Any]:
    node: Any = data
    for part in path:
        if not isinstance(node, Mapping) or part not in node:
            return False, None
        node = node[part]
    return True, node


def _check_path(data: Mapping[str, Any], setting: Setting, config_path: Path) -> None:
    """Refuse to edit through a non-object or a section that ``$include`` supplies."""
    node: Any = data
    walked: list[str] = []
    for part in setting.path[:-1]:
        if "$include" in node:
            where = ".".join(walked) or "the top level"
            raise InitError(
                f"{config_path}: {where} uses $include, so init cannot tell or change what "
                f"{setting.dotted} is; nothing was written. Set these yourself:\n"
                + "\n".join(_config_set_commands()))
        walked.append(part)
        child = node.get(part)
        if child is None:
            return
        if not isinstance(child, Mapping):
            raise InitError(f"{config_path}: {'.'.join(walked)} is a {type(child).__name__}, "
                            f"not an object, so {setting.dotted} cannot be set; nothing was "
                            "written")
        node = child
    if "$include" in node:
        raise InitError(f"{config_path}: {'.'.join(walked)} uses $include; nothing was written. "
                        "Set these yourself:\n" + "\n".join(_config_set_commands()))


def _config_set_commands() -> list[str]:
    return [f"  openclaw config set {s.dotted} {_json(s.value)} --strict-json" for s in SETTINGS]


def _json(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"'\"{value}\"'" if isinstance(value, str) else str(value)


def _set(data: dict[str, Any], path: Sequence[str], value: Any) -> None:
    node = data
    for part in path[:-1]:
        node = node.setdefault(part, {})
    node[path[-1]] = value


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def plugin_known(data: Mapping[str, Any], env: Mapping[str, str]) -> bool:
    """Whether OpenClaw can find the plugin: the plugin itself runs us, the config has its entry
    (``openclaw plugins install`` writes one), or a load path holds its manifest."""
    if env.get(PLUGIN_ENV):
        return True
    if _lookup(data, ("plugins", "entries", PLUGIN_ID))[0]:
        return True
    found, paths = _lookup(data, ("plugins", "load", "paths"))
    if not found or not isinstance(paths, list):
        return False
    for entry in paths:
        if isinstance(entry, str) and _manifest_id(Path(entry).expanduser()) == PLUGIN_ID:
            return True
    return False


def _manifest_id(directory: Path) -> str | None:
    manifest = directory / "openclaw.plugin.json"
    try:
        parsed = read_config(manifest)
    except ConfigFileError:
        return None
    value = parsed.data.get("id")
    return value if isinstance(value, str) else None


def workspace_for(explicit: str | None, config: Mapping[str, Any], env: Mapping[str, str]
                  ) -> Path:
    """``--workspace``, ``$ZETTELCLAW_WORKSPACE``, OpenClaw's ``agents.defaults.workspace``, else
    the default (``workspace`` in OpenClaw's state directory: home.py)."""
    if explicit or env.get("ZETTELCLAW_WORKSPACE"):
        return resolve_workspace(explicit, env)
    configured = openclaw_workspaces(config, env)
    if MAIN in configured:
        return configured[MAIN]
    found, value = _lookup(config, ("agents", "defaults", "workspace"))
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


SETTINGS_PATH = ("plugins", "entries", PLUGIN_ID, "config")
ENABLED = ".".join(("plugins", "entries", PLUGIN_ID, "enabled"))


def _read(config_path: Path) -> ConfigFile:
    try:
        return read_config(config_path)
    except ConfigFileError as exc:
        raise InitError(f"{exc}; nothing was written") from exc


def plugin_repairs(config: ConfigFile) -> tuple[dict[str, Any], list[Change]]:
    """The config with the plugin's misspelt settings moved to the keys they were meant for, and
    those moves; InitError naming every other setting OpenClaw would refuse."""
    data = _copy(config.data)
    settings = plugin_settings(data)
    found = problems(settings)
    if not found:
        return data, []
    moves: list[Change] = []
    for problem in found:
        if problem.fix is not None and isinstance(settings, dict):
            value = settings.pop(problem.key)
            settings[problem.fix] = value
            prefix = ".".join(SETTINGS_PATH)
            moves.append(Change(f"{prefix}.{problem.fix}", value, None, False,
                                f"moved from {problem.key}: {problem.message}"))
    left = problems(settings)
    if left:
        lines = "\n".join(f"  {p}" for p in left)
        hint = "\n".join(f"  openclaw config unset {'.'.join(SETTINGS_PATH)}.{p.key}"
                         for p in left if p.key and p.message.startswith("unknown key"))
        raise InitError(
            f"{config.path}: OpenClaw refuses these settings of the zettelclaw plugin (the "
            "gateway would not start, and `openclaw doctor --fix` would turn the plugin off); "
            f"nothing was written:\n{lines}"
            + (f"\nremove the unknown ones:\n{hint}" if hint else ""))
    return data, moves


@dataclass(frozen=True)
class Repair:
    changes: list[Change]
    backup: Path | None


def repair(config_path: Path, dry_run: bool) -> Repair:
    """Check the plugin's settings before OpenClaw is run (it refuses a config they break) and,
    unless a dry run, write the moves ``plugin_repairs`` found (backed up first)."""
    config = _read(config_path)
    for setting in SETTINGS:
        _check_path(config.data, setting, config_path)
    data, moves = plugin_repairs(config)
    if not moves or dry_run:
        return Repair(moves, None)
    try:
        saved = backup(config_path)
        write_config(config_path, data)
    except ConfigFileError as exc:
        raise InitError(f"{exc}; nothing was written") from exc
    except OSError as exc:
        raise InitError(f"cannot write {config_path}: {exc.strerror or exc}",
                        usage=False) from exc
    return Repair(moves, saved)


def plan(config_path: Path, home: Home, workspace: str | None, env: Mapping[str, str],
         force: bool = False) -> Plan:
    config = _read(config_path)
    for setting in SETTINGS:
        _check_path(config.data, setting, config_path)
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
        found, current = _lookup(config.data, setting.path)
        same = current == setting.value and type(current) is type(setting.value)
        if found and (setting.if_unset or same):
            unchanged.append(setting.dotted)
            continue
        _set(new, setting.path, setting.value)
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
