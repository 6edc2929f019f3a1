"""The CLI's exit codes (defined on the error classes, ``errors.py``) and JSON output."""

from __future__ import annotations

import sys
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
