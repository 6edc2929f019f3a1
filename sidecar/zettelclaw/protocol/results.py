"""The result of every method, as pydantic models: the other half of the contract protocol.md
documents (``params.py`` is the first; ``contract.py`` pairs them by method).

Field names are snake_case here and camelCase on the wire (``startLine``, ``replacedBy``), so
mypy checks the code that fills them and protocol.md names what they send. memory-core's
fields (``path``, ``startLine``, ``endLine``, ``citation``, ``source``) are made here, from the
domain's hits, and nowhere else. A field left unset is left out of the answer; one set to None
is sent as null (so no field has a default that should be sent).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class Result(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True,
                              extra="forbid")

    def wire(self) -> dict[str, Any]:
        """The JSON object sent: camelCase, unset optional fields left out."""
        return self.model_dump(by_alias=True, exclude_unset=True)


R = TypeVar("R", bound=Result)


@dataclass(frozen=True, slots=True)
class Wire(Generic[R]):
    """A result's wire form, built directly where going through the model costs too much (a
    quick search: bench/README.md). It stands for the model ``model``, which stays the
    contract; tests/protocol/test_results.py holds the two equal over generated answers."""

    model: type[R]
    wire: dict[str, Any]


class Reason(Result):
    reason: str


class LogResult(Result):
    id: str
    timestamp: str
    type: str
    content: str
    status: str | None
    detail: str | None
    subject: str | None
    replaces: str | None
    session: str
    path: str
    start_line: int
    end_line: int
    line: int
    replaced_by: str | None
    source: Literal["log"]
    citation: str
    snippet: str
    score: float
    text_score: float | None = None
    vector_score: float | None = None
    content_truncated: bool | None = None
    detail_truncated: bool | None = None


class MemoryResult(Result):
    path: str
    start_line: int
    end_line: int
    source: Literal["memory"]
    citation: str
    snippet: str
    score: float
    text_score: float
    vector_score: float | None = None


class SearchResult(Result):
    results: list[LogResult | MemoryResult]
    mode: Literal["hybrid", "keyword", "filter", "restricted"]
    fallback: Reason | None = None
    restricted: Reason | None = None
    stale: Reason | None = None


def restricted(reason: str) -> SearchResult:
    return SearchResult(results=[], mode="restricted", restricted=Reason(reason=reason))


class PromptContext(Result):
    prepend_context: str | None


class LogEntry(Result):
    """An entry as it stands in the log (log/schema.py): its absent fields left out."""

    id: str
    timestamp: str
    type: str
    content: str
    status: str | None = None
    detail: str | None = None
    subject: str | None = None
    replaces: str | None = None
    session: str


class EntryWithChain(Result):
    """``memory.get`` of an entry id: the entry, its older versions (nearest first) and its
    newer ones up to the current one (nearest first)."""

    entry: LogEntry
    line: int
    current: bool
    replaces: list[LogEntry]
    replaced_by: list[LogEntry]


class TextSlice(Result):
    """``memory.get`` of a memory file or a session's transcript: lines of it."""

    path: str
    text: str
    from_: int = Field(alias="from")
    lines: int
    total_lines: int
    truncated: bool


class SubjectInfo(Result):
    slug: str
    display: str
    type: str


class SubjectRow(Result):
    slug: str
    display: str
    type: str | None
    registered: bool
    entries: int
    last_entry: str | None


class SubjectsList(Result):
    subjects: list[SubjectRow]


class SubjectAdded(Result):
    subject: SubjectInfo


class SubjectRenamed(Result):
    from_: str = Field(alias="from")
    to: str
    merged: bool
    entries_rewritten: int
    subject: SubjectInfo


class Rebuilt(Result):
    entries: int
    invalid_lines: int
    memory_files: int
    chunks: int
    seconds: float


# -- hook.* ------------------------------------------------------------------------------------

class Intake(Result):
    """``hook.sessionEnd`` and ``hook.beforeReset``: a new job, or why there is none."""

    accepted: bool
    job_id: str | None = None
    skipped: str | None = None
    messages: int | None = None


class FactsNoted(Result):
    """``hook.turnFacts``: the facts are noted for the session's next calls."""

    noted: bool


class After(Result):
    key: str | None
    timestamp: str | None


class SweepSession(Result):
    session_id: str
    after: After | None
    # the agent whose memory asks for it: the host sends it to that one (a session the host
    # lists under two agents is asked for by each memory on its own)
    agent_id: str | None = None


