"""The methods the sidecar answers, each with its params model and its result model: the
contract protocol.md documents, in one table.

``methods/`` implements it (tests/protocol/test_protocol_schema.py holds every handler's
annotations to this table), ``schema.py`` writes it out as JSON Schema
(``protocol.schema.json``), and
protocol.md's sections are checked against that file. Python clients call through the same
table: each ``Rpc`` ties a method's name to its params and result types, so
``call(MEMORY_SEARCH, SearchParams(...))`` is a ``SearchResult`` to mypy, and a params model of
another method is a type error (``cli/backend.py``'s ``Typed``).
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, TypeAdapter

from zettelclaw.protocol import params as p
from zettelclaw.protocol import results as r
from zettelclaw.protocol import sync_models as s

P = TypeVar("P", bound=BaseModel)
R = TypeVar("R")


@dataclass(frozen=True, init=False)
class Rpc(Generic[P, R]):
    """One method: its name, its params model, its result model (or the union of several)."""

    name: str
    params: type[P]
    result: Any  # the result model, or a union of them, as pydantic and the schema read it

    def __init__(self, name: str, params: type[P], *results: type[R]) -> None:
        result = functools.reduce(operator.or_, results) if len(results) > 1 else results[0]
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "params", params)
        object.__setattr__(self, "result", result)

    def request(self, params: P) -> dict[str, Any]:
        """The params as sent: wire names, only what was given (None is never sent: every
        field that takes it has it as its default)."""
        if type(params) is not self.params:
            raise TypeError(f"{self.name} takes {self.params.__name__}, not "
                            f"{type(params).__name__}")
        return params.model_dump(mode="json", by_alias=True, exclude_unset=True,
                                 exclude_none=True)

    def answer(self, result: Any) -> R:
        """The result as received (a JSON object), as its model. Fields the model does not know
        are ignored: a sidecar newer than this client may answer with more (the models forbid
        extra fields only where the sidecar builds them)."""
        validated: R = _adapter(self.result).validate_python(result, extra="ignore")
        return validated


@functools.cache
def _adapter(result: Any) -> TypeAdapter[Any]:
    """A result's validator, built on first use (33 built at import slow every CLI command)."""
    return TypeAdapter(result)


MEMORY_SEARCH = Rpc("memory.search", p.SearchParams, r.SearchResult)
MEMORY_GET: Rpc[p.GetParams, r.EntryWithChain | r.TextSlice] = Rpc(
    "memory.get", p.GetParams, r.EntryWithChain, r.TextSlice)
INDEX_REBUILD = Rpc("index.rebuild", p.IndexRebuildParams, r.Rebuilt)
SUBJECTS_LIST = Rpc("subjects.list", p.SubjectsListParams, r.SubjectsList)
SUBJECTS_ADD = Rpc("subjects.add", p.SubjectsAddParams, r.SubjectAdded)
SUBJECTS_RENAME = Rpc("subjects.rename", p.SubjectsRenameParams, r.SubjectRenamed)
HOOK_BEFORE_PROMPT_BUILD = Rpc("hook.beforePromptBuild", p.BeforePromptBuildParams,
                               r.PromptContext)
HOOK_SESSION_END = Rpc("hook.sessionEnd", p.HookTranscriptParams, r.Intake)
HOOK_BEFORE_RESET = Rpc("hook.beforeReset", p.HookTranscriptParams, r.Intake)
HOOK_GATEWAY_START = Rpc("hook.gatewayStart", p.GatewayStartParams, r.Sweep)
HOOK_TURN_FACTS = Rpc("hook.turnFacts", p.TurnFactsParams, r.FactsNoted)
JOBS_LIST = Rpc("jobs.list", p.JobsListParams, r.JobsList)
JOBS_RETRY = Rpc("jobs.retry", p.JobsRetryParams, r.Retried)
BRIEFING_GENERATE = Rpc("briefing.generate", p.BriefingGenerateParams, r.Briefing)
STATUS = Rpc("status", p.StatusParams, r.Status)
AGENTS_REGISTER = Rpc("agents.register", p.AgentsRegisterParams, r.AgentsRegistered)
AGENTS_LIST = Rpc("agents.list", p.AgentsListParams, r.AgentsList)
ARTIFACTS_LIST = Rpc("artifacts.list", p.ArtifactsListParams, r.ArtifactsList)
HOST_OFFER = Rpc("host.offer", p.HostOfferParams, r.Offered)
MEMORY_FORGET = Rpc("memory.forget", p.ForgetParams, r.Forgot)
MEMORY_UNFORGET = Rpc("memory.unforget", p.UnforgetParams, r.Forgot)
MEMORY_REMEMBER = Rpc("memory.remember", p.RememberParams, r.Remembered)
MEMORY_RECEIPTS = Rpc("memory.receipts", p.ReceiptsParams, r.Receipts)
MEMORY_TRACE = Rpc("memory.trace", p.TraceParams, r.Trace)
VAULT_BUILD = Rpc("vault.build", p.VaultBuildParams, r.VaultBuilt)
VAULT_SYNC = Rpc("vault.sync", p.VaultSyncParams, r.VaultSynced)
IMPORT_PLAN = Rpc("import.plan", p.ImportPlanParams, r.ImportPlan)
IMPORT_APPLY = Rpc("import.apply", p.ImportApplyParams, r.ImportProgress)
IMPORT_ROLLBACK = Rpc("import.rollback", p.ImportRollbackParams, r.ImportRolledBack)
IMPORT_LIST = Rpc("import.list", p.ImportListParams, r.ImportsList)
SYNC_INIT = Rpc("sync.init", s.SyncInitParams, s.SyncInitialized)
SYNC_RUN = Rpc("sync.run", s.SyncRunParams, s.SyncRan)
SYNC_STATUS = Rpc("sync.status", s.SyncStatusParams, s.SyncStatus)

CONTRACT: dict[str, Rpc[Any, Any]] = {rpc.name: rpc for rpc in (
    MEMORY_SEARCH, MEMORY_GET, INDEX_REBUILD, SUBJECTS_LIST, SUBJECTS_ADD, SUBJECTS_RENAME,
    HOOK_BEFORE_PROMPT_BUILD, HOOK_SESSION_END, HOOK_BEFORE_RESET, HOOK_GATEWAY_START,
    HOOK_TURN_FACTS, JOBS_LIST, JOBS_RETRY, BRIEFING_GENERATE, STATUS, AGENTS_REGISTER,
    AGENTS_LIST, ARTIFACTS_LIST, HOST_OFFER, MEMORY_FORGET, MEMORY_UNFORGET, MEMORY_REMEMBER,
    MEMORY_RECEIPTS, MEMORY_TRACE, VAULT_BUILD, VAULT_SYNC, IMPORT_PLAN, IMPORT_APPLY,
    IMPORT_ROLLBACK, IMPORT_LIST, SYNC_INIT, SYNC_RUN, SYNC_STATUS)}
