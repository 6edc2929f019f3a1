"""The zettelclaw plugin in openclaw.json before init runs OpenClaw: whether OpenClaw can find
it, and its settings (``plugins.entries.zettelclaw.config``) checked against the plugin's schema
(``plugin_config.problems``), a misspelt key with one close match moved to that key.

OpenClaw refuses to start a gateway, or to install a plugin, while a plugin's settings break its
schema, and ``openclaw doctor --fix`` then turns the plugin off: so anything else wrong (an
unknown key with no close match, a bad value) is refused, each key named, with nothing written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zettelclaw.openclaw.config_file import (
    ConfigFile,
    ConfigFileError,
    backup,
    read_config,
    write_config,
)
from zettelclaw.openclaw.init_config import (
    PLUGIN_ID,
    SETTINGS,
    Change,
    InitError,
    check_path,
    copy,
    lookup,
    read,
)
from zettelclaw.openclaw.plugin_config import plugin_settings, problems

# Set by the OpenClaw plugin in the environment of the commands it runs: the plugin is loaded.
PLUGIN_ENV = "ZETTELCLAW_OPENCLAW_PLUGIN"
SETTINGS_PATH = ("plugins", "entries", PLUGIN_ID, "config")


def plugin_known(data: Mapping[str, Any], env: Mapping[str, str]) -> bool:
    """Whether OpenClaw can find the plugin: the plugin itself runs us, the config has its entry
    (``openclaw plugins install`` writes one), or a load path holds its manifest."""
    if env.get(PLUGIN_ENV):
        return True
    if lookup(data, ("plugins", "entries", PLUGIN_ID))[0]:
        return True
    found, paths = lookup(data, ("plugins", "load", "paths"))
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


def plugin_repairs(config: ConfigFile) -> tuple[dict[str, Any], list[Change]]:
    """The config with the plugin's misspelt settings moved to the keys they were meant for, and
    those moves; InitError naming every other setting OpenClaw would refuse."""
    data = copy(config.data)
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
    config = read(config_path)
    for setting in SETTINGS:
        check_path(config.data, setting, config_path)
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
