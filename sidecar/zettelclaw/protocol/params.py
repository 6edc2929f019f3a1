"""The params of every method, as pydantic models: the contract protocol.md documents.

Params are by name (a JSON object). Unknown names are rejected, so a typo such as ``maxresults``
is an error that names the field instead of a silently ignored option.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from typing import Annotated, Any, Literal, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

from zettelclaw.agent_ids import check_agent_id, chosen_agent
from zettelclaw.log.schema import EntryType, SessionId, Slug, TaskStatus
from zettelclaw.session_keys import Audience, ChatType, Noted, chat_type_of
from zettelclaw.subjects.registry import SubjectType

Text = Annotated[str, StringConstraints(max_length=4096)]


class Params(BaseModel):
    # strict: JSON types are taken as they are ("5" is not a number, "yes" not a boolean)
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


DAY_SECONDS = 86_400


def day_bounds(value: str, end: bool) -> float:
    """``since``/``until`` as Unix seconds. A date alone covers the whole day (UTC): as
    ``until`` it means the end of that day. A date-time without a zone is taken as UTC."""
    try:
        day = date.fromisoformat(value)
    except ValueError:
        pass
    else:  # in seconds, not datetimes: the end of 9999-12-31 is past datetime's range
        start = datetime.combine(day, time.min, UTC).timestamp()
        return start + DAY_SECONDS - 1e-6 if end else start
    parsed = datetime.fromisoformat(value)
    try:
        return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).timestamp()
    except (OverflowError, ValueError):  # 9999-12-31T23:59:59-23:00 is in year 10000 in UTC
        raise ValueError(f"out of range: {value!r}") from None


class AgentParams(Params):
    """Whose memory: ``agentId``, else the agent part of ``sessionKey`` (``agent:<id>:...``),
    else ``main`` (agent_ids.py). A malformed id, or an ``agentId`` and a key that name two
    different agents, is an invalid-params error: never a fallback to another memory."""

    agent_id: Text | None = Field(None, alias="agentId")

    @model_validator(mode="after")
    def _agent_named(self) -> AgentParams:
        self.agent()  # raises ValueError (an AgentIdError) when malformed
        return self

    def agent(self) -> str:
        return chosen_agent(self.agent_id, getattr(self, "session_key", None))


class AudienceParams(AgentParams):
    """Who will read the answer, when a host calls on behalf of an agent in a chat.

    A host passes the facts it has, raw (``isGroup``, ``chatId``, ``senderId``,
    ``senderIsOwner``); what they mean for privacy is decided once, for every method, by
    ``session_keys`` (``chat_type_of``, ``Audience``).
    """

    session_key: Text | None = Field(None, alias="sessionKey")
    chat_type: ChatType | None = Field(None, alias="chatType")
    is_group: bool | None = Field(None, alias="isGroup")
    chat_id: Text | int | None = Field(None, alias="chatId")
    sender_id: Text | int | None = Field(None, alias="senderId")
    sender_is_owner: bool | None = Field(None, alias="senderIsOwner")

    def audience(self) -> Audience:
        chat = chat_type_of(self.chat_type, self.is_group, self.chat_id, self.sender_id)
        return Audience(self.session_key, chat, self.sender_is_owner)

    def completed(self, noted: Noted | None) -> Self:
        """These params with the facts noted for the session (``hook.turnFacts``) where the
        call itself says nothing."""
        if noted is None:
            return self
        update = {name: value for name, value in (("is_group", noted.is_group),
                                                  ("chat_type", noted.chat_type),
                                                  ("sender_is_owner", noted.sender_is_owner))
                  if value is not None and getattr(self, name) is None}
        return self.model_copy(update=update) if update else self

    def restriction(self) -> str | None:
        """Why memory may not be shown to this audience, or None when it may.

        A call that names no audience at all is the owner's own (the CLI, socat, a script);
        a host answering an agent in a chat passes the chat's, and then the rules of
        ``hook.beforePromptBuild`` apply: only the owner's main private session sees memory.
        """
        named = (self.session_key, self.chat_type, self.is_group, self.chat_id, self.sender_id,
                 self.sender_is_owner)
        if all(value is None for value in named):
            return None
        return self.audience().private_reason()


class TurnFactsParams(AudienceParams):
    """``hook.turnFacts``: what the host knows of a session's turn, raw, for the calls of that
    session that come without it (``session_keys.TurnFacts``)."""

    session_key: Text = Field(alias="sessionKey")
    session_id: Text | None = Field(None, alias="sessionId")
    channel: Text | None = None


# What memory.search searches, by its name or by memory-core's (its agents pass those to the
# memory_search tool): memory = all, sessions = log, wiki = files.
CorpusName = Literal["all", "log", "files", "memory", "sessions", "wiki"]
CORPUS: dict[CorpusName, Literal["all", "log", "files"]] = {
    "all": "all", "log": "log", "files": "files", "memory": "all", "sessions": "log",
    "wiki": "files"}


class SearchParams(AudienceParams):
    # blank: no query (the filters alone list entries, newest first)
    query: Annotated[str, StringConstraints(max_length=2000, strip_whitespace=True)] | None = None
    type: EntryType | None = None
    subject: Slug | None = None
    status: TaskStatus | None = None
    session: SessionId | None = None
    since: Annotated[str, Field(max_length=40)] | None = None
    until: Annotated[str, Field(max_length=40)] | None = None
    include_replaced: bool = Field(False, alias="includeReplaced")
    max_results: int = Field(10, ge=1, le=1000, alias="maxResults")
    min_score: float = Field(0.0, ge=0.0, le=1.0, alias="minScore")
    corpus: CorpusName = "all"
    # Without a query: "time" sorts by the entries' timestamps, "log" by their place in the log.
    order: Literal["time", "log"] = "time"

    @field_validator("since", "until")
    @classmethod
    def _date(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                day_bounds(value, end=False)
                day_bounds(value, end=True)
            except ValueError:
                raise ValueError(f"not an ISO 8601 date or date-time: {value!r}") from None
        return value

    def searched(self) -> Literal["all", "log", "files"]:
        """The corpus to search, memory-core's names taken as ours."""
        return CORPUS[self.corpus]


