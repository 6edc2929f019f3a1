"""The ``zettelclaw`` command line: every command, its options and its help."""

from __future__ import annotations

import argparse
import textwrap
from typing import Any

from zettelclaw import __version__
from zettelclaw.cli.exits import EXIT_CODES


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--home", metavar="DIR", default=argparse.SUPPRESS,
                        help="data directory (log.jsonl, subjects.json, state.json)")
    common.add_argument("--socket", metavar="PATH", default=argparse.SUPPRESS,
                        help="the sidecar's Unix socket (default $ZETTELCLAW_SOCKET, else the "
                             "OpenClaw plugin's socketPath, else HOME/sidecar.sock)")
    common.add_argument("--workspace", metavar="DIR", default=argparse.SUPPRESS,
                        help="the agent workspace holding MEMORY.md and memory/*.md")
    common.add_argument("--agent", metavar="ID", default=argparse.SUPPRESS,
                        help="the agent whose memory to use (default main; `zettelclaw agents` "
                             "lists them)")
    common.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS,
                        help="more log output on stderr (-vv for debug)")
    common.add_argument("--no-sidecar", action="store_true", default=argparse.SUPPRESS,
                        help="work on the files directly even if a sidecar is running")
    return common


def _json_flag(parser: argparse.ArgumentParser, default: object = False) -> None:
    parser.add_argument("--json", action="store_true", default=default,
                        help="print JSON for scripts")


