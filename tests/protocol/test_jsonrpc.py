"""protocol/jsonrpc.py: JSON-RPC 2.0's request schema and objects, checked against the
specification's own examples (https://www.jsonrpc.org/specification#examples)."""

from __future__ import annotations

from typing import Any

import pytest

from zettelclaw.protocol import dispatcher, jsonrpc

VALID = [
    {"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1},
    {"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3},
    {"jsonrpc": "2.0", "method": "update", "params": [1, 2, 3, 4, 5]},  # a notification
    {"jsonrpc": "2.0", "method": "foobar"},
    {"jsonrpc": "2.0", "method": "get_data", "id": "9"},
    {"jsonrpc": "2.0", "method": "m", "id": None},
    {"jsonrpc": "2.0", "method": "m", "id": 1.5},
]
INVALID: list[Any] = [
    {"jsonrpc": "2.0", "method": 1, "params": "bar"},  # the specification's invalid request
    {"foo": "boo"},
    {"jsonrpc": "1.0", "method": "m", "id": 1},
    {"jsonrpc": "2.0", "method": "m", "params": "x", "id": 1},
    {"jsonrpc": "2.0", "method": "m", "id": [1]},
    {"jsonrpc": "2.0", "method": "m", "id": True},
    {"jsonrpc": "2.0", "method": "m", "id": 1, "extra": 0},
    {"method": "m", "id": 1},
    [{"jsonrpc": "2.0", "method": "m"}],  # a batch is taken apart before the schema
    1,
]


@pytest.mark.parametrize("obj", VALID)
def test_the_schema_accepts_the_specifications_requests(obj: dict[str, Any]) -> None:
    assert dispatcher._validator.is_valid(obj)


@pytest.mark.parametrize("obj", INVALID)
def test_the_schema_refuses_what_is_not_a_request(obj: Any) -> None:
    assert not dispatcher._validator.is_valid(obj)


def test_a_request_without_an_id_is_a_notification_and_an_id_null_is_not() -> None:
    call = jsonrpc.Request.of({"jsonrpc": "2.0", "method": "m", "params": {"a": 1}, "id": 7})
    assert call == jsonrpc.Request("m", {"a": 1}, 7, notification=False)
    notification = jsonrpc.Request.of({"jsonrpc": "2.0", "method": "m"})
    assert notification.notification
    assert notification.params == []
    null_id = jsonrpc.Request.of({"jsonrpc": "2.0", "method": "m", "id": None})
    assert not null_id.notification
    assert null_id.id is None


def test_the_responses_are_the_specifications_objects() -> None:
    assert jsonrpc.success("pong", "x") == {"jsonrpc": "2.0", "result": "pong", "id": "x"}
    assert jsonrpc.success(None, 1) == {"jsonrpc": "2.0", "result": None, "id": 1}
    assert jsonrpc.error(-32600, "Invalid request", None, 3) == {
        "jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid request"}, "id": 3}
    assert jsonrpc.error(-32602, "Invalid params", [1], None) == {
        "jsonrpc": "2.0", "error": {"code": -32602, "message": "Invalid params", "data": [1]},
        "id": None}
