"""``zettelclaw``: run the sidecar, and read or manage memory from a shell.

Every command but ``serve`` talks to the running sidecar when one answers on the socket, and
otherwise works on the files directly under the same data lock.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson

from zettelclaw import __version__
from zettelclaw.cli import render
from zettelclaw.cli.backend import Backend, open_backend
from zettelclaw.client import SidecarUnavailableError
from zettelclaw.errors import (
    DataDirError,
    InvalidParamsError,
    LockTimeoutError,
    MarkersError,
    NotFoundError,
    PathNotAllowedError,
    SubjectExistsError,
    SubjectNotFoundError,
    ZettelclawError,
)
from zettelclaw.home import Home, resolve_home, resolve_workspace

EXIT_OK = 0
EXIT_NO_RESULTS = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_CONFLICT = 4
EXIT_UNAVAILABLE = 5
EXIT_INTERNAL = 70

EXIT_CODES = f"""\
exit codes:
  {EXIT_OK}   success
  {EXIT_NO_RESULTS}   nothing found (search, log)
  {EXIT_USAGE}   bad usage or invalid input
  {EXIT_NOT_FOUND}   no such entry, subject or file
  {EXIT_CONFLICT}   already exists (a subject; another sidecar serving this data directory)
  {EXIT_UNAVAILABLE}   the data directory or the socket cannot be used (permissions, lock held)
  {EXIT_INTERNAL}  internal error (a bug: please report it)

environment:
  ZETTELCLAW_HOME       data directory (default $OPENCLAW_STATE_DIR/zettelclaw or
                        ~/.openclaw/zettelclaw)
  ZETTELCLAW_WORKSPACE  workspace with MEMORY.md (default $OPENCLAW_STATE_DIR/workspace or
                        ~/.openclaw/workspace)
  ZETTELCLAW_SOCKET     socket path (default HOME/sidecar.sock)
