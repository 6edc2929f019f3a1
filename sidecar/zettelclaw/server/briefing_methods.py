"""``briefing.generate``: one briefing run on demand (the scheduler runs the same code)."""

from __future__ import annotations

from typing import Any

from zettelclaw.briefing.service import Briefing
from zettelclaw.protocol.dispatcher import Method
from zettelclaw.protocol.params import BriefingGenerateParams


def briefing_methods(briefing: Briefing) -> dict[str, Method]:
    async def generate(params: BriefingGenerateParams) -> dict[str, Any]:
        return await briefing.generate(params.workspace_dir, params.dry_run)

    return {"briefing.generate": Method(BriefingGenerateParams, generate)}
