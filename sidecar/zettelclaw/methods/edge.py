"""The edge's two crossings: the host's facts in (``heard``), and the domain's dataclasses
(snake_case) out as the protocol's result models (camelCase on the wire, ``from_domain``).

The domain names its fields as the result models do, so a model is built from a dataclass by
attribute (``from_attributes``), nested dataclasses included. A None the domain gives for a field
the model leaves out when unknown (an optional field whose default is None) is left out, as a
handler that builds the model by hand leaves it unset; a field without a default is sent, null
or not.
"""

from __future__ import annotations

import time
from typing import Any, TypeVar

from pydantic import BaseModel

from zettelclaw.agents.pool import Agents
from zettelclaw.errors import RestrictedError
from zettelclaw.protocol.params import AudienceParams
from zettelclaw.protocol.results import Result

R = TypeVar("R", bound=Result)


A = TypeVar("A", bound=AudienceParams)


def heard(agents: Agents, params: A) -> A:
    """The params of a call on behalf of a chat, with what the host said of the session's turn
    on a call of its own (``hook.turnFacts``) where this call says nothing."""
    session_id = getattr(params, "session_id", None)
    return params.completed(agents.turn_facts.of(params.session_key, session_id,
                                                 time.monotonic()))


def refuse_restricted(agents: Agents, params: AudienceParams, *, changing: bool = False
                      ) -> None:
    """RestrictedError when memory may not be shown to the call's chat (``changing``: changed
    from it), by the rule of ``AudienceParams.restriction`` and what the host said of the turn."""
    reason = heard(agents, params).restriction()
    if reason is not None:
        what = "cannot be changed from" if changing else "is not available in"
        raise RestrictedError(f"memory {what} this chat: {reason}", {"reason": reason})


def from_domain(model: type[R], value: object) -> R:
    built = model.model_validate(value, from_attributes=True)
    _unset_unknown(built)
    return built


def _unset_unknown(value: Any) -> None:
    if isinstance(value, BaseModel):
        fields = type(value).model_fields
        unknown = {name for name, field in fields.items()
                   if not field.is_required() and field.default is None
                   and getattr(value, name) is None}
        object.__setattr__(value, "__pydantic_fields_set__",
                           value.model_fields_set - unknown)
        for name in fields:
            _unset_unknown(getattr(value, name))
    elif isinstance(value, list):
        for item in value:
            _unset_unknown(item)
    elif isinstance(value, dict):
        for item in value.values():
            _unset_unknown(item)
