"""The params of every method, as pydantic models: the contract protocol.md documents, one module
per job (``contract.py`` pairs them with the results by method).

Params are by name (a JSON object). Unknown names are rejected, so a typo such as ``maxresults``
is an error that names the field instead of a silently ignored option.
"""

from __future__ import annotations

from zettelclaw.protocol.params.agents import (
    AgentsListParams,
    AgentsRegisterParams,
    AgentWorkspace,
    ArtifactsListParams,
    BriefingGenerateParams,
    HostClientParams,
    HostEmbeddingsParams,
    HostOfferParams,
)
from zettelclaw.protocol.params.base import (
    DAY_SECONDS,
    AgentParams,
    AudienceParams,
    Params,
    Text,
    day_bounds,
    field_errors,
    invalid_params,
)
from zettelclaw.protocol.params.hooks import (
    EpochMillis,
    GatewaySession,
    GatewayStartParams,
    HookTranscriptParams,
    JobsListParams,
    JobsRetryParams,
    Reason,
    TurnFactsParams,
)
from zettelclaw.protocol.params.memory import (
    CORPUS,
    BeforePromptBuildParams,
    CorpusName,
    ForgetParams,
    GetParams,
    IndexRebuildParams,
    ReceiptsParams,
    RememberParams,
    SearchParams,
    StatusParams,
    SubjectsAddParams,
    SubjectsListParams,
    SubjectsRenameParams,
    TraceParams,
    UnforgetParams,
)
from zettelclaw.protocol.params.vault import (
    ImportApplyParams,
    ImportDay,
    ImportListParams,
    ImportPlanParams,
    ImportRollbackParams,
    VaultBuildParams,
    VaultSyncParams,
)

__all__ = [
    "CORPUS",
    "DAY_SECONDS",
    "AgentParams",
    "AgentWorkspace",
    "AgentsListParams",
    "AgentsRegisterParams",
    "ArtifactsListParams",
    "AudienceParams",
    "BeforePromptBuildParams",
    "BriefingGenerateParams",
    "CorpusName",
    "EpochMillis",
    "ForgetParams",
    "GatewaySession",
    "GatewayStartParams",
    "GetParams",
    "HookTranscriptParams",
    "HostClientParams",
    "HostEmbeddingsParams",
    "HostOfferParams",
    "ImportApplyParams",
    "ImportDay",
    "ImportListParams",
    "ImportPlanParams",
    "ImportRollbackParams",
    "IndexRebuildParams",
    "JobsListParams",
    "JobsRetryParams",
    "Params",
    "Reason",
    "ReceiptsParams",
    "RememberParams",
    "SearchParams",
    "StatusParams",
    "SubjectsAddParams",
    "SubjectsListParams",
    "SubjectsRenameParams",
    "Text",
    "TraceParams",
    "TurnFactsParams",
    "UnforgetParams",
    "VaultBuildParams",
    "VaultSyncParams",
    "day_bounds",
    "field_errors",
    "invalid_params",
]