def _subcommand(group: Any, common: argparse.ArgumentParser, name: str, help_text: str,
                description: str | None) -> argparse.ArgumentParser:
    """A sub-command whose help wraps its description and ends with the exit codes."""
    parser: argparse.ArgumentParser = group.add_parser(
        name, parents=[common], help=help_text, epilog=EXIT_CODES,
        description=fill(description or help_text),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    return parser


def fill(text: str, width: int = 79) -> str:
    """A description wrapped to the width, its layout kept: runs of plain lines are one
    paragraph each; indented lines (examples, tables) and blank lines stay as they are."""
    out: list[str] = []
    run: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line and not line[0].isspace():
            run.append(line)
            continue
        if run:
            out.append(textwrap.fill(" ".join(run), width))
            run = []
        out.append(line)
    return "\n".join(out[:-1])


def build_parser() -> argparse.ArgumentParser:
    common = _common()
    parser = argparse.ArgumentParser(
        prog="zettelclaw", parents=[common],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Long-term memory for AI agents: an append-only log of tasks, facts, "
                    "decisions, questions and handoffs, served over JSON-RPC on a Unix socket.",
        epilog=EXIT_CODES)
    parser.add_argument("--version", action="version", version=f"zettelclaw {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, help_text: str, description: str | None = None
                ) -> argparse.ArgumentParser:
        return _subcommand(commands, common, name, help_text, description)

    serve = command("serve", "run the sidecar in the foreground",
                    "Run the sidecar: answer JSON-RPC on the Unix socket until SIGTERM/SIGINT. "
                    "Prints one line when it is ready.")
    serve.add_argument("--max-message-bytes", type=int, default=None, metavar="N",
                       help="largest JSON-RPC message accepted (default 32 MiB)")
    serve.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                       help="override a setting of HOME/config.json, e.g. "
                            "extraction.model=claude-sonnet-4-6 (repeatable; README lists them)")

    from zettelclaw.cli import init as init_command

    init = command("init", "make Zettelclaw OpenClaw's memory (openclaw.json, MEMORY.md)",
                   init_command.DESCRIPTION)
    init_command.add_arguments(init)

    log = command("log", "show the log's last entries, oldest first (like tail)",
                  "Show the last N entries of the log in log order, as `tail` would: an entry "
                  "appended late with an old timestamp is among them. Replaced entries "
                  "included. `search` without words sorts by timestamp instead.")
    log.add_argument("-n", type=int, default=20, metavar="N", help="how many (default 20)")
    _json_flag(log)

    _search_command(command)

    from zettelclaw.cli import lookup

    lookup.add_commands(command, _json_flag)

    subjects = command("subjects", "list, add or rename subjects",
                       "List the subjects with their entries (the default action), register "
                       "one, or rename one.")
    _json_flag(subjects)  # `zettelclaw subjects --json`: the list
    actions = subjects.add_subparsers(dest="action", metavar="ACTION")

    def action(name: str, help_text: str, description: str | None = None
               ) -> argparse.ArgumentParser:
        made = _subcommand(actions, common, name, help_text, description)
        # an action's own default would overwrite `subjects --json ACTION`'s flag
        _json_flag(made, default=argparse.SUPPRESS)
        return made

    action("list", "list subjects with counts (the default)")
    add = action("add", "register a subject")
    add.add_argument("slug", help="kebab-case slug, e.g. auth-migration")
    add.add_argument("--type", default="project", help="project, person, system, ... "
                     "(default project)")
    add.add_argument("--display", help="display name (default: the slug in Title Case)")
    rename = action(
        "rename", "rename a subject, or merge it into another",
        "Rename FROM to TO in the registry and in the subject field of log entries\n"
        "(never in free text). When TO exists, FROM is merged into it.")
    rename.add_argument("from_slug", metavar="FROM")
    rename.add_argument("to_slug", metavar="TO")

    jobs = command("jobs", "list extraction jobs that are pending, waiting or failed",
                   "List the extraction jobs in the spool (pending, waiting for the model, or "
                   "failed), or retry failed ones: `jobs retry` retries all failed jobs, "
                   "`jobs retry ID` one job.")
    jobs.add_argument("action", nargs="?", choices=["list", "retry"], default="list")
    jobs.add_argument("job_id", nargs="?", metavar="ID")
    _json_flag(jobs)

    reindex = command("reindex", "build the search index again from the log and memory files",
                      "Build the search index again from scratch: the log, the workspace's "
                      "memory files, and (kept, reused) embedding vectors. The index is derived "
                      "and rebuilds itself when needed; this is for when you want it now. "
                      "Shows a progress bar on a terminal.")
    _json_flag(reindex)

    briefing = command(
        "briefing", "rewrite the generated briefing block of the workspace's MEMORY.md",
        "Rewrite the block between <!-- BEGIN GENERATED BRIEFING --> and <!-- END GENERATED "
        "BRIEFING --> in the workspace's MEMORY.md from the log (added at the end when absent; "
        "everything else in the file is kept as it is), and print it. With an API key the "
        "model writes the Active summaries and flags contradictions. The sidecar also runs "
        "this by itself on cron.schedule.")
    briefing.add_argument("--dry-run", action="store_true",
                          help="print the block it would write; write nothing")
    _json_flag(briefing)

    status = command("status", "show the data directory, counts and the sidecar's state",
                     "Show one agent's memory in full (--agent, default main): its files, "
                     "counts, index, extraction and briefing; then every agent with its "
                     "entries.")
    _json_flag(status)

    agents = command("agents", "list the agents, each with its own memory",
                     "List the agents this data directory knows (from OpenClaw's config, the "
                     "gateway, or a first conversation), the memory each uses (its own, or the "
                     "one it shares: agents.share), whether it is open, its workspace and its "
                     "entries.")
    _json_flag(agents)

    command("mcp", "serve one agent's memory to an MCP client over stdio",
            "Run an MCP server on stdin/stdout with the tools memory_search and memory_get "
            "(OpenClaw's memory tools) for one agent's memory (--agent, default main), for an "
            "MCP client run by you (Claude Code, Cursor, Codex): it reads as the owner. Each "
            "call asks the running sidecar, or without one reads the files. Needs the extra: "
            "pip install 'zettelclaw[mcp]'.\n\n"
            "  claude mcp add zettelclaw -- zettelclaw mcp")
    return parser


def _search_command(command: Any) -> None:
    search: argparse.ArgumentParser = command(
        "search", "search the log by keywords and/or filters",
        "Search the log and the workspace's memory files. With words: keyword matches, best "
        "first (`zettelclaw search webhook retries`). Without: the log entries matching the "
        "filters, newest timestamp first. Replaced entries are hidden unless --all.")
    search.add_argument("query", nargs="*", metavar="WORD",
                        help="what to look for: one or more words, no quotes needed")
    search.add_argument("--type", choices=["task", "fact", "decision", "question", "handoff"])
    search.add_argument("--subject", metavar="SLUG")
    search.add_argument("--status", choices=["open", "done"], help="tasks with this status")
    search.add_argument("--session", metavar="ID", help="entries from this session")
    search.add_argument("--since", metavar="DATE", help="ISO date or date-time (UTC if no zone)")
    search.add_argument("--until", metavar="DATE", help="ISO date (whole day) or date-time")
    search.add_argument("--all", action="store_true", help="include replaced entries")
    search.add_argument("-n", type=int, default=10, metavar="N", help="at most N (default 10)")
    _json_flag(search)
