"""``briefing.generate``: one briefing run on demand (the scheduler runs the same code)."""

from __future__ import annotations

from typing import Any

from zettelclaw.agents.pool import Agents
from zettelclaw.protocol.dispatcher import Method
from zettelclaw.protocol.params import BriefingGenerateParams


def methods(agents: Agents) -> dict[str, Method]:
    async def generate(params: BriefingGenerateParams) -> dict[str, Any]:
        async with agents.lease(params.agent()) as app:
            return await app.briefing.generate(params.workspace_dir, params.dry_run)

    return {"briefing.generate": Method(BriefingGenerateParams, generate)}