class GetParams(AudienceParams):
    path: Annotated[str, StringConstraints(min_length=1, max_length=4096)]
    from_: int = Field(1, ge=1, alias="from")
    lines: int | None = Field(None, ge=1, le=100_000)
    # memory-core's agents name the corpus a path is in; the path alone says it here
    corpus: Literal["memory", "wiki", "all"] | None = None


class SubjectsListParams(AgentParams):
    pass


class SubjectsAddParams(AgentParams):
    slug: Slug
    type: SubjectType = "project"
    display: Annotated[str, StringConstraints(min_length=1, max_length=120,
                                              strip_whitespace=True)] | None = None


class SubjectsRenameParams(AgentParams):
    from_: Slug = Field(alias="from")
    to: Slug

    @model_validator(mode="after")
    def _differ(self) -> SubjectsRenameParams:
        if self.from_ == self.to:
            raise ValueError("from and to are the same slug")
        return self


class BeforePromptBuildParams(AudienceParams):
    session_id: Text | None = Field(None, alias="sessionId")
    channel: Text | None = None
    workspace_dir: Text | None = Field(None, alias="workspaceDir")


class StatusParams(AgentParams):
    pass


def field_errors(errors: list[Any]) -> list[dict[str, str]]:
    """pydantic's errors as ``[{field, message}]`` for the -32602 ``data``."""
    out = []
    for error in errors:
        field = ".".join(str(part) for part in error["loc"])
        message = str(error["msg"]).removeprefix("Value error, ")
        out.append({"field": field or "params", "message": message, "type": error["type"]})
    return out


