"""``jobs.*``: the extraction jobs in the spool, and retrying them."""

from __future__ import annotations

from functools import partial

import trio

from zettelclaw.agents.pool import Agents
from zettelclaw.methods.edge import from_domain
from zettelclaw.protocol.dispatcher import Method
from zettelclaw.protocol.params import JobsListParams, JobsRetryParams
from zettelclaw.protocol.results import JobsList, Retried


async def jobs_list(agents: Agents, params: JobsListParams) -> JobsList:
    async with agents.lease(params.agent()) as app:
        return from_domain(JobsList, await trio.to_thread.run_sync(app.extraction.jobs))


async def jobs_retry(agents: Agents, params: JobsRetryParams) -> Retried:
    async with agents.lease(params.agent()) as app:
        result = await trio.to_thread.run_sync(app.extraction.retry, params.job_id)
        app.wake()
    return Retried(retried=result)


def methods(agents: Agents) -> dict[str, Method]:
    return {
        "jobs.list": Method(JobsListParams, partial(jobs_list, agents)),
        "jobs.retry": Method(JobsRetryParams, partial(jobs_retry, agents)),
    }
