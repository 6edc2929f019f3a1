"""``briefing.generate``: one briefing run on demand (the scheduler runs the same code)."""

from __future__ import annotations

from zettelclaw.agents.pool import Agents
from zettelclaw.protocol.dispatcher import Method
from zettelclaw.protocol.params import BriefingGenerateParams
from zettelclaw.protocol.results import Briefing


def methods(agents: Agents) -> dict[str, Method]:
    async def generate(params: BriefingGenerateParams) -> Briefing:
        async with agents.lease(params.agent()) as app:
            return Briefing.model_validate(
                await app.briefing.generate(params.workspace_dir, params.dry_run))

    return {"briefing.generate": Method(BriefingGenerateParams, generate)}