class SweepSkip(Result):
    session_id: str
    reason: str


class SweepError(Result):
    agent_id: str
    message: str


class Sweep(Result):
    """``hook.gatewayStart``, over every agent's memory."""

    sessions: list[SweepSession]
    skipped: list[SweepSkip]
    retried: list[str]
    errors: list[SweepError] = []


# -- jobs.* ------------------------------------------------------------------------------------

class JobCounts(Result):
    pending: int
    waiting: int
    failed: int


class HostClient(Result):
    name: str
    version: str | None = None


class Host(Result):
    """A connected host that offers ``llm.complete`` (``host.offer``)."""

    client: HostClient
    model: str | None = None
    unusable: str | None = None  # its words, when its model said it cannot be asked now


class Route(Result):
    """The model route: the setting, the route the next job takes (None: none can be asked)
    and why, and the hosts that offer ``llm.complete``."""

    setting: Literal["auto", "anthropic", "host", "local"]
    active: Literal["anthropic", "host", "local"] | None
    reason: str
    anthropic_model: str
    host_model: str
    hosts: list[Host]
    local_url: str | None = None  # extraction.localUrl: an OpenAI-compatible server
    local_model: str | None = None
    speeds: dict[str, float] | None = None  # output tokens a second, by route, as measured


class Admission(Result):
    channels: list[str]
    senders: list[str]
    session_keys: list[str]
    agents: list[str]
    refused: int
    refused_sessions: int


class Transcripts(Result):
    files: int
    bytes: int
    oldest: str | None
    retention_days: int


class Budget(Result):
    """Model tokens against the budgets (``budget.*``, llm/usage.py): today's use (UTC) of
    background work (extraction, the briefing, imports' extraction), by purpose."""

    daily_tokens: int  # the day's limit; 0: none
    import_tokens: int  # an import's default limit; 0: none
    day: str
    used_today: int
    by_purpose: dict[str, int]
    calls: int
    spent: bool  # the day's budget is spent: model calls wait for the next day


class BeforeInstall(Result):
    """The memory's start (``since``) and the sessions the last gateway sweep left out as older
    than it, for ``zettelclaw import openclaw`` to take (docs/13-import.md)."""

    since: str | None
    sessions: int
    at: str | None
    hint: str | None


class ExtractionOutcome(Result):
    """What became of one job's model reply (kept after the job ends): JSON objects read,
    entries written, what was dropped and why, whether the reply stopped at its token limit
    (``cut``, after ``continued`` calls to go on; ``looping``: it was repeating itself), or why
    no entry could be read from it (``failed``); ``note`` says it in one sentence."""

    at: str | None
    job_id: str | None
    session_id: str | None
    route: str | None
    objects: int
    entries: int
    appended: int
    dropped: int
    duplicates: int
    held: int
    reasons: list[str]
    cut: bool
    continued: int
    looping: bool
    failed: str | None
    note: str


class ExtractionStatus(Result):
    """``status``'s ``extraction``, also in ``jobs.list``."""

    model: str
    api_key: bool
    base_url: str | None
    jobs: JobCounts
    waiting_for: str | None
    concurrency: int
    route: Route
    admission: Admission
    transcripts: Transcripts
    budget: Budget
    before_install: BeforeInstall
    recent: list[ExtractionOutcome]  # the last jobs' outcomes, newest last


class JobSummary(Result):
    job_id: str
    session_id: str
    state: Literal["pending", "waiting", "failed"]
    trigger: str
    created_at: str
    messages: int
    attempts: int
    last_error: str | None
    has_result: bool
    route: str | None
    not_before: float | None
    import_id: str | None  # an import's job (zettelclaw import): its id


class JobsList(Result):
    jobs: list[JobSummary]
    extraction: ExtractionStatus


class Retried(Result):
    retried: list[str]


# -- briefing.generate ---------------------------------------------------------------------

class SectionCount(Result):
    shown: int
    total: int


class BriefingModel(Result):
    """Whether the model answered (``used``), what it gave, why it was not asked (``skipped``)
    or what failed (``error``)."""

    used: bool
    summaries: int
    contradictions: int
    error: str | None = None
    skipped: str | None = None


