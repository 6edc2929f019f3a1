"""``import.*``: the plan, an apply's progress, a rollback, the list."""

from __future__ import annotations

from typing import Literal

from zettelclaw.protocol.results.base import Result
from zettelclaw.protocol.results.forget import Removed


class ImportProblem(Result):
    origin: str  # the file and the place
    message: str


class ImportCost(Result):
    model: str
    usd: float | None  # None: no known price for it


class ImportEstimate(Result):
    input_tokens: int
    output_tokens: int
    tokens: int
    route: Literal["anthropic", "host", "local"] | None  # the route extraction would take now
    model: str | None  # the route's model: the Anthropic one, the local one; None on the host's
    costs: list[ImportCost]
    prices: str  # where the prices come from


class ImportPlan(Result):
    kind: str
    path: str
    agent: str
    conversations: int
    messages: int
    notes: int
    total: int  # items in the source, in the date range
    already_imported: int
    already_remembered: int  # the host's sessions the live path already took, every message
    out_of_range: int
    # conversations the admission policy or the scope rules refuse, or the intake would take
    # nothing of (someone other than the owner speaks; no user message)
    out_of_scope: int
    problems: list[ImportProblem]
    estimate: ImportEstimate
    budget: int  # tokens; 0: no limit
    fits: bool  # the estimate is within the budget
    resumes: str | None  # the unfinished import an apply goes on with


class ImportProgress(Result):
    import_id: str | None  # None: nothing new to import, so no import was made
    state: Literal["running", "stopped", "done"]
    stop_reason: str | None
    total: int
    done: int
    notes: int  # entries written so far by this import
    conversations: int  # spooled for extraction so far
    skipped: int  # items not written (nothing new, out of scope, invalid)
    spooled_tokens: int
    budget: int
    problems: list[ImportProblem]


class ImportKept(Result):
    """An entry written since, not by the import, that replaced one the import wrote: it
    stays (its ``replaces`` now names an entry gone)."""

    id: str
    content: str
    replaced: str
    replaced_content: str


class ImportRolledBack(Result):
    import_id: str
    state: Literal["rolledBack"]
    entries: int  # entries purged
    removed: Removed | None  # the purge's counts (memory.forget's removed)
    kept: list[ImportKept] = []


class ImportRow(Result):
    import_id: str
    kind: str
    path: str
    agent: str
    state: Literal["running", "stopped", "done", "rollingBack", "rolledBack"]
    created_at: str
    updated_at: str
    notes: int
    conversations: int
    spooled_tokens: int
    budget: int


class ImportsList(Result):
    imports: list[ImportRow]
