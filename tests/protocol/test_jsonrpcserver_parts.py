"""The parts of jsonrpcserver that protocol/dispatcher.py uses outside the library's public API
(its docstring says why): each is checked here for what the dispatcher relies on, so that an
upgrade that moves or changes one fails here, by name, rather than in a wrong answer on the
socket."""

from __future__ import annotations

from importlib.metadata import version

from jsonrpcserver.dispatcher import create_request
from jsonrpcserver.main import schema
from jsonrpcserver.response import (
    ErrorResponse,
    SuccessResponse,
    serialize_error,
    serialize_success,
)
from jsonrpcserver.sentinels import NODATA, NOID

from zettelclaw.protocol import dispatcher


def test_the_version_is_the_one_these_parts_were_read_from() -> None:
    assert version("jsonrpcserver") == "5.0.9", (
        "jsonrpcserver changed: read protocol/dispatcher.py's docstring, check each part below "
        "against the new version, then change the pin in pyproject.toml and here")


def test_the_request_schema_has_a_request_definition_with_its_properties() -> None:
    request = schema["definitions"]["request"]
    assert set(request["properties"]) == {"jsonrpc", "method", "params", "id"}
    assert set(request["required"]) == {"jsonrpc", "method"}
    assert frozenset(request["properties"]) == dispatcher._REQUEST_KEYS
    assert dispatcher._validator.is_valid({"jsonrpc": "2.0", "method": "status", "id": 1})
    assert not dispatcher._validator.is_valid({"jsonrpc": "2.0", "method": 1, "id": 1})
    assert not dispatcher._validator.is_valid([{"jsonrpc": "2.0", "method": "status"}])


def test_create_request_gives_method_params_and_id_or_noid() -> None:
    call = create_request({"jsonrpc": "2.0", "method": "m", "params": {"a": 1}, "id": 7})
    assert (call.method, call.params, call.id) == ("m", {"a": 1}, 7)
    notification = create_request({"jsonrpc": "2.0", "method": "m"})
    assert notification.id is NOID
    assert notification.params == []
    assert create_request({"jsonrpc": "2.0", "method": "m", "id": None}).id is None


def test_the_serializers_give_json_rpc_response_objects() -> None:
    # SuccessResponse annotates its result as str; it carries any JSON value, as the dispatcher
    # gives it
    assert serialize_success(SuccessResponse("pong", "x")) == {
        "jsonrpc": "2.0", "result": "pong", "id": "x"}
    assert serialize_error(ErrorResponse(-32600, "Invalid request", NODATA, 3)) == {
        "jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid request"}, "id": 3}
    assert serialize_error(ErrorResponse(-32602, "Invalid params", [1], None)) == {
        "jsonrpc": "2.0", "error": {"code": -32602, "message": "Invalid params", "data": [1]},
        "id": None}
