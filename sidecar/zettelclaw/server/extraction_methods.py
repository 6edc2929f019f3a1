"""The extraction methods: the hooks that deliver conversations, the sweep, and the jobs.

Hooks only spool (in a worker thread, under the data lock) and wake the extraction loop: they
answer in milliseconds and never wait for the model. OpenClaw gives all session_end handlers two
seconds in total at shutdown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import trio

from zettelclaw.extraction.intake import HookCall
from zettelclaw.extraction.service import Extraction
from zettelclaw.protocol.dispatcher import Method
from zettelclaw.protocol.params import (
    GatewayStartParams,
    HookTranscriptParams,
    JobsListParams,
    JobsRetryParams,
)


def extraction_methods(extraction: Extraction, notify: Callable[[], None]) -> dict[str, Method]:
    def hook(trigger: str) -> Callable[[HookTranscriptParams], Any]:
        async def handle(params: HookTranscriptParams) -> dict[str, Any]:
            call = HookCall(trigger=trigger, session_id=params.session_id,
                            session_key=params.session_key, agent_id=params.agent_id,
                            reason=params.reason, messages=params.messages,
                            transcript_path=params.transcript_path)
            result = await trio.to_thread.run_sync(extraction.intake.accept, call)
            if "jobId" in result:
                notify()
            return result

        return handle

    async def gateway_start(params: GatewayStartParams) -> dict[str, Any]:
        sessions = [s.model_dump(by_alias=True) for s in params.sessions]
        result = await trio.to_thread.run_sync(extraction.sweep, sessions)
        if result["retried"]:
            notify()
        return result

    async def jobs_list(_: JobsListParams) -> dict[str, Any]:
        return await trio.to_thread.run_sync(extraction.jobs)

    async def jobs_retry(params: JobsRetryParams) -> dict[str, Any]:
        result = await trio.to_thread.run_sync(extraction.retry, params.job_id)
        notify()
        return result

    return {
        "hook.sessionEnd": Method(HookTranscriptParams, hook("sessionEnd")),
        "hook.beforeReset": Method(HookTranscriptParams, hook("beforeReset")),
        "hook.gatewayStart": Method(GatewayStartParams, gateway_start),
        "jobs.list": Method(JobsListParams, jobs_list),
        "jobs.retry": Method(JobsRetryParams, jobs_retry),
    }
