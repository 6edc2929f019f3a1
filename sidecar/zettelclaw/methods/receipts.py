"""``memory.receipts`` (what each conversation wrote, with ids) and ``memory.trace`` (what the
last turns were given before the prompt). The owner's own: any other audience is -32012."""

from __future__ import annotations

from functools import partial

import trio

from zettelclaw.agents.pool import Agents
from zettelclaw.methods.edge import from_domain, refuse_restricted
from zettelclaw.protocol.dispatcher import Method
from zettelclaw.protocol.params import ReceiptsParams, TraceParams
from zettelclaw.protocol.results import Conversation, Receipts, Trace
from zettelclaw.recall import receipts


async def list_receipts(agents: Agents, params: ReceiptsParams) -> Receipts:
    refuse_restricted(agents, params)
    async with agents.lease(params.agent()) as app:
        await app.syncer.fresh()

        def read() -> list[receipts.Written]:
            with app.index.read() as conn:
                return receipts.listing(app.home, conn)[:params.limit]

        return Receipts(conversations=[from_domain(Conversation, w)
                                       for w in await trio.to_thread.run_sync(read)])


async def trace(agents: Agents, params: TraceParams) -> Trace:
    refuse_restricted(agents, params)
    async with agents.lease(params.agent()) as app:
        turns = app.trace.last(params.limit) if app.trace is not None else []
        return Trace(turns=turns)


def methods(agents: Agents) -> dict[str, Method]:
    return {
        "memory.receipts": Method(ReceiptsParams, partial(list_receipts, agents)),
        "memory.trace": Method(TraceParams, partial(trace, agents)),
    }
