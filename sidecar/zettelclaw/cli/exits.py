"""The CLI's exit codes (defined on the error classes, ``errors.py``) and JSON output."""

from __future__ import annotations

import os
import select
import sys
import traceback
from collections.abc import Callable, Mapping
from typing import Any

import orjson

from zettelclaw.errors import (
    EXIT_CONFLICT,
    EXIT_INTERNAL,
    EXIT_NO_RESULTS,
    EXIT_NOT_FOUND,
    EXIT_OK,
    EXIT_UNAVAILABLE,
    EXIT_USAGE,
    ZettelclawError,
)
from zettelclaw.protocol.results import Result

__all__ = [
    "EXIT_CLOSED_STDOUT",
    "EXIT_CODES",
    "EXIT_CONFLICT",
    "EXIT_INTERNAL",
    "EXIT_NOT_FOUND",
    "EXIT_NO_RESULTS",
    "EXIT_OK",
    "EXIT_UNAVAILABLE",
    "EXIT_USAGE",
    "exit_code",
    "print_json",
    "unexpected",
]

EXIT_CLOSED_STDOUT = 141  # 128 + SIGPIPE: what a shell reports for a tool its reader left

EXIT_CODES = f"""\
exit codes:
  {EXIT_OK}   success
  {EXIT_NO_RESULTS}   nothing found (search, log; get --from past the end)
  {EXIT_USAGE}   bad usage or invalid input
  {EXIT_NOT_FOUND}   no such entry, subject or file
  {EXIT_CONFLICT}   already exists (a subject; another sidecar serving this data directory)
  {EXIT_UNAVAILABLE}   the data directory or the socket cannot be used (permissions, lock held)
  {EXIT_INTERNAL}  internal error (a bug: one line on stderr, -v shows the traceback)
  {EXIT_CLOSED_STDOUT} standard output closed before all was written (| head): nothing said

environment:
  ZETTELCLAW_HOME       data directory (default $OPENCLAW_STATE_DIR/zettelclaw, else
                        $OPENCLAW_HOME/.openclaw/zettelclaw, else ~/.openclaw/zettelclaw)
  ZETTELCLAW_WORKSPACE  workspace with MEMORY.md (default $OPENCLAW_STATE_DIR/workspace, else
                        $OPENCLAW_HOME/.openclaw/workspace, else ~/.openclaw/workspace;
                        created when missing)
  ZETTELCLAW_SOCKET     socket path (default: the OpenClaw plugin's socketPath in
                        openclaw.json, else HOME/sidecar.sock)
  ZETTELCLAW_<SECTION>_<KEY>  a setting (README, Configuration), e.g.
                        ZETTELCLAW_AGENTS_SHARE=phone:main
"""


def exit_code(exc: ZettelclawError) -> int:
    """The exit code of an error the sidecar (or the files backend) answered with: the one its
    class carries (``errors.py``)."""
    return exc.exit_code


def print_json(value: Any) -> None:
    sys.stdout.write(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode() + "\n")


def show(result: Result | Mapping[str, Any], as_json: bool, text: Callable[[], str]) -> None:
    """The result as JSON for scripts (--json), else as text for people."""
    if as_json:
        print_json(result.wire() if isinstance(result, Result) else result)
    else:
        print(text())


def unexpected(exc: Exception, verbosity: int) -> int:
    """A bug: one line for a person, the traceback with -v. Except a reader that left early."""
    if isinstance(exc, BrokenPipeError) and _stdout_closed():  # not the sidecar's socket
        return _quiet_after_closed_stdout()
    if verbosity:
        traceback.print_exc()
    hint = "" if verbosity else " (run with -v for the traceback)"
    print(f"zettelclaw: internal error: {type(exc).__name__}: {exc}{hint}", file=sys.stderr)
    return EXIT_INTERNAL


def _stdout_closed() -> bool:
    """Whether standard output is a pipe or socket whose reader has gone."""
    poller = select.poll()
    poller.register(sys.stdout.fileno(), select.POLLOUT)
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))


def _quiet_after_closed_stdout() -> int:
    """A reader that stops early (``| head``) ends the command as it ends a Unix tool: without a
    word, exit 128 + SIGPIPE. Standard output is pointed at /dev/null first, so that Python's
    own flush at exit has nowhere to fail."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_CLOSED_STDOUT
