"""``zettelclaw``: run the sidecar, and read or manage memory from a shell.

Every command but ``serve`` talks to the running sidecar when one answers on the socket, and
otherwise works on the files directly under the same data lock.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from zettelclaw.cli import dash_ids, lookup, render, where
from zettelclaw.cli.backend import AgentBackend, Backend, open_backend
from zettelclaw.cli.exits import (
    EXIT_NO_RESULTS,
    EXIT_OK,
    EXIT_UNAVAILABLE,
    EXIT_USAGE,
    exit_code,
    print_json,
    unexpected,
)
from zettelclaw.cli.parser import build_parser
from zettelclaw.client import SidecarUnavailableError
from zettelclaw.errors import InvalidParamsError, ZettelclawError
from zettelclaw.home import Home, ensure_workspace, resolve_home, resolve_workspace


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    words = sys.argv[1:] if argv is None else argv
    args, extra = parser.parse_known_args(dash_ids.mask(words, dash_ids.option_strings(parser)))
    dash_ids.unmask(args)
    if extra or args.command is None:
        return _usage(parser, args, extra)
    verbosity = getattr(args, "verbose", 0)
    default_level = logging.INFO if args.command == "serve" else logging.WARNING
    logging.basicConfig(
        level=default_level - 10 * verbosity, stream=sys.stderr,
        format="zettelclaw: %(levelname)s: %(message)s")
    try:
        rc = _dispatch(args, os.environ)
        sys.stdout.flush()  # here, where a reader gone (| head) is caught, not at exit
        return rc
    except ZettelclawError as exc:
        code = f" (code {exc.code})" if args.command == "call" else ""
        print(f"zettelclaw: {exc.message}{code}", file=sys.stderr)
        return exit_code(exc)
    except SidecarUnavailableError as exc:
        print(f"zettelclaw: {exc}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        return unexpected(exc, verbosity)


def _usage(parser: argparse.ArgumentParser, args: argparse.Namespace, extra: list[str]) -> int:
    """No command: the help. Else argparse's "unrecognized arguments", with the way out when it
    was a search word that starts with '-' (taken for an option)."""
    if args.command is None and not extra:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    parser.print_usage(sys.stderr)
    print(f"zettelclaw: error: unrecognized arguments: {' '.join(extra)}", file=sys.stderr)
    dashed = [word for word in extra if word.startswith("-") and word != "-"]
    if args.command == "search" and dashed:
        print(f"zettelclaw: to search for a word that starts with '-', put -- before the words: "
              f"zettelclaw search -- {' '.join(dashed)}", file=sys.stderr)
    return EXIT_USAGE


def socket_path(args: argparse.Namespace, env: Mapping[str, str], home: Home) -> Path:
    """Where the sidecar listens, first found: ``--socket``; ``$ZETTELCLAW_SOCKET``; the OpenClaw
    plugin's ``socketPath`` in openclaw.json (where the gateway's sidecar listens), unless
    ``--home`` names another data directory than the gateway's; else ``HOME/sidecar.sock``.
    (README, "Where things live".)"""
    given = getattr(args, "socket", None) or env.get("ZETTELCLAW_SOCKET")
    if given:
        return Path(given).expanduser().absolute()
    if home.root == resolve_home(None, env):  # the gateway's sidecar serves this directory
        from zettelclaw.openclaw.plugin_config import socket_path as plugin_socket

        found = plugin_socket(env)
        if found is not None:
            return found
    return home.default_socket


def _dispatch(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    home = Home(resolve_home(getattr(args, "home", None), env))
    explicit_workspace = getattr(args, "workspace", None) or env.get("ZETTELCLAW_WORKSPACE")
    workspace = resolve_workspace(getattr(args, "workspace", None), env)
    socket = socket_path(args, env, home)
    if args.command in ("init", "serve") and getattr(args, "agent", None) is not None:
        print(f"zettelclaw: {args.command} acts for every agent; --agent picks the memory of "
              "the other commands", file=sys.stderr)
        return EXIT_USAGE
    if args.command in ("init", "team"):  # OpenClaw's files, the team's database: no method
        return _without_method(args, env, home, socket, workspace,
                               explicit_workspace=bool(explicit_workspace))
    if args.command == "serve":
        return _serve(args, home, workspace, socket, bool(explicit_workspace))
    files_only = getattr(args, "no_sidecar", False)
    if args.command == "mcp":  # a server on stdio; each tool call opens where it goes
        try:
            from zettelclaw.cli.mcp_server import build_server, memory_missing, run_stdio
        except ModuleNotFoundError as exc:  # the optional extra is missing
            print(f"zettelclaw: {exc}", file=sys.stderr)
            return EXIT_UNAVAILABLE
        # an MCP client starts this with only some of the user's variables (Codex, GUI apps):
        # a memory it cannot find is refused, never started empty beside the user's
        missing = memory_missing(args, env)
        if not home.exists() and (files_only or not socket.exists()):
            print(f"zettelclaw: warning: there is no memory in {home.root} yet: every call "
                  f"will be refused until there is. {missing}", file=sys.stderr)
        run_stdio(build_server(
            lambda: open_backend(home, socket, workspace, files_only, missing=missing,
                                 explicit_workspace=bool(explicit_workspace)),
            getattr(args, "agent", None) or "main"))
        return EXIT_OK
    explicit_home = bool(getattr(args, "home", None) or env.get("ZETTELCLAW_HOME"))
    backend = open_backend(home, socket, workspace, files_only,
                           explicit_workspace=bool(explicit_workspace),
                           before_files=lambda: where.check_missing(
                               args, home.root, workspace, explicit_home=explicit_home,
                               explicit_workspace=bool(explicit_workspace)))
    try:
        return _run(args, backend, lambda agent_backend: where.check_sidecar(
            args, agent_backend, backend, home.root, workspace, explicit_home=explicit_home,
            explicit_workspace=bool(explicit_workspace)))
    finally:
        backend.close()


def _without_method(args: argparse.Namespace, env: Mapping[str, str], home: Home, socket: Path,
                    workspace: Path, *, explicit_workspace: bool) -> int:
    if args.command == "init":  # edits OpenClaw's files: no sidecar, no data lock
        from zettelclaw.cli import init as init_command

        return init_command.run(args, env)
    # the team's database; a round here only when no sidecar runs
    from zettelclaw.cli import team

    return team.run(args, home, socket, workspace, explicit_workspace=explicit_workspace)


def _serve(args: argparse.Namespace, home: Home, workspace: Path, socket: Path,
           explicit_workspace: bool) -> int:
    from zettelclaw.config import load_config, unknown_variables
    from zettelclaw.protocol.framing import DEFAULT_MAX_MESSAGE_BYTES
    from zettelclaw.serve import ServerConfig, run

    # everything that can be refused is checked before anything is created on disk
    limit = args.max_message_bytes or DEFAULT_MAX_MESSAGE_BYTES
    if limit < 1024:
        print("zettelclaw: --max-message-bytes must be at least 1024", file=sys.stderr)
        return EXIT_USAGE
    settings = load_config(home, overrides=args.set)
    for warning in unknown_variables(os.environ):
        logging.getLogger("zettelclaw.config").warning(warning)
    ensure_workspace(workspace, explicit=explicit_workspace)
    home.ensure()
    return run(ServerConfig(home=home, workspace=workspace, socket=socket,
                            max_message_bytes=limit, settings=settings,
                            briefing_schedule=True, workspace_explicit=explicit_workspace))


def _run(args: argparse.Namespace, backend: Backend,
         check: Callable[[Backend], None] | None = None) -> int:
    from zettelclaw.cli.sync import command as sync_command

    as_json = getattr(args, "json", False)
    agent = getattr(args, "agent", None)
    if agent is not None:
        backend = AgentBackend(backend, agent)
    if check is not None:  # the memory it answers for is the one asked for
        check(backend)
    handler = {"status": _status, "jobs": _jobs, "briefing": _briefing, "reindex": _reindex_run,
               "log": _listing, "search": _listing, "subjects": _subjects,
               "agents": _agents, "forget": _forget, "remember": _remember,
               "receipts": _receipts, "trace": _trace, "vault": _vault,
               "import": _import, "sync": sync_command}.get(args.command)
    if handler is not None:
        return handler(args, backend, as_json)
    return lookup.get(args, backend) if args.command == "get" else lookup.call(args, backend)


def _status(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    from zettelclaw.config import unknown_variables

    result = backend.call("status")
    for warning in unknown_variables(os.environ):  # this shell's; `serve` logs the sidecar's
        print(f"zettelclaw: warning: {warning}", file=sys.stderr)
    show(result, as_json, lambda: render.status(result, backend.where))
    return EXIT_OK


def show(result: Any, as_json: bool, text: Callable[[], str]) -> None:
    """The result as JSON for scripts (--json), else as text for people."""
    if as_json:
        print_json(result)
    else:
        print(text())


def _agents(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    result = backend.call("agents.list")
    show(result, as_json, lambda: render.agents(result["agents"]))
    return EXIT_OK


def _reindex_run(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    result = _reindex(backend)
    if as_json:
        print_json(result)
    else:
        print(f"indexed {result['entries']} entries ({result['invalidLines']} invalid "
              f"lines skipped) and {result['memoryFiles']} memory files "
              f"({result['chunks']} chunks) in {result['seconds']:.1f} s")
    return EXIT_OK


def _listing(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    """`log` and `search`: results of memory.search, every kind rendered."""
    results = backend.call("memory.search", _search_params(args))["results"]
    if args.command == "log":
        results.reverse()  # a log reads oldest first, like tail
    if as_json:
        print_json({"results": results})
    elif results:
        print(render.entries(results))
    else:
        print("no entries" if args.command == "log" else "no matching entries",
              file=sys.stderr)
    return EXIT_OK if results else EXIT_NO_RESULTS


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
            print_json(result)
        else:
            retried = result["retried"]
            print(f"retrying {len(retried)} job(s)" + (": " + ", ".join(retried) if retried
                                                      else ""))
        return EXIT_OK
    if args.job_id:
        raise InvalidParamsError("an ID goes with `jobs retry ID`")
    result = backend.call("jobs.list")
    show(result, as_json, lambda: render.jobs(result))
    return EXIT_OK


def _search_params(args: argparse.Namespace) -> dict[str, Any]:
    if args.n < 1:
        raise InvalidParamsError("-n must be at least 1")
    if args.command == "log":
        return {"includeReplaced": True, "maxResults": args.n, "order": "log"}
    params: dict[str, Any] = {"maxResults": args.n, "includeReplaced": args.all}
    words = " ".join(args.query).strip()
    if words:
        params["query"] = words
    for name in ("type", "subject", "status", "session", "since", "until"):
        value = getattr(args, name)
        if value is not None:
            params[name] = value
    return params


def _subjects(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    if args.action in (None, "list"):
        result = backend.call("subjects.list")
        show(result, as_json, lambda: render.subjects(result["subjects"]))
        return EXIT_OK
    if args.action == "add":
        params = {"slug": args.slug, "type": args.type}
        if args.display:
            params["display"] = args.display
        result = backend.call("subjects.add", params)
        if as_json:
            print_json(result)
        else:
            s = result["subject"]
            print(f"added {s['slug']} ({s['display']}, {s['type']})")
        return EXIT_OK
    result = backend.call("subjects.rename", {"from": args.from_slug, "to": args.to_slug})
    if as_json:
        print_json(result)
    else:
        verb = "merged into" if result["merged"] else "renamed to"
        print(f"{result['from']} {verb} {result['to']}: "
              f"{result['entriesRewritten']} log entries rewritten")
    return EXIT_OK


def _forget(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    if args.undo:
        if not args.ids or args.session or args.subject or args.text or args.purge:
            raise InvalidParamsError("`forget --undo` takes the ids to give back, only")
        result = backend.call("memory.unforget", {"ids": args.ids, "dryRun": args.dry_run})
    else:
        params: dict[str, Any] = {"purge": args.purge, "dryRun": args.dry_run}
        if args.edit_files:
            params["editFiles"] = True
        for key in ("session", "subject", "text"):
            if getattr(args, key) is not None:
                params[key] = getattr(args, key)
        if args.ids:
            params["ids"] = args.ids
        result = backend.call("memory.forget", params)
    show(result, as_json, lambda: render.forgot(result))
    return EXIT_OK


def _remember(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    params: dict[str, Any] = {"type": args.type, "content": " ".join(args.content)}
    for key, name in (("subject", "subject"), ("detail", "detail"), ("status", "status"),
                      ("replaces", "replaces"), ("session", "sessionId")):
        if getattr(args, key) is not None:
            params[name] = getattr(args, key)
    result = backend.call("memory.remember", params)
    said = ("already remembered: {id} (log.jsonl line {line}); nothing written"
            if result.get("existing") else "remembered {id} (log.jsonl line {line})")
    show(result, as_json, lambda: said.format(**result))
    return EXIT_OK


def _import(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    from zettelclaw.cli import importing

    return importing.run(args, backend, as_json)


def _receipts(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    result = backend.call("memory.receipts", {"limit": args.n})
    show(result, as_json, lambda: render.receipts(result["conversations"]))
    return EXIT_OK


def _trace(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    result = backend.call("memory.trace", {"limit": args.n})
    show(result, as_json, lambda: render.trace(result["turns"]))
    return EXIT_OK


def _vault(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    params: dict[str, Any] = {}
    if args.path:
        params["path"] = str(Path(args.path).expanduser().absolute())
    if args.action == "sync":
        if args.from_scratch or args.force:
            raise InvalidParamsError("--from-scratch and --force go with `vault build`")
        result = backend.call("vault.sync", params)
        show(result, as_json, lambda: render.vault_sync(result))
        return EXIT_OK
    if args.force and not args.from_scratch:
        raise InvalidParamsError("--force goes with --from-scratch")
    params.update(fromScratch=args.from_scratch, force=args.force)
    result = backend.call("vault.build", params)
    show(result, as_json, lambda: render.vault_build(result))
    return EXIT_OK


def _briefing(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    params: dict[str, Any] = {"dryRun": args.dry_run}
    if getattr(args, "workspace", None):  # given here: the sidecar may serve another one
        params["workspaceDir"] = str(Path(args.workspace).expanduser().absolute())
    result = backend.call("briefing.generate", params)
    if as_json:
        print_json(result)
    else:
        print(render.briefing_run(result))
    return EXIT_OK
