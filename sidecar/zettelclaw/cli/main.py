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

from pydantic import ValidationError

from zettelclaw.cli import changes, dash_ids, lookup, reads, where
from zettelclaw.cli.backend import AgentBackend, Backend, open_backend
from zettelclaw.cli.exits import (
    EXIT_OK,
    EXIT_UNAVAILABLE,
    EXIT_USAGE,
    exit_code,
    unexpected,
)
from zettelclaw.cli.parser import build_parser
from zettelclaw.client import SidecarUnavailableError
from zettelclaw.errors import ZettelclawError
from zettelclaw.home import Home, ensure_workspace, resolve_home, resolve_workspace
from zettelclaw.protocol.params import invalid_params


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
    handler = {"status": reads.status, "jobs": reads.jobs, "log": reads.listing,
               "search": reads.listing, "agents": reads.agents, "receipts": reads.receipts,
               "trace": reads.trace, "briefing": changes.briefing, "reindex": changes.reindex,
               "subjects": changes.subjects, "forget": changes.forget,
               "remember": changes.remember, "vault": changes.vault, "import": _import,
               "sync": sync_command}.get(args.command)
    if handler is not None:
        try:
            return handler(args, backend, as_json)
        except ValidationError as exc:  # a params model built here refused a value given
            raise invalid_params(exc) from None
    return lookup.get(args, backend) if args.command == "get" else lookup.call(args, backend)


def _import(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    from zettelclaw.cli import importing

    return importing.run(args, backend, as_json)