# -- extraction ----------------------------------------------------------------------------------


def _millis(value: float | str | None) -> float | None:
    """A host's time as epoch milliseconds: a number (ms, or s if small) or an ISO string."""
    if value is None or isinstance(value, float | int):
        return None if value is None else float(value) * (1000 if value < 1e11 else 1)
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"not epoch milliseconds or ISO 8601: {value!r}") from None
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).timestamp() * 1000


#: a host's time (``updatedAt``, ``readAt``), read as epoch milliseconds (a float) or None
EpochMillis = Annotated[float | str | None, AfterValidator(_millis)]

Reason = Annotated[str, StringConstraints(max_length=64)]


class HookTranscriptParams(AgentParams):
    """``hook.sessionEnd`` and ``hook.beforeReset``: a stretch of conversation to extract."""

    session_id: Annotated[str, StringConstraints(min_length=1, max_length=200)] = Field(
        alias="sessionId")
    session_key: Text | None = Field(None, alias="sessionKey")
    reason: Reason | None = None
    messages: Annotated[list[Any], Field(max_length=100_000)] | None = None
    transcript_path: Text | None = Field(None, alias="transcriptPath")
    workspace_dir: Text | None = Field(None, alias="workspaceDir")
    # when the host read this transcript: the sweep leaves the session out until it is active
    # again (protocol.md, hook.gatewayStart)
    read_at: EpochMillis = Field(None, alias="readAt")
    # what the admission policy matches besides the key and the agent (extraction/admission.py)
    channel: Text | None = None
    sender_id: Text | None = Field(None, alias="senderId")

    def read_at_ms(self) -> float | None:
        return self.read_at if isinstance(self.read_at, float) else None


class GatewaySession(AgentParams):
    session_id: Annotated[str, StringConstraints(min_length=1, max_length=200)] = Field(
        alias="sessionId")
    session_key: Text | None = Field(None, alias="sessionKey")
    updated_at: EpochMillis = Field(None, alias="updatedAt")

    @model_validator(mode="after")
    def _agent_named(self) -> GatewaySession:
        return self  # one session naming no agent is skipped by name, not the whole sweep

    def updated_at_ms(self) -> float | None:
        return self.updated_at if isinstance(self.updated_at, float) else None


class GatewayStartParams(Params):
    sessions: Annotated[list[GatewaySession], Field(max_length=100_000)] = []


class JobsListParams(AgentParams):
    pass


class JobsRetryParams(AgentParams):
    job_id: Annotated[str, StringConstraints(min_length=1, max_length=80)] | None = Field(
        None, alias="jobId")


class IndexRebuildParams(AgentParams):
    pass


# -- briefing ------------------------------------------------------------------------------------


class BriefingGenerateParams(AgentParams):
    """``briefing.generate``: rewrite the generated block of the workspace's MEMORY.md."""

    workspace_dir: Annotated[str, StringConstraints(min_length=1, max_length=4096)] | None = (
        Field(None, alias="workspaceDir"))
    dry_run: bool = Field(False, alias="dryRun")


class AgentWorkspace(Params):
    agent_id: Text = Field(alias="agentId")
    workspace: Annotated[str, StringConstraints(min_length=1, max_length=4096)]

    @field_validator("agent_id")
    @classmethod
    def _id(cls, value: str) -> str:
        return check_agent_id(value)


class AgentsRegisterParams(Params):
    """``agents.register``: each agent's workspace, as the host resolves it."""

    agents: Annotated[list[AgentWorkspace], Field(max_length=1000)]


class AgentsListParams(Params):
    pass


