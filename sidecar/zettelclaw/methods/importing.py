"""``import.*``: bring a user's history in (importing/). Run where the writers are serialized:
in the sidecar when one answers (its extraction loop is woken for the conversations spooled),
else in the CLI's process under the same data lock (they wait in the spool for the sidecar).
``import.apply`` works in slices, so the CLI draws its progress between calls."""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

import trio

from zettelclaw.agents.pool import Agents
from zettelclaw.errors import InternalError, InvalidParamsError
from zettelclaw.importing import cancel, importer, rollback
from zettelclaw.methods.edge import from_domain
from zettelclaw.methods.forget import rebrief, removed
from zettelclaw.protocol.dispatcher import Method
from zettelclaw.protocol.params import (
    ImportApplyParams,
    ImportListParams,
    ImportPlanParams,
    ImportRollbackParams,
)
from zettelclaw.protocol.results import (
    ImportKept,
    ImportPlan,
    ImportProgress,
    ImportRolledBack,
    ImportRow,
    ImportsList,
)

T = TypeVar("T")


def _source(params: ImportPlanParams) -> importer.Source:
    try:
        since, until = params.days()
    except ValueError as exc:
        raise InvalidParamsError(str(exc), [{"field": str(exc).split(":")[0],
                                              "message": "not a date",
                                              "type": "value_error"}]) from None
    if not Path(params.path).is_absolute():
        raise InvalidParamsError("path must be absolute (the sidecar's working directory is "
                                 "not the caller's)", [{"field": "path",
                                                        "message": "not absolute",
                                                        "type": "value_error"}])
    return importer.Source(params.kind, Path(params.path), params.agent(), since, until)


async def _stoppable(agents: Agents, work: Callable[[], T]) -> T:
    """``work()`` in a worker thread that stops reading (``importing/cancel``) when the sidecar
    stops: a shutdown does not wait for a large source to be read to its end."""
    stop = threading.Event()

    async def watch() -> None:
        await agents.stopping.wait()
        stop.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(watch)
        done: tuple[T] | Exception
        try:
            done = (await trio.to_thread.run_sync(cancel.run, stop, work),)
        except Exception as exc:  # raised below: the nursery would wrap it in a group
            done = exc
        nursery.cancel_scope.cancel()
    if isinstance(done, cancel.Stopped):
        raise InternalError("the sidecar is stopping: the import's reading was cut short; "
                            "nothing was lost, run it again")
    if isinstance(done, Exception):
        raise done
    return done[0]


async def import_plan(agents: Agents, params: ImportPlanParams) -> ImportPlan:
    source = _source(params)
    async with agents.lease(params.agent()) as app:
        found = await _stoppable(agents, partial(importer.plan, app, source, params.budget))
    return from_domain(ImportPlan, found)


async def import_apply(agents: Agents, params: ImportApplyParams) -> ImportProgress:
    source = _source(params)
    async with agents.lease(params.agent()) as app:
        found = await _stoppable(agents, partial(importer.apply, app, source,
                                                 budget=params.budget,
                                                 slice_seconds=params.slice_seconds))
        if found.conversations:
            app.wake()
    return from_domain(ImportProgress, found)


async def import_rollback(agents: Agents, params: ImportRollbackParams) -> ImportRolledBack:
    async with agents.lease(params.agent()) as app:
        found = await trio.to_thread.run_sync(rollback.rollback, app, params.import_id)
        if found.entries:  # what the MEMORY.md block showed may be gone, as after a forget
            await rebrief(app)
    return ImportRolledBack(import_id=found.import_id, state="rolledBack", entries=found.entries,
                            removed=None if found.removed is None else removed(found.removed),
                            kept=[from_domain(ImportKept, k) for k in found.kept])


async def import_list(agents: Agents, params: ImportListParams) -> ImportsList:
    async with agents.lease(params.agent()) as app:
        found = await trio.to_thread.run_sync(importer.listing, app.home)
    return ImportsList(imports=[from_domain(ImportRow, row) for row in found])


def methods(agents: Agents) -> dict[str, Method]:
    return {
        "import.plan": Method(ImportPlanParams, partial(import_plan, agents)),
        "import.apply": Method(ImportApplyParams, partial(import_apply, agents)),
        "import.rollback": Method(ImportRollbackParams, partial(import_rollback, agents)),
        "import.list": Method(ImportListParams, partial(import_list, agents)),
    }
