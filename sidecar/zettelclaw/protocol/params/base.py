"""The base of every params model, and whose memory a call names and who will read its
answer: the rules every method's params share."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from typing import Annotated, Any, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    model_validator,
)

from zettelclaw.agent_ids import chosen_agent
from zettelclaw.errors import InvalidParamsError
from zettelclaw.session_keys import Audience, ChatType, Noted, chat_type_of

Text = Annotated[str, StringConstraints(max_length=4096)]


class Params(BaseModel):
    # strict: JSON types are taken as they are ("5" is not a number, "yes" not a boolean);
    # a model's validator is built on its first use: a CLI command builds its method's only
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, defer_build=True)


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


def field_errors(errors: list[Any]) -> list[dict[str, str]]:
    """pydantic's errors as ``[{field, message}]`` for the -32602 ``data``."""
    out = []
    for error in errors:
        field = ".".join(str(part) for part in error["loc"])
        message = str(error["msg"]).removeprefix("Value error, ")
        out.append({"field": field or "params", "message": message, "type": error["type"]})
    return out


def invalid_params(exc: ValidationError) -> InvalidParamsError:
    """A params model's refusal as the -32602 error: a summary naming each field, and the
    fields in ``data`` (the sidecar's answer, and a client's that builds the model itself)."""
    details = field_errors(exc.errors(include_url=False))
    summary = "; ".join(f"{d['field']}: {d['message']}" for d in details)
    return InvalidParamsError(f"Invalid params: {summary}", details)
