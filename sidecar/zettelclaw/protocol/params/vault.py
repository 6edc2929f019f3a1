"""The params of ``vault.*`` and ``import.*``: the memory's pages, and what comes in from
elsewhere."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from pydantic import (
    Field,
    StringConstraints,
)

from zettelclaw.protocol.params.base import AgentParams, Text


class VaultBuildParams(AgentParams):
    path: Text | None = None  # the vault's folder (absolute); default the memory's vault/
    from_scratch: bool = Field(False, alias="fromScratch")
    force: bool = False  # with fromScratch: move a folder holding the person's pages aside


class VaultSyncParams(AgentParams):
    path: Text | None = None


ImportDay = Annotated[str, StringConstraints(pattern=r"^\d{4}-\d{2}-\d{2}$")]


class ImportPlanParams(AgentParams):
    """``import.plan``: what importing ``path`` would do (``kind``: told by the path when
    absent; ``since``/``until``: days, UTC, both included; ``budget``: tokens, else
    ``budget.importTokens``)."""

    kind: Annotated[str, StringConstraints(min_length=1, max_length=40)] | None = None
    path: Annotated[str, StringConstraints(min_length=1, max_length=4096)]
    since: ImportDay | None = None
    until: ImportDay | None = None
    budget: Annotated[int, Field(ge=0)] | None = None

    def days(self) -> tuple[date | None, date | None]:
        """``since`` and ``until`` as dates; ValueError naming the one that is no date."""
        found = []
        for name, value in (("since", self.since), ("until", self.until)):
            try:
                found.append(date.fromisoformat(value) if value else None)
            except ValueError:
                raise ValueError(f"{name}: {value!r} is not a date") from None
        return found[0], found[1]


class ImportApplyParams(ImportPlanParams):
    """``import.apply``: import for about ``sliceSeconds`` and say how far it got; call again
    until ``state`` is not ``running``."""

    slice_seconds: Annotated[float, Field(gt=0, le=60)] = Field(2.0, alias="sliceSeconds")


class ImportRollbackParams(AgentParams):
    import_id: Annotated[str, StringConstraints(pattern=r"^[0-9A-Za-z._:-]{1,100}$")] = Field(
        alias="importId")


class ImportListParams(AgentParams):
    pass
