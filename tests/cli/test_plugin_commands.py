"""`openclaw zettelclaw <command>` offers every `zettelclaw` command.

The plugin's list (clients/openclaw/src/cli_commands.ts) is generated from the CLI's parser
(zettelclaw/cli/plugin_commands.py); here it must be what the generator makes now, so a command
added to the CLI without regenerating it fails this test. The plugin's unit tests
(clients/openclaw/test/cli.test.ts) check that each listed command is registered and run.
"""

from __future__ import annotations

from pathlib import Path

from zettelclaw.cli import plugin_commands

REPO = Path(__file__).resolve().parents[2]


def test_the_plugins_command_list_is_generated_from_the_parser() -> None:
    written = (REPO / plugin_commands.TARGET).read_text()
    assert written == plugin_commands.render(), (
        "run: .venv/bin/python -m zettelclaw.cli.plugin_commands --write && scripts/build-plugin")


def test_every_command_the_help_points_to_is_there() -> None:
    names = plugin_commands.commands()
    for name in ("init", "status", "search", "get", "call", "jobs", "agents", "reindex",
                 "subjects", "briefing", "log"):
        assert name in names
    assert f"  jobs: {names['jobs']!r}".replace("'", '"') in (
        REPO / plugin_commands.TARGET).read_text()
