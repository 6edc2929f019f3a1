"""The methods the sidecar answers, each with its params model and its result model: the
contract protocol.md documents, in one table.

``methods/`` implements it (tests/protocol/test_protocol_schema.py holds every handler's
annotations to this table), ``schema.py`` writes it out as JSON Schema
(``protocol.schema.json``), and protocol.md's sections are checked against that file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from zettelclaw.protocol import params as p
from zettelclaw.protocol import results as r
from zettelclaw.protocol import sync_models as s


@dataclass(frozen=True)
class Signature:
    params: type[BaseModel]
    result: Any  # a result model, or a union of them


CONTRACT: dict[str, Signature] = {
    "memory.search": Signature(p.SearchParams, r.SearchResult),
    "memory.get": Signature(p.GetParams, r.EntryWithChain | r.TextSlice),
    "index.rebuild": Signature(p.IndexRebuildParams, r.Rebuilt),
    "subjects.list": Signature(p.SubjectsListParams, r.SubjectsList),
    "subjects.add": Signature(p.SubjectsAddParams, r.SubjectAdded),
    "subjects.rename": Signature(p.SubjectsRenameParams, r.SubjectRenamed),
    "hook.beforePromptBuild": Signature(p.BeforePromptBuildParams, r.PromptContext),
    "hook.sessionEnd": Signature(p.HookTranscriptParams, r.Intake),
    "hook.beforeReset": Signature(p.HookTranscriptParams, r.Intake),
    "hook.gatewayStart": Signature(p.GatewayStartParams, r.Sweep),
    "hook.turnFacts": Signature(p.TurnFactsParams, r.FactsNoted),
    "jobs.list": Signature(p.JobsListParams, r.JobsList),
    "jobs.retry": Signature(p.JobsRetryParams, r.Retried),
    "briefing.generate": Signature(p.BriefingGenerateParams, r.Briefing),
    "status": Signature(p.StatusParams, r.Status),
    "agents.register": Signature(p.AgentsRegisterParams, r.AgentsRegistered),
    "agents.list": Signature(p.AgentsListParams, r.AgentsList),
    "artifacts.list": Signature(p.ArtifactsListParams, r.ArtifactsList),
    "host.offer": Signature(p.HostOfferParams, r.Offered),
    "memory.forget": Signature(p.ForgetParams, r.Forgot),
    "memory.unforget": Signature(p.UnforgetParams, r.Forgot),
    "memory.remember": Signature(p.RememberParams, r.Remembered),
    "memory.receipts": Signature(p.ReceiptsParams, r.Receipts),
    "memory.trace": Signature(p.TraceParams, r.Trace),
    "vault.build": Signature(p.VaultBuildParams, r.VaultBuilt),
    "vault.sync": Signature(p.VaultSyncParams, r.VaultSynced),
    "import.plan": Signature(p.ImportPlanParams, r.ImportPlan),
    "import.apply": Signature(p.ImportApplyParams, r.ImportProgress),
    "import.rollback": Signature(p.ImportRollbackParams, r.ImportRolledBack),
    "import.list": Signature(p.ImportListParams, r.ImportsList),
    "sync.init": Signature(s.SyncInitParams, s.SyncInitialized),
    "sync.run": Signature(s.SyncRunParams, s.SyncRan),
    "sync.status": Signature(s.SyncStatusParams, s.SyncStatus),
}
