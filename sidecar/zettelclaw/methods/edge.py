"""The edge's two crossings: the host's facts in (``heard``), and the domain's dataclasses
(snake_case) out as the protocol's result models (camelCase on the wire, ``from_domain``).

The domain names its fields as the result models do, field for field: ``from_domain`` holds
each dataclass to its model when it crosses, and tests/methods/test_edge.py holds every pair the
handlers use without a call.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from types import UnionType
from typing import Any, TypeVar, Union, get_args, get_origin

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
    """The result model ``model`` of the domain's ``value``.

    ``value`` is a dataclass whose fields are the model's, by name, nested dataclasses
    included (``mirror``); a difference is a TypeError naming it, so a field renamed on one
    side fails the call and tests/methods/test_edge.py instead of leaving the answer unnoticed. A
    mapping (a log entry) is taken as it is. A None the domain gives for a field the model
    leaves out when unknown (an optional field whose default is None) is left out, as a handler
    that builds the model by hand leaves it unset; a field without a default is sent, null or
    not.
    """
    return model.model_validate(_data(model, value))


def mirror(model: type[BaseModel], domain: type) -> None:
    """TypeError unless every field of the domain's type ``domain`` (a dataclass, or a model
    of the state files) is one of ``model`` and every field ``model`` requires is one of
    ``domain`` (one with a default the handler may fill)."""
    if (model, domain) in _MIRRORED:
        return
    names = domain_fields(domain) or []
    missing = sorted(name for name, field in model.model_fields.items()
                     if field.is_required() and name not in names)
    extra = sorted(set(names) - set(model.model_fields))
    if missing or extra:
        raise TypeError(f"{domain.__qualname__} does not mirror the result model "
                        f"{model.__qualname__}: the model's {missing} missing, "
                        f"its own {extra} not in the model")
    _MIRRORED.add((model, domain))


def domain_fields(kind: type) -> list[str] | None:
    """The fields of a domain type: a dataclass's, a pydantic model's; None for another type."""
    if is_dataclass(kind):
        return [f.name for f in fields(kind)]
    if issubclass(kind, BaseModel):
        return list(kind.model_fields)
    return None


_MIRRORED: set[tuple[type[BaseModel], type]] = set()  # the pairs found equal


def _data(annotation: Any, value: Any) -> Any:
    """``value`` as the data of ``annotation`` (a model, a list or dict of them, a union)."""
    members = _members(annotation)
    models = [m for m in members if isinstance(m, type) and issubclass(m, BaseModel)]
    names = None if isinstance(value, type) else domain_fields(type(value))
    if names is not None:
        model = next((m for m in models if set(names) <= set(m.model_fields)),
                     models[0] if models else None)
        if model is None:
            raise TypeError(f"{type(value).__qualname__} where no result model is expected")
        mirror(model, type(value))
        return _model_data(model, {name: getattr(value, name) for name in names})
    if isinstance(value, Mapping):
        if models:
            return _model_data(models[0], value)
        inner = next((get_args(m)[1] for m in members if get_origin(m) is dict), Any)
        return {key: _data(inner, item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        inner = next((get_args(m)[0] for m in members if get_origin(m) in (list, tuple)), Any)
        return [_data(inner, item) for item in value]
    return value


def _model_data(model: type[BaseModel], value: Mapping[str, Any]) -> dict[str, Any]:
    out = {}
    for key, item in value.items():
        field = model.model_fields.get(key) or next(
            (f for f in model.model_fields.values() if f.alias == key), None)
        if field is None:
            out[key] = item  # the model says it is not its field (extra="forbid")
        elif not (item is None and not field.is_required() and field.default is None):
            out[key] = _data(field.annotation, item)
    return out


def _members(annotation: Any) -> list[Any]:
    """The types a union is made of (not None), or the annotation itself."""
    if get_origin(annotation) in (Union, UnionType):
        return [m for arg in get_args(annotation) for m in _members(arg)]
    return [] if annotation is type(None) else [annotation]
