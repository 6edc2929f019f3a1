"""``zettelclaw get`` (one entry, memory file or session by its path) and ``zettelclaw call``
(any protocol method), so that nobody needs socat to look something up or try a method."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

import orjson

from zettelclaw.cli import render
from zettelclaw.cli.backend import Backend
from zettelclaw.cli.exits import EXIT_NO_RESULTS, EXIT_OK, print_json
from zettelclaw.client import ask
from zettelclaw.errors import InvalidParamsError
from zettelclaw.protocol import contract as rpc
from zettelclaw.protocol import params as p
from zettelclaw.protocol import results as r

GET_DESCRIPTION = """\
Read one thing by its path, as memory.get does:
  an entry id (12 characters)  the entry, with the versions it replaced and that replaced it
  MEMORY.md, memory/NAME.md    a memory file of the workspace (--from/--lines for a part)
  session:ID                   the conversation the sidecar received for that session

examples:
  zettelclaw get Cx6tM_1pWn8Y
  zettelclaw get MEMORY.md --from 1 --lines 20
  zettelclaw get session:0f8c2d3e-6a4b-4c1e-9d7f-2b5a8e1c3f40"""

CALL_DESCRIPTION = """\
Call any JSON-RPC method of the protocol (protocol.md) and print its result as JSON: the
sidecar's when one answers on the socket, else the same method run on the files. PARAMS is a
JSON object, or - to read it from standard input. An error answer is printed on stderr with its
code, and the exit code says what kind it was (2 bad params, 3 not found, ...).

examples:
  zettelclaw call status
  zettelclaw call memory.search '{"query": "webhook retries", "maxResults": 3}'
  echo '{"type": "task", "status": "open"}' | zettelclaw call memory.search -"""


def add_commands(command: Callable[..., argparse.ArgumentParser],
                 json_flag: Callable[[argparse.ArgumentParser], None]) -> None:
    get = command("get", "read one entry, memory file or session by its path", GET_DESCRIPTION)
    get.add_argument("path", metavar="ID|PATH|session:ID")
    get.add_argument("--from", dest="from_line", type=int, default=None, metavar="N",
                     help="first line to show (files and sessions; default 1)")
    get.add_argument("--lines", type=int, default=None, metavar="N",
                     help="how many lines (files and sessions; default all)")
    json_flag(get)
    call = command("call", "call a protocol method and print its JSON result", CALL_DESCRIPTION)
    call.add_argument("method", metavar="METHOD", help="e.g. status, memory.search")
    call.add_argument("params", nargs="?", metavar="PARAMS",
                      help="the params: a JSON object, or - for standard input")


def get(args: argparse.Namespace, backend: Backend) -> int:
    params = p.GetParams(path=args.path, lines=args.lines,
                         **({} if args.from_line is None else {"from": args.from_line}))
    found = ask(backend, rpc.MEMORY_GET, params)
    past_end = (isinstance(found, r.TextSlice)
                and found.from_ > max(found.total_lines, 1))
    if args.json:
        print_json(found.wire())
    elif isinstance(found, r.TextSlice) and past_end:
        total = found.total_lines
        print(f"zettelclaw: {found.path} has {total} line{'s' * (total != 1)}: "
              f"--from {found.from_} is past its end", file=sys.stderr)
    else:
        print(render.got(found.wire()))
    return EXIT_NO_RESULTS if past_end else EXIT_OK


def call(args: argparse.Namespace, backend: Backend) -> int:
    params = _params(args.params)
    print_json(backend.call(args.method, params))
    return EXIT_OK


def _params(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    raw = sys.stdin.read() if text == "-" else text
    try:
        value = orjson.loads(raw) if raw.strip() else {}
    except orjson.JSONDecodeError as exc:
        raise InvalidParamsError(f"PARAMS is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise InvalidParamsError("PARAMS must be a JSON object, e.g. '{\"query\": \"webhook\"}'")
    return value
