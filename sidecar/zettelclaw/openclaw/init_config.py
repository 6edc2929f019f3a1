"""What ``zettelclaw init`` sets in openclaw.json, each setting with why (docs/10-openclaw.md),
and the edits of the config's nested objects: a setting's path looked up and set, and refused
where it runs through something that is not an object or through an ``$include``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zettelclaw.openclaw.config_file import ConfigFile, ConfigFileError, read_config

PLUGIN_ID = "zettelclaw"


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


def lookup(data: Mapping[str, Any], path: Sequence[str]) -> tuple[bool, Any]:
    node: Any = data
    for part in path:
        if not isinstance(node, Mapping) or part not in node:
            return False, None
        node = node[part]
    return True, node


def check_path(data: Mapping[str, Any], setting: Setting, config_path: Path) -> None:
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


def set_path(data: dict[str, Any], path: Sequence[str], value: Any) -> None:
    node = data
    for part in path[:-1]:
        node = node.setdefault(part, {})
    node[path[-1]] = value


def copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy(v) for v in value]
    return value


def read(config_path: Path) -> ConfigFile:
    try:
        return read_config(config_path)
    except ConfigFileError as exc:
        raise InitError(f"{exc}; nothing was written") from exc
