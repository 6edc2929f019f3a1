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
from zettelclaw.openclaw.init import DREAMING_NOTE, InitError, Outcome, Plan, apply, plan

DESCRIPTION = (
    "Make Zettelclaw OpenClaw's memory: create the data directory; in openclaw.json give "
    "Zettelclaw the memory slot and conversation access for its hooks, and turn off memory-core "
    "(its tools and dreaming), the session-memory hook and the pre-compaction memory flush; add "
    "the briefing markers to MEMORY.md. Safe to run again: it changes only what is not set yet. "
    "The config is backed up before it is written (openclaw.json.zettelclaw-backup-<time>)."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="PATH",
                        help="OpenClaw's config (default $OPENCLAW_CONFIG_PATH, else "
                             "$OPENCLAW_STATE_DIR/openclaw.json, else ~/.openclaw/openclaw.json)")
    parser.add_argument("--dry-run", action="store_true",
                        help="print what would change and write nothing")
    parser.add_argument("--force", action="store_true",
                        help="write even when the zettelclaw plugin does not appear in the config "
                             "(OpenClaw then rejects the config until the plugin is installed)")
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")


def run(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    config_path = resolve_config_path(args.config, env)
    home = Home(resolve_home(getattr(args, "home", None), env))
    try:
        p = plan(config_path, home, getattr(args, "workspace", None), env, force=args.force)
        outcome = None if args.dry_run else apply(p)
    except InitError as exc:
        if args.json:
            print_json({"config": str(config_path), "error": str(exc)})
        print(f"zettelclaw init: {exc}", file=sys.stderr)
        return EXIT_USAGE if exc.usage else EXIT_UNAVAILABLE
    if args.json:
        print_json(_report(p, outcome))
    else:
        print(_text(p, outcome))
    for warning in p.warnings:
        print(f"zettelclaw init: warning: {warning}", file=sys.stderr)
    return EXIT_OK


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
    action = p.memory_md_action
    if action == "present":
        lines.append(f"MEMORY.md: briefing markers already in {p.memory_md}")
    elif action == "add":
        lines.append(f"MEMORY.md: {'would add' if dry else 'added'} the briefing markers to "
                     f"{p.memory_md}")
    elif action == "create":
        lines.append(f"MEMORY.md: {'would create' if dry else 'created'} {p.memory_md} with the "
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
