"""JSON-RPC 2.0's request and response objects, as its specification defines them
(https://www.jsonrpc.org/specification): the request schema each message (or batch element) is
checked against, the request taken apart, and the two response objects.

The dispatcher (``dispatcher.py``) is built on these rather than on a JSON-RPC library:
docs/decisions/0011-libraries-and-what-is-kept.md says why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

# The specification's Request object, as a JSON Schema: applied to one request at a time (a
# batch's elements each get their own answer).
REQUEST_SCHEMA: Final[dict[str, Any]] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "description": "A JSON-RPC 2.0 request",
    "type": "object",
    "required": ["jsonrpc", "method"],
    "properties": {
        "jsonrpc": {"enum": ["2.0"]},
        "method": {"type": "string"},
        "id": {"type": ["string", "number", "null"]},
        "params": {"type": ["array", "object"]},
    },
    "additionalProperties": False,
}
REQUEST_KEYS: Final = frozenset(REQUEST_SCHEMA["properties"])


@dataclass(frozen=True)
class Request:
    """A valid request: ``notification`` when it has no ``id`` member (an ``"id": null`` is a
    call, answered with id null)."""

    method: str
    params: dict[str, Any] | list[Any]
    id: str | int | float | None
    notification: bool

    @classmethod
    def of(cls, obj: dict[str, Any]) -> Request:
        """``obj``, already checked against ``REQUEST_SCHEMA``; params default to none (``[]``)."""
        return cls(obj["method"], obj.get("params", []), obj.get("id"), "id" not in obj)


def success(result: Any, request_id: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "result": result, "id": request_id}


def error(code: int, message: str, data: Any, request_id: Any) -> dict[str, Any]:
    """An error response; ``data`` None is left out (the member is optional)."""
    body: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    return {"jsonrpc": "2.0", "error": body, "id": request_id}