class Briefing(Result):
    path: str
    dry_run: bool
    changed: bool
    written: bool
    block: str
    lines: int
    cut: bool
    sections: dict[str, SectionCount]
    model: BriefingModel
    memory_md_lines: int
    warnings: list[str]


# -- agents.*, host.offer ------------------------------------------------------------------

class AgentRow(Result):
    agent_id: str
    memory: str
    open: bool
    home: str
    workspace: str | None
    log_bytes: int
    entries: int | None


class AgentsList(Result):
    agents: list[AgentRow]


class Artifact(Result):
    """One public artifact: a file ``path`` inside ``root`` (both checked by the sidecar)."""

    kind: Literal["briefing", "vault-page", "log-export"]
    root: str
    path: str
    absolute_path: str
    content_type: Literal["markdown", "json"]
    memory: str
    agent_ids: list[str]  # the agents whose memory it is (several when agents.share names them)


class ArtifactsList(Result):
    published: bool  # artifacts.publish: off, nothing is listed
    reason: str | None = None  # why nothing is listed
    artifacts: list[Artifact]
    left_out: int  # links out of their root, vault pages past the bound


class Refusal(Result):
    """A workspace ``agents.register`` did not record, and why."""

    agent_id: str
    workspace: str
    reason: str
    owner: str | None = None
    owner_workspace: str | None = None
    relation: Literal["same", "inside", "contains"] | None = None


class AgentsRegistered(Result):
    changed: list[str]
    refused: list[Refusal] | None = None
    agents: list[AgentRow]
    agents_total: int


class Offered(Result):
    accepted: list[str]
    ignored: list[str]
    route: Route


# -- status --------------------------------------------------------------------------------

class Paths(Result):
    log: str
    subjects: str
    state: str
    index: str


class LogStatus(Result):
    bytes: int
    lines: int
    unread_tail_bytes: int


class EntryCounts(Result):
    total: int
    by_type: dict[str, int]
    replaced: int
    current: int


class InvalidLine(Result):
    line: int
    reason: str
    excerpt: str


class InvalidLines(Result):
    count: int
    first: list[InvalidLine]


class IndexStatus(Result):
    bytes: int
    indexing: bool
    progress: list[int] | None


class EmbeddingHost(Result):
    """A connected host that offers ``embeddings.embed`` (``host.offer``), and what embeds."""

    client: HostClient
    provider: str
    model: str


class SemanticStatus(Result):
    on: bool
    reason: str | None
    embeddings: Literal["local", "http", "host"]  # search.embeddings: where vectors come from
    hosts: list[EmbeddingHost]  # the connected hosts that offer embeddings.embed
    model: str | None = None
    covered_through_line: int | None = None
    lines: int | None = None
    state: Literal["loading", "catching up", "ready", "off"]


class SearchStatus(Result):
    memory_files: int
    chunks: int
    semantic: SemanticStatus
    candidate_window: int


class BriefingLastResult(Result):
    """The last run as state.json keeps it: what it wrote, or (``ok`` false) what failed."""

    ok: bool
    trigger: str | None = None
    path: str | None = None
    changed: bool | None = None
    lines: int | None = None
    cut: bool | None = None
    model: BriefingModel | None = None
    error: str | None = None


class BriefingStatus(Result):
    schedule: str
    timezone: str
    last_run: str | None
    last_result: BriefingLastResult | None
    next_run: str | None
    model: str | None
    memory_md: str | None
    memory_md_lines: int | None
    warnings: list[str]


class ServerStatus(Result):
    """``status``'s ``server``: the sidecar's socket, or (the CLI without a sidecar) the mode
    and the socket it tried."""

    socket: str | None = None
    version: str | None = None
    uptime_seconds: float | None = None
    max_message_bytes: int | None = None
    mode: str | None = None
    tried_socket: str | None = None
    # a sentence when the sidecar before this one died without stopping (serve.serve_lock)
    previous_exit: str | None = None


class MemoryStatus(Result):
    """One memory's part of ``status`` (also ``zettelclaw status`` without a sidecar)."""

    version: str
    pid: int
    uptime_seconds: float
    home: str
    workspace: str
    paths: Paths
    log: LogStatus
    entries: EntryCounts
    invalid_lines: InvalidLines
    subjects: int
    search: SearchStatus
    index: IndexStatus


class WorkspaceConflict(Result):
    agents: list[str]
    workspaces: list[str]
    relation: Literal["same", "inside", "contains"]
    configured: bool


