"""The ``zettelclaw`` command line: every command, its options and its help."""

from __future__ import annotations

import argparse
import textwrap
from typing import Any

from zettelclaw import __version__
from zettelclaw.cli import team as team_command
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

    # in the order `zettelclaw --help` lists them
    _process_commands(command)
    _read_commands(command)
    _subjects_command(command, common)
    _write_commands(command)
    _import_command(command)
    _upkeep_commands(command)
    _vault_command(command)
    _sync_command(command)
    _overview_commands(command)
    team_command.add_parser(command)
    return parser


def _process_commands(command: Any) -> None:
    """``serve`` and ``init``: the sidecar, and OpenClaw's files."""
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


def _read_commands(command: Any) -> None:
    """``log``, ``search``, ``get``, ``call``."""
    log = command("log", "show the log's last entries, oldest first (like tail)",
                  "Show the last N entries of the log in log order, as `tail` would: an entry "
                  "appended late with an old timestamp is among them. Replaced entries "
                  "included. `search` without words sorts by timestamp instead.")
    log.add_argument("-n", type=int, default=20, metavar="N", help="how many (default 20)")
    _json_flag(log)

    _search_command(command)

    from zettelclaw.cli import lookup

    lookup.add_commands(command, _json_flag)


def _subjects_command(command: Any, common: argparse.ArgumentParser) -> None:
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


def _upkeep_commands(command: Any) -> None:
    """``jobs``, ``reindex``, ``briefing``: what the sidecar does by itself, done now."""
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


def _overview_commands(command: Any) -> None:
    """``status``, ``agents``, and ``mcp`` (one agent's memory to an MCP client)."""
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


def _vault_command(command: Any) -> None:
    """The Markdown view: vault build, vault sync."""
    vault = command(
        "vault", "render the memory as an Obsidian vault, and take edits back",
        "`vault build` renders the log into Markdown: a journal per day (03 Journal/), a page "
        "per subject (01 Notes/), Subjects.md; by default in the memory's directory (HOME/vault "
        "for main), never in the workspace. A rebuild only adds what is new at the end of its "
        "section: lines you edited or deleted stay as you left them. `vault sync` turns your "
        "edits of rendered lines into corrections in the log (a ticked task: done; changed "
        "text: the entry with your text; a line struck through: the entry hidden, as by "
        "`forget`) and prints a receipt for each.")
    vault.add_argument("action", choices=["build", "sync"])
    vault.add_argument("--path", metavar="DIR", help="the vault's folder (default: vault/ in "
                       "the memory's directory)")
    vault.add_argument("--from-scratch", action="store_true",
                       help="build: delete the pages the build wrote and render them anew "
                            "(refused when the folder holds pages you wrote, unless --force)")
    vault.add_argument("--force", action="store_true",
                       help="with --from-scratch: move a folder holding your pages aside first")
    _json_flag(vault)


def _sync_command(command: Any) -> None:
    """One memory across a person's machines, through a git remote."""
    sync = command(
        "sync", "share this memory with your other machines through a git remote",
        "`sync init REMOTE` sets up sync of this agent's memory (--agent, default main) with "
        "any git remote: a bare repository's path, ssh://host/path, git@host:repo.git; "
        "--new-key encrypts what the remote holds (age), --key-file FILE gives a new machine "
        "the key the others use. `sync` pushes this machine's new entries and pulls the "
        "others' (the sidecar also does it by itself: sync.intervalSeconds). `sync status` "
        "shows the last sync, what waits to be pushed, and purges a machine has not "
        "confirmed. See docs/14-sync.md.")
    sync.add_argument("action", nargs="?", choices=["init", "status", "run"],
                      help="init, status, or run (the default: one sync)")
    sync.add_argument("remote", nargs="?", metavar="REMOTE", help="init: the git remote")
    sync.add_argument("--new-key", action="store_true",
                      help="init: encrypt the remote's copy with a new key (the first machine)")
    sync.add_argument("--key-file", metavar="FILE",
                      help="init: the key file copied from a machine that syncs this memory")
    _json_flag(sync)


