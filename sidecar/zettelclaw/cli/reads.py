"""The commands that read memory: ``status``, ``agents``, ``log`` and ``search``, ``jobs``,
``subjects``, ``receipts``, ``trace``. Each calls its method through the contract
(``client.ask``): the params and result models of protocol/, checked by mypy."""

from __future__ import annotations

import argparse
import os
import sys

from zettelclaw.cli import render
from zettelclaw.cli.backend import Backend
from zettelclaw.cli.exits import EXIT_NO_RESULTS, EXIT_OK, print_json, show
from zettelclaw.client import ask
from zettelclaw.errors import InvalidParamsError
from zettelclaw.protocol import contract as rpc
from zettelclaw.protocol import params as p


def status(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    from zettelclaw.config import unknown_variables

    result = ask(backend, rpc.STATUS, p.StatusParams()).wire()
    for warning in unknown_variables(os.environ):  # this shell's; `serve` logs the sidecar's
        print(f"zettelclaw: warning: {warning}", file=sys.stderr)
    show(result, as_json, lambda: render.status(result, backend.where))
    return EXIT_OK


def agents(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    result = ask(backend, rpc.AGENTS_LIST, p.AgentsListParams()).wire()
    show(result, as_json, lambda: render.agents(result["agents"]))
    return EXIT_OK


def listing(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    """`log` and `search`: results of memory.search, every kind rendered."""
    found = ask(backend, rpc.MEMORY_SEARCH, search_params(args))
    results = [hit.wire() for hit in found.results]
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


def search_params(args: argparse.Namespace) -> p.SearchParams:
    if args.n < 1:
        raise InvalidParamsError("-n must be at least 1")
    if args.command == "log":
        return p.SearchParams(includeReplaced=True, maxResults=args.n, order="log")
    words = " ".join(args.query).strip()
    return p.SearchParams(
        maxResults=args.n, includeReplaced=args.all, query=words or None, type=args.type,
        subject=args.subject, status=args.status, session=args.session, since=args.since,
        until=args.until)


def jobs(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    if args.action == "retry":
        retried = ask(backend, rpc.JOBS_RETRY, p.JobsRetryParams(jobId=args.job_id or None))
        if as_json:
            print_json(retried.wire())
        else:
            ids = retried.retried
            print(f"retrying {len(ids)} job(s)" + (": " + ", ".join(ids) if ids else ""))
        return EXIT_OK
    if args.job_id:
        raise InvalidParamsError("an ID goes with `jobs retry ID`")
    result = ask(backend, rpc.JOBS_LIST, p.JobsListParams()).wire()
    show(result, as_json, lambda: render.jobs(result))
    return EXIT_OK


def receipts(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    result = ask(backend, rpc.MEMORY_RECEIPTS, p.ReceiptsParams(limit=args.n)).wire()
    show(result, as_json, lambda: render.receipts(result["conversations"]))
    return EXIT_OK


def trace(args: argparse.Namespace, backend: Backend, as_json: bool) -> int:
    result = ask(backend, rpc.MEMORY_TRACE, p.TraceParams(limit=args.n)).wire()
    show(result, as_json, lambda: render.trace(result["turns"]))
    return EXIT_OK
