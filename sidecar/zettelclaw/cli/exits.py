"""The CLI's exit codes, which error means which, and JSON output: defined once."""

from __future__ import annotations

import sys
from typing import Any

import orjson

from zettelclaw.errors import (
    DataDirError,
    InvalidParamsError,
    LockTimeoutError,
    MarkersError,
    MethodNotFoundError,
    NotFoundError,
    PathNotAllowedError,
    SubjectExistsError,
    SubjectNotFoundError,
    ZettelclawError,
)

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
  {EXIT_INTERNAL}  internal error (a bug: one line on stderr, -v shows the traceback)

environment:
  ZETTELCLAW_HOME       data directory (default $OPENCLAW_STATE_DIR/zettelclaw or
                        ~/.openclaw/zettelclaw)
  ZETTELCLAW_WORKSPACE  workspace with MEMORY.md (default $OPENCLAW_STATE_DIR/workspace or
                        ~/.openclaw/workspace; created when missing)
  ZETTELCLAW_SOCKET     socket path (default HOME/sidecar.sock)
"""


def exit_code(exc: ZettelclawError) -> int:
    """The exit code of an error the sidecar (or the files backend) answered with."""
    if isinstance(exc, InvalidParamsError | PathNotAllowedError | MarkersError
                  | MethodNotFoundError):
        return EXIT_USAGE
    if isinstance(exc, NotFoundError | SubjectNotFoundError):
        return EXIT_NOT_FOUND
    if isinstance(exc, SubjectExistsError):
        return EXIT_CONFLICT
    if isinstance(exc, DataDirError | LockTimeoutError):
        from zettelclaw.server.listener import AlreadyServingError

        return EXIT_CONFLICT if isinstance(exc, AlreadyServingError) else EXIT_UNAVAILABLE
    return EXIT_INTERNAL


def print_json(value: Any) -> None:
    sys.stdout.write(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode() + "\n")
