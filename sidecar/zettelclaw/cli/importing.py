"""``zettelclaw import``: plan, apply with progress on stderr, roll back, list."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from zettelclaw.cli.backend import Backend
from zettelclaw.cli.exits import EXIT_OK, show
from zettelclaw.client import Caller, ask
from zettelclaw.errors import InvalidParamsError
from zettelclaw.home import resolve_openclaw_state_dir, resolve_workspace
from zettelclaw.importing import cancel
from zettelclaw.protocol import contract as rpc
from zettelclaw.protocol import params as p
from zettelclaw.protocol import results as r

KINDS = ("openclaw", "memory-core", "chatgpt", "claude", "clawvault")


def source_params(args: argparse.Namespace, env: Mapping[str, str]) -> p.ImportPlanParams:
    """The ``import.plan`` params the command line names (``import.apply`` takes the same)."""
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
    return p.ImportPlanParams(path=str(path), kind=kind, since=args.since, until=args.until,
                              budget=args.budget)


def run(args: argparse.Namespace, backend: Backend, as_json: bool,
        env: Mapping[str, str] = os.environ) -> int:
    if args.list:
        listed = ask(backend, rpc.IMPORT_LIST, p.ImportListParams())
        show(listed, as_json, lambda: _listing(listed))
        return EXIT_OK
    if args.rollback:
        rolled = ask(backend, rpc.IMPORT_ROLLBACK, p.ImportRollbackParams(importId=args.rollback))
        show(rolled, as_json, lambda: _rolled_back(rolled))
        return EXIT_OK
    params = source_params(args, env)
    # a long reading in this process (no sidecar) says how far it got
    cancel.on_progress = _reading
    try:
        if not args.apply:
            plan = ask(backend, rpc.IMPORT_PLAN, params)
            show(plan, as_json, lambda: _plan(plan))
            return EXIT_OK
        progress = _apply(backend, p.ImportApplyParams.model_validate(
            params.model_dump(by_alias=True, exclude_unset=True)))
    finally:
        cancel.on_progress = None
    show(progress, as_json, lambda: _done(progress))
    return EXIT_OK


def _apply(backend: Caller, params: p.ImportApplyParams) -> r.ImportProgress:
    """``import.apply`` slice after slice, drawing done/total, rate and time left on stderr."""
    started = time.monotonic()
    first_done: int | None = None
    # the tokens spooled when the first answer came, and when: the rate of tokens is counted
    # from there (a resumed import's earlier tokens count in its budget, not in the rate)
    mark: tuple[int, float] | None = None
    tty = sys.stderr.isatty()
    while True:
        result = ask(backend, rpc.IMPORT_APPLY, params)
        # the budget is recorded in the import's manifest by the first call
        params = params.model_copy(update={"budget": None})
        done, total = result.done, result.total
        if first_done is None:
            first_done = done if result.state != "running" else 0
        now = time.monotonic()
        elapsed = now - started
        rate = (done - first_done) / elapsed if elapsed > 0 else 0.0
        if mark is None:
            mark = (result.spooled_tokens, now)
        left, why = _time_left(result, rate, mark, now)
        line = (f"importing{' ' + result.import_id if result.import_id else ''}: "
                f"{done}/{total} items"
                + (f", {rate:.1f}/s" if rate else "")
                + (f", about {left:.0f} s left{why}" if left is not None and done < total
                   else ""))
        sys.stderr.write(("\r" + line) if tty else line + "\n")
        sys.stderr.flush()
        if result.state != "running":
            if tty:
                sys.stderr.write("\n")
            return result


def _reading(text: str) -> None:
    sys.stderr.write(f"{text}\n")
    sys.stderr.flush()


def _time_left(result: r.ImportProgress, rate: float, mark: tuple[int, float], now: float
               ) -> tuple[float | None, str]:
    """Seconds until the apply ends, and why it ends then: it stops at its budget when the
    tokens still allowed run out before the items do (at the rate of tokens spooled since
    ``mark``, the first answer's tokens and time)."""
    left = (result.total - result.done) / rate if rate > 0 else None
    budget, spooled = result.budget, result.spooled_tokens
    token_rate = (spooled - mark[0]) / (now - mark[1]) if now > mark[1] else 0.0
    if budget and token_rate > 0:
        by_budget = max(0, budget - spooled) / token_rate
        if left is None or by_budget < left:
            return by_budget, " (then the budget stops it)"
    return left, ""


def _problems(problems: list[r.ImportProblem]) -> list[str]:
    lines = [f"problem    {found.origin}: {found.message}" for found in problems[:20]]
    if len(problems) > 20:
        lines.append(f"           and {len(problems) - 20} more (--json lists them all)")
    return lines


def _plan(plan: r.ImportPlan) -> str:
    est = plan.estimate
    lines = [f"source     {plan.kind} at {plan.path} (agent {plan.agent})",
             f"would add  {plan.conversations} conversation(s) ({plan.messages} "
             f"messages) for extraction, {plan.notes} note(s) as entries",
             f"skipped    {plan.already_imported} already imported"
             + (f", {plan.already_remembered} already remembered (live)"
                if plan.already_remembered else "")
             + (f", {plan.out_of_range} outside the dates" if plan.out_of_range else "")
             + (f", {plan.out_of_scope} out of scope (cron, group, sub-agent, admission, "
                "another speaker)" if plan.out_of_scope else "")]
    lines.append(f"tokens     about {est.tokens:,} ({est.input_tokens:,} in, "
                 f"{est.output_tokens:,} out)"
                 + (" on the host's model (priced by its provider)" if est.route == "host"
                    else ""))
    costs = [f"{c.model} ${c.usd:.2f}" for c in est.costs if c.usd is not None]
    if costs and est.tokens:
        lines.append(f"cost       {', '.join(costs)} ({est.prices})")
    budget = plan.budget
    lines.append(f"budget     {budget:,} tokens" if budget else "budget     no limit")
    if not plan.fits:
        lines.append(f"warning    over the budget: --apply stops when it is reached; pass "
                     f"--budget {est.tokens} (or more) to import it all")
    if plan.resumes:
        lines.append(f"resumes    import {plan.resumes}, cut short or stopped at its budget")
    lines += _problems(plan.problems)
    lines.append("nothing was imported: add --apply to import")
    return "\n".join(lines)


def _done(result: r.ImportProgress) -> str:
    if result.import_id is None:
        lines = ["nothing new to import (all of it was imported before)"]
    else:
        lines = [f"import {result.import_id}: {result.state}, {result.notes} note(s) "
                 f"written, {result.conversations} conversation(s) spooled for extraction "
                 f"(about {result.spooled_tokens:,} tokens), {result.skipped} skipped"]
        if result.stop_reason:
            lines.append(f"stopped    {result.stop_reason}")
        if result.conversations:
            lines.append("extraction runs in the sidecar: `zettelclaw jobs` shows what is left")
        lines.append(f"undo with  zettelclaw import --rollback {result.import_id}")
    lines += _problems(result.problems)
    return "\n".join(lines)


def _rolled_back(result: r.ImportRolledBack) -> str:
    removed = result.removed
    files = (removed.transcripts.files if removed is not None
             and isinstance(removed.transcripts, r.RemovedFiles) else 0)
    jobs = removed.spool.jobs if removed is not None and removed.spool is not None else 0
    lines = [f"import {result.import_id} rolled back: {result.entries} entries purged"
             + (f", {jobs} job(s) and {files} conversation copy(ies) removed" if removed
                else "")]
    for kept in result.kept:
        lines.append(f"kept       {kept.id} {kept.content!r}: written since, it replaced "
                     f"the imported {kept.replaced} {kept.replaced_content!r}")
    return "\n".join(lines)


def _listing(result: r.ImportsList) -> str:
    rows = result.imports
    if not rows:
        return "no imports"
    lines = [f"{'IMPORT':<36} {'STATE':<11} {'NOTES':>6} {'CONVS':>6}  PATH"]
    lines += [f"{row.import_id:<36} {row.state:<11} {row.notes:>6} {row.conversations:>6}  "
              f"{row.path}" for row in rows]
    return "\n".join(lines)
