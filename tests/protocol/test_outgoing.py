"""The sidecar's own requests and the replies to them, as bytes and objects (no I/O)."""

from __future__ import annotations

import orjson

from zettelclaw.errors import HostModelUnavailableError, InternalError
from zettelclaw.protocol.outgoing import Reply, as_reply, request_line


def test_a_request_is_one_json_rpc_line_with_a_string_id() -> None:
    line = request_line("zc-3", "llm.complete", {"maxTokens": 5})
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    assert orjson.loads(line) == {"jsonrpc": "2.0", "id": "zc-3", "method": "llm.complete",
                                  "params": {"maxTokens": 5}}


def test_a_result_and_an_error_are_replies() -> None:
    assert as_reply({"jsonrpc": "2.0", "id": "zc-1", "result": {"text": "hi"}}) == Reply(
        "zc-1", result={"text": "hi"})
    reply = as_reply({"jsonrpc": "2.0", "id": "zc-2",
                      "error": {"code": -32013, "message": "no model", "data": {"x": 1}}})
    assert reply is not None
    assert isinstance(reply.error, HostModelUnavailableError)
    assert (reply.error.message, reply.error.data) == ("no model", {"x": 1})
    assert as_reply({"jsonrpc": "2.0", "id": "zc-4", "result": None}) == Reply("zc-4")


def test_requests_notifications_and_junk_are_not_replies() -> None:
    for message in [
        {"jsonrpc": "2.0", "id": "zc-1", "method": "status"},  # a request with a string id
        {"jsonrpc": "2.0", "method": "status"},
        {"jsonrpc": "2.0", "id": 7, "result": 1},  # a numeric id: never one of the sidecar's
        {"jsonrpc": "2.0", "id": "zc-1"},  # neither result nor error
        {"jsonrpc": "2.0", "id": "zc-1", "result": 1, "error": {}},  # both
        [{"jsonrpc": "2.0", "id": "zc-1", "result": 1}],  # a batch: the sidecar sends none
        "text", None, 3,
    ]:
        assert as_reply(message) is None, message


def test_a_malformed_error_object_is_still_an_error() -> None:
    reply = as_reply({"jsonrpc": "2.0", "id": "zc-1", "error": "boom"})
    assert reply is not None
    assert isinstance(reply.error, InternalError)