"""


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--home", metavar="DIR", default=argparse.SUPPRESS,
                        help="data directory (log.jsonl, subjects.json, state.json)")
    common.add_argument("--socket", metavar="PATH", default=argparse.SUPPRESS,
                        help="the sidecar's Unix socket (default HOME/sidecar.sock)")
    common.add_argument("--workspace", metavar="DIR", default=argparse.SUPPRESS,
                        help="the agent workspace holding MEMORY.md and memory/*.md")
    common.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS,
                        help="more log output on stderr (-vv for debug)")
    common.add_argument("--no-sidecar", action="store_true", default=argparse.SUPPRESS,
                        help="work on the files directly even if a sidecar is running")
    return common


def _json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")


def _subcommand(group: Any, common: argparse.ArgumentParser, name: str, help_text: str,
                description: str | None) -> argparse.ArgumentParser:
    """A sub-command whose help wraps its description and ends with the exit codes."""
    parser: argparse.ArgumentParser = group.add_parser(
        name, parents=[common], help=help_text, epilog=EXIT_CODES,
        description=textwrap.fill(description or help_text, 79),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    return parser


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

    log = command("log", "show the newest entries of the log, oldest first")
    log.add_argument("-n", type=int, default=20, metavar="N", help="how many (default 20)")
    _json_flag(log)

    search = command("search", "search the log by keywords and/or filters",
                     "Search the log. With QUERY: keyword matches in content and detail, best "
                     "first. Without: the entries matching the filters, newest first. Replaced "
                     "entries are hidden unless --all.")
    search.add_argument("query", nargs="?", metavar="QUERY")
    search.add_argument("--type", choices=["task", "fact", "decision", "question", "handoff"])
    search.add_argument("--subject", metavar="SLUG")
    search.add_argument("--status", choices=["open", "done"], help="tasks with this status")
    search.add_argument("--session", metavar="ID", help="entries from this session")
    search.add_argument("--since", metavar="DATE", help="ISO date or date-time (UTC if no zone)")
    search.add_argument("--until", metavar="DATE", help="ISO date (whole day) or date-time")
    search.add_argument("--all", action="store_true", help="include replaced entries")
    search.add_argument("-n", type=int, default=10, metavar="N", help="at most N (default 10)")
    _json_flag(search)

    subjects = command("subjects", "list, add or rename subjects")
    actions = subjects.add_subparsers(dest="action", metavar="ACTION", required=True)

    def action(name: str, help_text: str, description: str | None = None
               ) -> argparse.ArgumentParser:
        return _subcommand(actions, common, name, help_text, description)

    listing = action("list", "list subjects with counts")
    _json_flag(listing)
    add = action("add", "register a subject")
    add.add_argument("slug", help="kebab-case slug, e.g. auth-migration")
    add.add_argument("--type", default="project", help="project, person, system, ... "
                     "(default project)")
    add.add_argument("--display", help="display name (default: the slug in Title Case)")
    _json_flag(add)
    rename = action(
        "rename", "rename a subject, or merge it into another",
        "Rename FROM to TO in the registry and in the subject field of log entries\n"
        "(never in free text). When TO exists, FROM is merged into it.")
    rename.add_argument("from_slug", metavar="FROM")
    rename.add_argument("to_slug", metavar="TO")
    _json_flag(rename)

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

    status = command("status", "show the data directory, counts and the sidecar's state")
    _json_flag(status)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    verbosity = getattr(args, "verbose", 0)
    default_level = logging.INFO if args.command == "serve" else logging.WARNING
    logging.basicConfig(
        level=default_level - 10 * verbosity, stream=sys.stderr,
        format="zettelclaw: %(levelname)s: %(message)s")
    env = os.environ
    home = Home(resolve_home(getattr(args, "home", None), env))
    workspace = resolve_workspace(getattr(args, "workspace", None), env)
    socket_arg = getattr(args, "socket", None) or env.get("ZETTELCLAW_SOCKET")
    socket = Path(socket_arg).expanduser().absolute() if socket_arg else home.default_socket
    try:
        if args.command in ("serve", "init"):  # neither goes through a backend
            return (_serve(args, home, workspace, socket) if args.command == "serve"
                    else _init(args, env))
        backend = open_backend(home, socket, workspace, getattr(args, "no_sidecar", False))
        try:
            return _run(args, backend)
        finally:
            backend.close()
    except ZettelclawError as exc:
        print(f"zettelclaw: {exc.message}", file=sys.stderr)
        return _exit_code(exc)
    except SidecarUnavailableError as exc:
        print(f"zettelclaw: {exc}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    except KeyboardInterrupt:
        return 130


def _exit_code(exc: ZettelclawError) -> int:
    if isinstance(exc, InvalidParamsError | PathNotAllowedError | MarkersError):
        return EXIT_USAGE
    if isinstance(exc, NotFoundError | SubjectNotFoundError):
        return EXIT_NOT_FOUND
    if isinstance(exc, SubjectExistsError):
        return EXIT_CONFLICT
    if isinstance(exc, DataDirError | LockTimeoutError):
        from zettelclaw.server.listener import AlreadyServingError

        return EXIT_CONFLICT if isinstance(exc, AlreadyServingError) else EXIT_UNAVAILABLE
    return EXIT_INTERNAL


def _serve(args: argparse.Namespace, home: Home, workspace: Path, socket: Path) -> int:
    from zettelclaw.config import load_config
    from zettelclaw.protocol.framing import DEFAULT_MAX_MESSAGE_BYTES
    from zettelclaw.server.serve import ServerConfig, run

    limit = args.max_message_bytes or DEFAULT_MAX_MESSAGE_BYTES
    if limit < 1024:
        print("zettelclaw: --max-message-bytes must be at least 1024", file=sys.stderr)
        return EXIT_USAGE
    home.ensure()
    settings = load_config(home, overrides=args.set)
    return run(ServerConfig(home=home, workspace=workspace, socket=socket,
                            max_message_bytes=limit, settings=settings,
                            briefing_schedule=True))


def _init(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    """`zettelclaw init` edits OpenClaw's files: no sidecar, no data lock."""
    from zettelclaw.cli import init as init_command

    return init_command.run(args, env)


def _print_json(value: Any) -> None:
    sys.stdout.write(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode() + "\n")