class Status(MemoryStatus):
    agent: str
    memory: str
    extraction: ExtractionStatus
    briefing: BriefingStatus
    agents: list[AgentRow]
    agents_total: int
    workspace_conflicts: list[WorkspaceConflict]
    server: ServerStatus


# -- memory.forget, memory.unforget, memory.remember --------------------------------------

class ForgotEntry(Result):
    id: str
    line: int
    type: str
    session: str
    subject: str | None
    content: str  # cut to 160 characters
    hidden: bool  # hidden before this call


class RemovedLog(Result):
    lines: int
    bytes: int


class RemovedFiles(Result):
    files: int
    bytes: int


class RemovedSpool(Result):
    jobs: int
    entries: int


class RemovedVault(Result):
    pages: int
    lines: int


class RemovedIndex(Result):
    rows: int
    vectors: int


class Removed(Result):
    """What a purge took off the disk, per place; a dry run names the transcripts it would
    delete instead."""

    log: RemovedLog | None = None
    transcripts: RemovedFiles | list[str] | None = None
    spool: RemovedSpool | None = None
    vault: RemovedVault | None = None
    index: RemovedIndex | None = None
    seconds: float | None = None


class FileCopy(Result):
    """A line of the workspace's memory files that holds forgotten text (the person's file:
    not edited by a forget, and found by search until it is)."""

    path: str  # relative to the workspace: MEMORY.md, memory/NAME.md
    line: int
    text: str  # cut to 160 characters
    deleted: bool = False  # taken out of the file (editFiles); else still there


class Forgot(Result):
    """``memory.forget`` and ``memory.unforget``: what went (or, on a dry run, would go)."""

    action: Literal["hide", "purge", "unhide"]
    dry_run: bool
    by: str
    entries: list[ForgotEntry]
    changed: int  # entries hidden, purged or given back by this call (would be, on a dry run)
    removed: Removed | None = None  # purge: what left the disk, counted per place
    briefing: bool | None = None  # the MEMORY.md block was written again
    # hide and purge: the memory files' lines that still hold the text (at most 50, then 51)
    in_memory_files: list[FileCopy] | None = None


class Remembered(Result):
    """``memory.remember``: the receipt."""

    id: str
    line: int
    entry: LogEntry
    # true: a current entry of this session had the same text, type and subject; nothing was
    # written, and this is that entry
    existing: bool = False


class ReceiptEntry(Result):
    id: str
    type: str | None  # None: no longer in recall (hidden, purged, replaced away)
    content: str | None
    present: bool


class Conversation(Result):
    session_id: str | None
    source: str | None  # "extraction" or "remember"
    job_id: str | None
    at: str | None
    told: bool
    entries: list[ReceiptEntry]


class Receipts(Result):
    """``memory.receipts``: what each conversation wrote, newest first."""

    conversations: list[Conversation]


class TraceItem(Result):
    """One thing a turn was given: the handoff (``id``) or the receipt line (``ids``)."""

    kind: Literal["handoff", "receipt"]
    id: str | None = None
    ids: list[str] | None = None
    chars: int


class TraceTurn(Result):
    at: str
    session_key: str | None
    session_id: str | None
    items: list[TraceItem]
    chars: int
    why: str


class Trace(Result):
    """``memory.trace``: what the last turns were given before the prompt."""

    turns: list[TraceTurn]


# -- vault.* -------------------------------------------------------------------------------

class SkippedPage(Result):
    page: str
    reason: str


class VaultBuilt(Result):
    vault: str
    entries: int
    lines_added: int
    pages_created: int
    pages_updated: int
    skipped_pages: list[SkippedPage]
    moved_aside: str | None
    seconds: float


class VaultReceipt(Result):
    """What became of one edited line of a page."""

    page: str
    line: str
    of: str  # the id the line shows
    action: Literal["done", "reopen", "correct", "hide", "conflict", "none", "add"]
    applied: bool
    replaces: str | None = None
    entry: LogEntry | None = None  # the entry appended
    hidden: list[str] | None = None  # a hide: the ids hidden now
    reason: str | None = None  # when not applied


class VaultSynced(Result):
    vault: str
    receipts: list[VaultReceipt]  # one per edited line
    corrections: int
    briefing: bool | None = None  # after a hide: the MEMORY.md block was written again


# -- import.* ------------------------------------------------------------------------------------

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
