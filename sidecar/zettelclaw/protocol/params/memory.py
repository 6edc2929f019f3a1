"""The params of the memory's reads and writes: ``memory.*``, ``subjects.*``,
``hook.beforePromptBuild``, ``status``, ``index.rebuild``."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

from zettelclaw.log.schema import EntryType, SessionId, Slug, TaskStatus
from zettelclaw.protocol.params.base import AgentParams, AudienceParams, Text, day_bounds
from zettelclaw.subjects.registry import SubjectType

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


class IndexRebuildParams(AgentParams):
    pass


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