class ArtifactsListParams(Params):
    """``artifacts.list``: the public artifacts of these agents' memories (absent: every agent
    the sidecar knows)."""

    agent_ids: Annotated[list[Text], Field(max_length=1000)] | None = Field(None, alias="agentIds")

    @field_validator("agent_ids")
    @classmethod
    def _ids(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else [check_agent_id(agent) for agent in value]


class HostClientParams(Params):
    name: Annotated[str, StringConstraints(min_length=1, max_length=100)]
    version: Annotated[str, StringConstraints(max_length=100)] | None = None


class HostEmbeddingsParams(Params):
    """The embedding provider and model a host's ``embeddings.embed`` uses: the sidecar keeps
    the vectors under ``host:<provider>/<model>`` (another one, new vectors)."""

    provider: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    model: Annotated[str, StringConstraints(min_length=1, max_length=200)]


class HostOfferParams(Params):
    """``host.offer``: what this connection's client can do for the sidecar (llm/host.py)."""

    capabilities: list[Annotated[str, StringConstraints(min_length=1, max_length=100)]] = Field(
        max_length=32)
    client: HostClientParams | None = None
    model: Text | None = None  # the model the host's completions use by default, for status
    embeddings: HostEmbeddingsParams | None = None  # with embeddings.embed: what embeds
    reason: Text | None = None  # why an offer is withdrawn (no capabilities), for status

    @model_validator(mode="after")
    def _embeddings_named(self) -> HostOfferParams:
        if "embeddings.embed" in self.capabilities and self.embeddings is None:
            raise ValueError("embeddings.embed needs embeddings: {provider, model}")
        return self


class ForgetParams(AudienceParams):
    """``memory.forget``: what to forget (all the criteria given; ``ids`` any of them), hide or
    purge, and a dry run that lists exactly what would go."""

    ids: Annotated[list[Annotated[str, StringConstraints(pattern=r"^[0-9A-Za-z_-]{12}$")]],
                   Field(min_length=1, max_length=1000)] | None = None
    session: SessionId | None = None
    subject: Slug | None = None
    text: Annotated[str, StringConstraints(min_length=3, max_length=2000)] | None = None
    purge: bool = False
    dry_run: bool = Field(False, alias="dryRun")
    edit_files: bool = Field(False, alias="editFiles")  # delete the memory files' copies too

    @model_validator(mode="after")
    def _something_named(self) -> ForgetParams:
        if not self.ids and self.session is None and self.subject is None and not self.text:
            raise ValueError("name what to forget: ids, session, subject or text")
        if self.text is not None and not self.text.strip():
            raise ValueError("text must not be only white space")
        return self


class UnforgetParams(AudienceParams):
    """``memory.unforget``: give hidden entries back."""

    ids: Annotated[list[Annotated[str, StringConstraints(pattern=r"^[0-9A-Za-z_-]{12}$")]],
                   Field(min_length=1, max_length=1000)]
    dry_run: bool = Field(False, alias="dryRun")


class RememberParams(AudienceParams):
    """``memory.remember``: one entry written now, as the owner says it."""

    type: EntryType
    content: Annotated[str, StringConstraints(min_length=1, max_length=16_384)]
    detail: Annotated[str, StringConstraints(max_length=16_384)] | None = None
    subject: Slug | None = None
    status: TaskStatus | None = None
    replaces: Annotated[str, StringConstraints(pattern=r"^[0-9A-Za-z_-]{12}$")] | None = None
    session_id: SessionId | None = Field(None, alias="sessionId")


class ReceiptsParams(AudienceParams):
    """``memory.receipts``: what each conversation wrote."""

    limit: int = Field(20, ge=1, le=200)


class TraceParams(AudienceParams):
    """``memory.trace``: what the last turns were given."""

    limit: int = Field(10, ge=1, le=100)


class VaultBuildParams(AgentParams):
    path: Text | None = None  # the vault's folder (absolute); default the memory's vault/
    from_scratch: bool = Field(False, alias="fromScratch")
    force: bool = False  # with fromScratch: move a folder holding the person's pages aside


class VaultSyncParams(AgentParams):
    path: Text | None = None


# -- import.* ------------------------------------------------------------------------------------

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
