"""The ``zettelclaw init`` command: options, and what it prints (the work is in
``zettelclaw.openclaw.init``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import Any

from zettelclaw.cli.exits import EXIT_OK, EXIT_UNAVAILABLE, EXIT_USAGE, print_json
from zettelclaw.home import Home, resolve_home
from zettelclaw.openclaw.config_file import resolve_config_path
from zettelclaw.openclaw.init import (
    DREAMING_NOTE,
    InitError,
    Outcome,
    Plan,
    apply,
    plan,
    repair,
)
from zettelclaw.openclaw.plugin_install import PluginInstallError, PluginReport, ensure_plugin

DESCRIPTION = (
    "Make Zettelclaw OpenClaw's memory: install the OpenClaw plugin that ships with this "
    "package into OpenClaw (`openclaw plugins install`, when `openclaw` is on PATH and that "
    "version is not installed yet); create the data directory; in openclaw.json give "
    "Zettelclaw the memory slot and conversation access for its hooks, and turn off memory-core "
    "(its tools and dreaming), the session-memory hook and the pre-compaction memory flush; add "
    "the briefing markers to MEMORY.md. Safe to run again: it changes only what is not set yet. "
    "The config is backed up before it is written (openclaw.json.zettelclaw-backup-<time>)."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="PATH",
                        help="OpenClaw's config (default $OPENCLAW_CONFIG_PATH, else "
                             "$OPENCLAW_STATE_DIR/openclaw.json, else $OPENCLAW_HOME/.openclaw/"
                             "openclaw.json, else ~/.openclaw/openclaw.json)")
    parser.add_argument("--dry-run", action="store_true",
                        help="print what would change and write nothing")
    parser.add_argument("--force", action="store_true",
                        help="write even when the zettelclaw plugin does not appear in the config "
                             "(OpenClaw then rejects the config until the plugin is installed)")
    parser.add_argument("--no-plugin", action="store_true",
                        help="do not install the plugin into OpenClaw; only edit the files")
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")


def run(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    config_path = resolve_config_path(args.config, env)
    home = Home(resolve_home(getattr(args, "home", None), env))
    plugin: PluginReport | None = None
    try:
        # first, as OpenClaw's own commands refuse a config the plugin's schema refuses
        fixed = repair(config_path, args.dry_run)
        if not args.no_plugin:
            plugin = ensure_plugin(env, dry_run=args.dry_run)
        # a dry run that would install the plugin plans the config as it will be then
        would_install = plugin is not None and plugin.action == "dry-run"
        p = plan(config_path, home, getattr(args, "workspace", None), env,
                 force=args.force or would_install)
        outcome = None if args.dry_run else apply(p)
        if outcome is not None and fixed.changes:  # written before the plugin was installed
            p.changes[:0] = fixed.changes
            outcome = Outcome(fixed.backup, True)
    except (InitError, PluginInstallError) as exc:
        if plugin is not None and plugin.action == "skipped":
            print(f"zettelclaw init: the plugin was not installed: {plugin.reason}",
                  file=sys.stderr)
        if args.json:
            print_json({"config": str(config_path), "error": str(exc),
                        "plugin": plugin.to_json() if plugin else None})
        print(f"zettelclaw init: {exc}", file=sys.stderr)
        usage = isinstance(exc, InitError) and exc.usage
        return EXIT_USAGE if usage else EXIT_UNAVAILABLE
    if args.json:
        print_json({**_report(p, outcome), "plugin": plugin.to_json() if plugin else None})
    else:
        print("\n".join([*_plugin_text(plugin), _text(p, outcome)]))
    if plugin is not None and plugin.action == "skipped":
        print(f"zettelclaw init: warning: the plugin was not installed: {plugin.reason}",
              file=sys.stderr)
    for warning in p.warnings:
        print(f"zettelclaw init: warning: {warning}", file=sys.stderr)
    return EXIT_OK


def _plugin_text(plugin: PluginReport | None) -> list[str]:
    if plugin is None:
        return ["OpenClaw plugin: not installed (--no-plugin)"]
    line = {
        "installed": f"OpenClaw plugin: installed zettelclaw {plugin.version} into "
                     f"{plugin.installed_at}",
        "updated": f"OpenClaw plugin: updated to zettelclaw {plugin.version} in "
                   f"{plugin.installed_at} (was {plugin.reason})",
        "present": f"OpenClaw plugin: zettelclaw {plugin.version} already installed in "
                   f"{plugin.installed_at}",
        "dry-run": f"OpenClaw plugin: would install zettelclaw {plugin.version} from "
                   f"{plugin.source}",
        "skipped": "OpenClaw plugin: not installed (see the warning below)",
    }[plugin.action]
    return [line]


def _report(p: Plan, outcome: Outcome | None) -> dict[str, Any]:
    return {
        "config": str(p.config_path),
        "dryRun": outcome is None,
        "changes": [c.to_json() for c in p.changes],
        "unchanged": p.unchanged,
        "backup": str(outcome.backup) if outcome and outcome.backup else None,
        "written": bool(outcome and outcome.written),
        "dataDir": {"path": str(p.data_dir), "created": not p.data_dir_exists},
        "memoryMd": {"path": str(p.memory_md), "action": p.memory_md_action},
        "agents": [{"agentId": agent, "memoryMd": str(path), "action": action}
                   for agent, path, action in p.agents],
        "nothingToDo": p.nothing_to_do,
        "warnings": p.warnings,
        "note": DREAMING_NOTE,
    }


def _text(p: Plan, outcome: Outcome | None) -> str:
    dry = outcome is None
    lines = [f"OpenClaw config: {p.config_path}" + ("" if p.config.exists else " (new file)")]
    for c in p.changes:
        was = json.dumps(c.was) if c.was_set else "unset"
        verb = "would set" if dry else "set"
        lines.append(f"  {verb} {c.path} = {json.dumps(c.value)} (was {was}): {c.why}")
    lines.extend(f"  already {path}" for path in p.unchanged)
    if not p.data_dir_exists:
        lines.append(f"data directory: {'would create' if dry else 'created'} {p.data_dir}")
    for label, path, action in [("MEMORY.md", p.memory_md, p.memory_md_action),
                                *((f"MEMORY.md of agent {a}", m, act) for a, m, act in p.agents)]:
        if action == "present":
            lines.append(f"{label}: briefing markers already in {path}")
        elif action == "add":
            lines.append(f"{label}: {'would add' if dry else 'added'} the briefing markers to "
                         f"{path}")
        elif action == "create":
            lines.append(f"{label}: {'would create' if dry else 'created'} {path} with the "
                         "briefing markers")
    if outcome and outcome.backup:
        lines.append(f"backup of the previous config: {outcome.backup}")
    if p.nothing_to_do:
        lines.append("nothing to change: Zettelclaw is already OpenClaw's memory")
    elif dry:
        lines.append("dry run: nothing was written")
    elif p.changes:
        lines.append("The gateway reloads its plugins on this change (or restart it: "
                     "openclaw gateway restart).")
    lines.append(f"Note: {DREAMING_NOTE}.")
    return "\n".join(lines)
