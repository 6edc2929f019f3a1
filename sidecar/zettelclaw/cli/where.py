"""Whether a command works where it was told to: a ``--home`` or ``--workspace`` given (flag or
environment) that does not exist is a typo until shown otherwise, and a sidecar that answers
for another data directory or workspace than the one given is said, not silently used.

A read (``search``, ``log``, ``status``, ...) of a missing directory creates nothing and fails
(exit 3) naming it; a write creates it (as a first use does) and says so. A sidecar serving
another data directory than ``--home`` is refused (exit 2: the command would read or change the
wrong memory); one serving another workspace than ``--workspace`` is said on stderr (the
command goes on, with the sidecar's workspace).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from zettelclaw.cli.backend import Backend, SidecarBackend
from zettelclaw.client import ask
from zettelclaw.errors import InvalidParamsError, NotFoundError
from zettelclaw.protocol import contract as rpc
from zettelclaw.protocol import params as p

READS = frozenset({"log", "search", "get", "status", "jobs", "agents", "receipts", "trace"})


def reads(args: argparse.Namespace) -> bool:
    if args.command == "subjects":
        return getattr(args, "action", None) in (None, "list")
    return args.command in READS


def check_missing(args: argparse.Namespace, home: Path, workspace: Path, *,
                  explicit_home: bool, explicit_workspace: bool) -> None:
    """Before the files are opened (no sidecar answered): a read of a given directory that does
    not exist fails; a write says it creates it. With ``--agent`` of another agent, the
    workspace given is main's, not the agent's (the roster's): it is not checked."""
    if getattr(args, "agent", None) not in (None, "main"):
        explicit_workspace = False
    for given, path, what, flag in ((explicit_home, home, "memory", "--home (or ZETTELCLAW_HOME)"),
                                    (explicit_workspace, workspace, "workspace",
                                     "--workspace (or ZETTELCLAW_WORKSPACE)")):
        # a file in its place, or a workspace without its parent: their own errors (exit 5)
        if not given or path.exists() or (what == "workspace" and not path.parent.is_dir()):
            continue
        if reads(args):
            raise NotFoundError(f"no {what} at {path}: the directory does not exist (a typo in "
                                f"{flag}?); nothing was created")
        print(f"zettelclaw: note: {path} does not exist: it is created, for a new {what}",
              file=sys.stderr)


def check_sidecar(args: argparse.Namespace, backend: Backend, inner: Backend, home: Path,
                  workspace: Path, *, explicit_home: bool, explicit_workspace: bool) -> None:
    """A sidecar answered: the data directory and workspace given are the ones it serves."""
    if not isinstance(inner, SidecarBackend) or not (explicit_home or explicit_workspace):
        return
    if args.command == "briefing":  # it sends its workspace with the call
        explicit_workspace = False
    if getattr(args, "agent", None) not in (None, "main"):
        # another agent's workspace is its own (the roster's), not the one --workspace names
        explicit_workspace = False
    status = ask(backend, rpc.STATUS, p.StatusParams())
    served = Path(status.home).resolve()
    if explicit_home and served != home.resolve() and home.resolve() not in served.parents:
        raise InvalidParamsError(
            f"the sidecar at {inner.where.removeprefix('sidecar at ')} serves the data "
            f"directory {served}, not {home}: pass --socket for the sidecar of {home}, or "
            "--no-sidecar to work on its files")
    theirs = Path(status.workspace).resolve()
    if explicit_workspace and theirs != workspace.resolve():
        print(f"zettelclaw: warning: the sidecar serves the workspace {theirs}, not "
              f"{workspace}: this command uses its workspace (--no-sidecar works on "
              f"{workspace}'s files)", file=sys.stderr)