def _write_commands(command: Any) -> None:
    """The owner's own writes: forget, remember."""
    forget = command(
        "forget", "hide entries from recall, or purge them from the disk",
        "Forget entries by id, session, subject or text (all given must match; every version "
        "of a chosen entry goes with it). By default they are hidden: a record appended to "
        "the log takes them out of search, get, the handoff and the briefing, and `forget "
        "--undo ID` gives them back. With --purge they leave the disk: the log is rewritten "
        "without them, the conversation copies they came from lose their text, and the "
        "indexes and MEMORY.md block are rebuilt. --dry-run lists exactly what would go.")
    forget.add_argument("ids", nargs="*", metavar="ID", help="entry ids")
    forget.add_argument("--session", metavar="ID", help="the entries of this session")
    forget.add_argument("--subject", metavar="SLUG", help="the entries of this subject")
    forget.add_argument("--text", metavar="TEXT",
                        help="entries whose content or detail contains TEXT (any case)")
    forget.add_argument("--purge", action="store_true",
                        help="remove from the disk, not only hide (cannot be undone)")
    forget.add_argument("--undo", action="store_true", help="give hidden entries IDs back")
    forget.add_argument("--dry-run", action="store_true",
                        help="list what would be forgotten; change nothing")
    forget.add_argument("--edit-files", action="store_true",
                        help="also delete the lines of your memory files (MEMORY.md, "
                        "memory/*.md) that hold the text (named in the answer either way)")
    _json_flag(forget)

    remember = command(
        "remember", "write one entry to the log now",
        "Write one entry now, as you say it: validated and scrubbed of secrets like an "
        "extracted one, appended at once. Prints its id (the receipt).")
    remember.add_argument("type", choices=["task", "fact", "decision", "question", "handoff"])
    remember.add_argument("content", nargs="+", metavar="WORD", help="what to remember")
    remember.add_argument("--subject", metavar="SLUG")
    remember.add_argument("--detail", metavar="TEXT")
    remember.add_argument("--status", choices=["open", "done"], help="a task's (default open)")
    remember.add_argument("--replaces", metavar="ID", help="the entry this one corrects")
    remember.add_argument("--session", metavar="ID",
                          help="the conversation it belongs to (default manual)")
    _json_flag(remember)

    receipts = command("receipts", "list what each conversation wrote to memory, with ids",
                       "List, newest first, the entries each conversation wrote (extracted, or "
                       "written by remember), with their ids, whether each is still in recall, "
                       "and whether the owner was told.")
    receipts.add_argument("-n", type=int, default=20, metavar="N",
                          help="at most N conversations (default 20)")
    _json_flag(receipts)
    trace = command("trace", "show what the last agent turns were given before the prompt",
                    "Show what hook.beforePromptBuild injected in the last turns (the handoff, "
                    "a write receipt line): ids, sizes and why. Turns that got nothing are not "
                    "recorded.")
    trace.add_argument("-n", type=int, default=10, metavar="N",
                       help="at most N turns (default 10)")
    _json_flag(trace)


def _import_command(command: Any) -> None:
    imp: argparse.ArgumentParser = command(
        "import", "bring in past history: OpenClaw sessions, memory-core files, exports",
        "Import a user's history into this memory (docs/13-import.md). SOURCE is PATH (its kind "
        "told by what it holds) or KIND PATH, KIND one of openclaw (past OpenClaw sessions; "
        "PATH defaults to OpenClaw's state directory), memory-core (MEMORY.md and memory/*.md; "
        "PATH defaults to the workspace), chatgpt, claude, clawvault.\n"
        "\n"
        "Without --apply it only plans: what would be imported and what it would cost in model "
        "tokens (and dollars where the price is known); nothing is written. --apply imports: "
        "notes become entries at once, conversations are spooled for extraction as live ones "
        "are (`zettelclaw jobs` shows them). Importing the same source again adds nothing; an "
        "import cut short goes on where it stopped when applied again.\n"
        "\n"
        "  zettelclaw import ~/.openclaw/workspace           # plan a memory-core import\n"
        "  zettelclaw import openclaw --since 2026-01-01 --apply   # $OPENCLAW_STATE_DIR, "
        "$OPENCLAW_HOME/.openclaw or ~/.openclaw\n"
        "  zettelclaw import chatgpt ~/Downloads/export.zip --budget 3000000 --apply\n"
        "  zettelclaw import --list\n"
        "  zettelclaw import --rollback 20261126T091500-chatgpt-3f9a")
    imp.add_argument("source", nargs="*", metavar="SOURCE", help="PATH, or KIND PATH")
    imp.add_argument("--apply", action="store_true", help="import (default: only plan)")
    imp.add_argument("--since", metavar="DAY", help="only what is dated on or after DAY "
                     "(YYYY-MM-DD, UTC)")
    imp.add_argument("--until", metavar="DAY", help="only what is dated on or before DAY")
    imp.add_argument("--budget", type=int, metavar="TOKENS",
                     help="model tokens this import may use (default budget.importTokens)")
    imp.add_argument("--rollback", metavar="ID", help="remove what import ID wrote (`last`: "
                     "the newest import not rolled back)")
    imp.add_argument("--list", action="store_true", help="list this memory's imports")
    _json_flag(imp)


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
