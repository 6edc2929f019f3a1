"""``sync.*``: the params and results of one memory's sync through git (docs/14-sync.md)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints, model_validator

from zettelclaw.protocol.params import AgentParams
from zettelclaw.protocol.results import Result

Remote = Annotated[str, StringConstraints(min_length=1, max_length=4096)]


class SyncInitParams(AgentParams):
    """``sync.init``: sync this memory with ``remote`` (any git remote). ``key``: the text of
    the age key the other machines use (an encrypted memory's new machine); ``newKey``: make
    one (the first machine of an encrypted memory)."""

    remote: Remote
    key: Annotated[str, StringConstraints(max_length=4096)] | None = Field(None, repr=False)
    new_key: bool = Field(False, alias="newKey")

    @model_validator(mode="after")
    def _one_key(self) -> SyncInitParams:
        if self.key is not None and self.new_key:
            raise ValueError("give key or newKey, not both")
        return self


class SyncRunParams(AgentParams):
    """``sync.run``: one sync now (pull, then push)."""


class SyncStatusParams(AgentParams):
    """``sync.status``: no network; what the last sync left."""


class SyncInitialized(Result):
    remote: str
    machine: str
    encrypted: bool
    key_file: str | None


class SyncRan(Result):
    pulled: int
    pushed: int
    purges_applied: int
    purges_published: int
    rewritten: bool
    tries: int
    seconds: float
    remote_bytes: int


class SyncLast(Result):
    at: str
    ok: bool
    error: str | None = None
    pulled: int | None = None
    pushed: int | None = None
    seconds: float | None = None


class PurgeState(Result):
    id: str
    at: str  # when it was made: unconfirmed since then
    by: str  # the machine that made it
    ids: int
    confirmed: list[str]
    unconfirmed: list[str]


class SyncStatus(Result):
    configured: bool
    machine: str
    remote: str | None
    encrypted: bool
    machines: list[str]
    unpublished: int  # this machine's lines not on the remote yet
    last: SyncLast | None
    purges: list[PurgeState]
