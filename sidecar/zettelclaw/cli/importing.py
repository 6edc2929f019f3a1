"""``zettelclaw import``: plan, apply with progress on stderr, roll back, list."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from zettelclaw.cli.backend import Backend
from zettelclaw.cli.exits import EXIT_OK, print_json
from zettelclaw.errors import InvalidParamsError
from zettelclaw.home import resolve_openclaw_state_dir, resolve_workspace
from zettelclaw.importing import cancel

KINDS = ("openclaw", "memory-core", "chatgpt", "claude", "clawvault")


def source_params(args: argparse.Namespace, env: Mapping[str, str]) -> dict[str, Any]:
    """The ``import.plan``/``import.apply`` params the command line names."""
    words = list(args.source)
    kind = words.pop(0) if words and words[0] in KINDS and (len(words) > 1 or
                                                            not Path(words[0]).exists()) \
        else None
    if len(words) > 1:
        raise InvalidParamsError(f"import takes PATH or KIND PATH, not {' '.join(args.source)}")
    if words:
        path = Path(words[0]).expanduser().absolute()
    elif kind == "openclaw":
        path = resolve_openclaw_state_dir(env).absolute()
    elif kind == "memory-core":
        path = resolve_workspace(getattr(args, "workspace", None), env)
    else:
        raise InvalidParamsError("import needs a SOURCE: PATH, or KIND PATH (zettelclaw "
                                 "import --help)")
    params: dict[str, Any] = {"path": str(path)}
    if kind:
        params["kind"] = kind
    for name in ("since", "until", "budget"):
        if getattr(args, name) is not None:
            params[name] = getattr(args, name)
    return params


def run(args: argparse.Namespace, backend: Backend, as_json: bool,
        env: Mapping[str, str] = os.environ) -> int:
    if args.list:
        result = backend.call("import.list")
        _show(result, as_json, _listing)
        return EXIT_OK
    if args.rollback:
        result = backend.call("import.rollback", {"importId": args.rollback})
        _show(result, as_json, _rolled_back)
        return EXIT_OK
    params = source_params(args, env)
    # a long reading in this process (no sidecar) says how far it got
    cancel.on_progress = _reading
    try:
        if not args.apply:
            result = backend.call("import.plan", params)
            _show(result, as_json, _plan)
            return EXIT_OK
        result = _apply(backend, params)
    finally:
        cancel.on_progress = None
    _show(result, as_json, _done)
    return EXIT_OK


def _apply(backend: Backend, params: dict[str, Any]) -> dict[str, Any]:
    """``import.apply`` slice after slice, drawing done/total, rate and time left on stderr."""
    started = time.monotonic()
    first_done: int | None = None
    # the tokens spooled when the first answer came, and when: the rate of tokens is counted
    # from there (a resumed import's earlier tokens count in its budget, not in the rate)
    mark: tuple[int, float] | None = None
    tty = sys.stderr.isatty()
    while True:
        result: dict[str, Any] = backend.call("import.apply", params)
        params.pop("budget", None)  # recorded in the import's manifest by the first call
        done, total = result["done"], result["total"]
        if first_done is None:
            first_done = done if result["state"] != "running" else 0
        now = time.monotonic()
        elapsed = now - started
        rate = (done - first_done) / elapsed if elapsed > 0 else 0.0
        if mark is None:
            mark = (result.get("spooledTokens") or 0, now)
        left, why = _time_left(result, rate, mark, now)
        line = (f"importing{' ' + result['importId'] if result['importId'] else ''}: "
                f"{done}/{total} items"
                + (f", {rate:.1f}/s" if rate else "")
                + (f", about {left:.0f} s left{why}" if left is not None and done < total
                   else ""))
        sys.stderr.write(("\r" + line) if tty else line + "\n")
        sys.stderr.flush()
        if result["state"] != "running":
            if tty:
                sys.stderr.write("\n")
            return result


def _reading(text: str) -> None:
    sys.stderr.write(f"{text}\n")
    sys.stderr.flush()


def _time_left(result: dict[str, Any], rate: float, mark: tuple[int, float], now: float
               ) -> tuple[float | None, str]:
    """Seconds until the apply ends, and why it ends then: it stops at its budget when the
    tokens still allowed run out before the items do (at the rate of tokens spooled since
    ``mark``, the first answer's tokens and time)."""
    left = (result["total"] - result["done"]) / rate if rate > 0 else None
    budget, spooled = result.get("budget") or 0, result.get("spooledTokens") or 0
    token_rate = (spooled - mark[0]) / (now - mark[1]) if now > mark[1] else 0.0
    if budget and token_rate > 0:
        by_budget = max(0, budget - spooled) / token_rate
        if left is None or by_budget < left:
            return by_budget, " (then the budget stops it)"
    return left, ""


def _show(result: Any, as_json: bool, text: Any) -> None:
    if as_json:
        print_json(result)
    else:
        print(text(result))


def _problems(problems: list[dict[str, str]]) -> list[str]:
    lines = [f"problem    {p['origin']}: {p['message']}" for p in problems[:20]]
    if len(problems) > 20:
        lines.append(f"           and {len(problems) - 20} more (--json lists them all)")
    return lines


def _plan(plan: dict[str, Any]) -> str:
    est = plan["estimate"]
    lines = [f"source     {plan['kind']} at {plan['path']} (agent {plan['agent']})",
             f"would add  {plan['conversations']} conversation(s) ({plan['messages']} "
             f"messages) for extraction, {plan['notes']} note(s) as entries",
             f"skipped    {plan['alreadyImported']} already imported"
             + (f", {plan['alreadyRemembered']} already remembered (live)"
                if plan.get("alreadyRemembered") else "")
             + (f", {plan['outOfRange']} outside the dates" if plan["outOfRange"] else "")
             + (f", {plan['outOfScope']} out of scope (cron, group, sub-agent, admission, "
                "another speaker)" if plan.get("outOfScope") else "")]
    lines.append(f"tokens     about {est['tokens']:,} ({est['inputTokens']:,} in, "
                 f"{est['outputTokens']:,} out)"
                 + (" on the host's model (priced by its provider)" if est["route"] == "host"
                    else ""))
    costs = [f"{c['model']} ${c['usd']:.2f}" for c in est["costs"] if c["usd"] is not None]
    if costs and est["tokens"]:
        lines.append(f"cost       {', '.join(costs)} ({est['prices']})")
    budget = plan["budget"]
    lines.append(f"budget     {budget:,} tokens" if budget else "budget     no limit")
    if not plan["fits"]:
        lines.append(f"warning    over the budget: --apply stops when it is reached; pass "
                     f"--budget {est['tokens']} (or more) to import it all")
    if plan["resumes"]:
        lines.append(f"resumes    import {plan['resumes']}, cut short or stopped at its budget")
    lines += _problems(plan["problems"])
    lines.append("nothing was imported: add --apply to import")
    return "\n".join(lines)


def _done(result: dict[str, Any]) -> str:
    if result["importId"] is None:
        lines = ["nothing new to import (all of it was imported before)"]
    else:
        lines = [f"import {result['importId']}: {result['state']}, {result['notes']} note(s) "
                 f"written, {result['conversations']} conversation(s) spooled for extraction "
                 f"(about {result['spooledTokens']:,} tokens), {result['skipped']} skipped"]
        if result["stopReason"]:
            lines.append(f"stopped    {result['stopReason']}")
        if result["conversations"]:
            lines.append("extraction runs in the sidecar: `zettelclaw jobs` shows what is left")
        lines.append(f"undo with  zettelclaw import --rollback {result['importId']}")
    lines += _problems(result["problems"])
    return "\n".join(lines)


def _rolled_back(result: dict[str, Any]) -> str:
    removed = result.get("removed")
    lines = [f"import {result['importId']} rolled back: {result['entries']} entries purged"
             + (f", {removed['spool']['jobs']} job(s) and {removed['transcripts']['files']} "
                "conversation copy(ies) removed" if removed else "")]
    for kept in result.get("kept", []):
        lines.append(f"kept       {kept['id']} {kept['content']!r}: written since, it replaced "
                     f"the imported {kept['replaced']} {kept['replacedContent']!r}")
    return "\n".join(lines)


def _listing(result: dict[str, Any]) -> str:
    rows = result["imports"]
    if not rows:
        return "no imports"
    lines = [f"{'IMPORT':<36} {'STATE':<11} {'NOTES':>6} {'CONVS':>6}  PATH"]
    lines += [f"{r['importId']:<36} {r['state']:<11} {r['notes']:>6} {r['conversations']:>6}  "
              f"{r['path']}" for r in rows]
    return "\n".join(lines)



