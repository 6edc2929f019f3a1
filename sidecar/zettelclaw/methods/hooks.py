"""``hook.*``: what the host tells the sidecar as conversations happen.

``hook.sessionEnd`` and ``hook.beforeReset`` only spool (in a worker thread, under the data lock)
and wake the extraction loop: they answer in milliseconds and never wait for the model (OpenClaw
gives all session_end handlers two seconds in total at shutdown). ``hook.gatewayStart`` is the
sweep. ``hook.beforePromptBuild`` runs before every agent turn: it stays on the event loop and
answers from the cached handoff.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import trio

from zettelclaw.app import App
from zettelclaw.extraction.intake import HookCall
from zettelclaw.protocol.dispatcher import Method
from zettelclaw.protocol.params import (
    BeforePromptBuildParams,
    GatewayStartParams,
    HookTranscriptParams,
)
from zettelclaw.protocol.results import PromptContext


def methods(app: App) -> dict[str, Method]:
    def transcript_hook(trigger: str) -> Callable[[HookTranscriptParams], Any]:
        async def handle(params: HookTranscriptParams) -> dict[str, Any]:
            call = HookCall(trigger=trigger, session_id=params.session_id,
                            session_key=params.session_key, agent_id=params.agent_id,
                            reason=params.reason, messages=params.messages,
                            transcript_path=params.transcript_path)
            result = await trio.to_thread.run_sync(app.extraction.intake.accept, call)
            if "jobId" in result:
                app.wake()
            return result

        return handle

    async def gateway_start(params: GatewayStartParams) -> dict[str, Any]:
        sessions = [s.model_dump(by_alias=True) for s in params.sessions]
        result = await trio.to_thread.run_sync(app.extraction.sweep, sessions)
        if result["retried"]:
            app.wake()
        return result

    async def before_prompt_build(params: BeforePromptBuildParams) -> PromptContext:
        await app.syncer.fresh_if_quick()
        return PromptContext(prepend_context=app.handoff.context(params.audience()))

    return {
        "hook.sessionEnd": Method(HookTranscriptParams, transcript_hook("sessionEnd")),
        "hook.beforeReset": Method(HookTranscriptParams, transcript_hook("beforeReset")),
        "hook.gatewayStart": Method(GatewayStartParams, gateway_start),
        "hook.beforePromptBuild": Method(BeforePromptBuildParams, before_prompt_build),
    }