def _run(args: argparse.Namespace, backend: Backend) -> int:
    as_json = getattr(args, "json", False)
    if args.command == "status":
        result = backend.call("status")
        print(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode() if as_json
              else render.status(result, backend.where))
        return EXIT_OK
    if args.command == "jobs":
        return _jobs(args, backend, as_json)
    if args.command == "briefing":
        return _briefing(args, backend, as_json)
    if args.command == "reindex":
        result = _reindex(backend)
        if as_json:
            _print_json(result)
        else:
            print(f"indexed {result['entries']} entries ({result['invalidLines']} invalid "
                  f"lines skipped) and {result['memoryFiles']} memory files "
                  f"({result['chunks']} chunks) in {result['seconds']:.1f} s")
        return EXIT_OK
    if args.command in ("log", "search"):
        params = _search_params(args)
        results = backend.call("memory.search", params)["results"]
        if args.command == "log":
            results.reverse()  # a log reads oldest first, like tail
        if as_json:
            _print_json({"results": results})
        elif results:
            print(render.entries(results))
        else:
            print("no entries" if args.command == "log" else "no matching entries",
                  file=sys.stderr)
        return EXIT_OK if results else EXIT_NO_RESULTS
    return _subjects(args, backend, as_json)


def _reindex(backend: Backend) -> Any:
    """Rebuild; with a sidecar, draw its progress from `status` while the call runs."""
    from zettelclaw.cli.backend import ProgressBar, SidecarBackend

    if not isinstance(backend, SidecarBackend):
        return backend.call("index.rebuild")
    import threading

    from zettelclaw.client import Client

    bar, done = ProgressBar("reindexing log.jsonl"), threading.Event()

    def watch() -> None:
        with Client(backend.client.socket_path) as client:
            while not done.wait(0.25):
                progress = client.call("status")["index"]["progress"]
                if progress:
                    bar(*progress)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        return backend.call("index.rebuild")
    finally:
        done.set()
        watcher.join(5)


def _jobs(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    if args.action == "retry":
        params = {"jobId": args.job_id} if args.job_id else {}
        result = backend.call("jobs.retry", params)
        if as_json:
            _print_json(result)
        else:
            retried = result["retried"]
            print(f"retrying {len(retried)} job(s)" + (": " + ", ".join(retried) if retried
                                                      else ""))
        return EXIT_OK
    if args.job_id:
        raise InvalidParamsError("an ID goes with `jobs retry ID`")
    result = backend.call("jobs.list")
    if as_json:
        _print_json(result)
    else:
        print(render.jobs(result))
    return EXIT_OK


def _search_params(args: argparse.Namespace) -> dict[str, Any]:
    if args.n < 1:
        raise InvalidParamsError("-n must be at least 1")
    if args.command == "log":
        return {"includeReplaced": True, "maxResults": args.n}
    params: dict[str, Any] = {"maxResults": args.n, "includeReplaced": args.all}
    for name in ("query", "type", "subject", "status", "session", "since", "until"):
        value = getattr(args, name)
        if value is not None:
            params[name] = value
    return params


def _subjects(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    if args.action == "list":
        result = backend.call("subjects.list")
        if as_json:
            _print_json(result)
        else:
            print(render.subjects(result["subjects"]))
        return EXIT_OK
    if args.action == "add":
        params = {"slug": args.slug, "type": args.type}
        if args.display:
            params["display"] = args.display
        result = backend.call("subjects.add", params)
        if as_json:
            _print_json(result)
        else:
            s = result["subject"]
            print(f"added {s['slug']} ({s['display']}, {s['type']})")
        return EXIT_OK
    result = backend.call("subjects.rename", {"from": args.from_slug, "to": args.to_slug})
    if as_json:
        _print_json(result)
    else:
        verb = "merged into" if result["merged"] else "renamed to"
        print(f"{result['from']} {verb} {result['to']}: "
              f"{result['entriesRewritten']} log entries rewritten")
    return EXIT_OK


def _briefing(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    params: dict[str, Any] = {"dryRun": args.dry_run}
    if getattr(args, "workspace", None):  # given here: the sidecar may serve another one
        params["workspaceDir"] = str(Path(args.workspace).expanduser().absolute())
    result = backend.call("briefing.generate", params)
    if as_json:
        _print_json(result)
    else:
        print(render.briefing_run(result))
    return EXIT_OK
