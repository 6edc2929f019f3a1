"""The dispatcher with no socket: JSON-RPC 2.0 rules, params errors, method failures.

First over a small table of test methods, then over the real table (``build_methods``) on a
Memory in temporary directories. ``test_server.py`` repeats the essentials over a real socket.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import trio
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field

from tests.conftest import entry
from tests.direct import open_pool
from tests.timing import scaled
from zettelclaw.agent_ids import MAIN
from zettelclaw.agents.pool import Agents
from zettelclaw.app import App
from zettelclaw.errors import SubjectNotFoundError
from zettelclaw.home import Home
from zettelclaw.methods import build_methods
from zettelclaw.protocol import dispatcher as dispatcher_module
from zettelclaw.protocol.dispatcher import Dispatcher, Method, plainly_valid


class EchoParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str
    times: int = Field(1, ge=1, le=3)


class NoParams(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RecordParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    value: int


class MethodTable:
    """Test methods; ``calls`` records what ran, so notifications can be seen to run."""

    def __init__(self) -> None:
        self.calls: list[Any] = []
        self.first_started = trio.Event()
        self.second_done = trio.Event()

    def methods(self) -> dict[str, Method]:
        async def echo(p: EchoParams) -> str:
            return p.text * p.times

        async def record(p: RecordParams) -> int:
            self.calls.append(p.value)
            return p.value

        async def fail(_: NoParams) -> None:
            self.calls.append("fail")
            raise RuntimeError("kaboom")

        async def missing(_: NoParams) -> None:
            raise SubjectNotFoundError("no subject 'ghost'", {"slug": "ghost"})

        async def first(_: NoParams) -> str:
            self.first_started.set()
            await self.second_done.wait()  # only returns if ``second`` runs meanwhile
            return "first"

        async def second(_: NoParams) -> str:
            await self.first_started.wait()
            self.second_done.set()
            return "second"

        return {"echo": Method(EchoParams, echo), "record": Method(RecordParams, record),
                "fail": Method(NoParams, fail), "missing": Method(NoParams, missing),
                "first": Method(NoParams, first), "second": Method(NoParams, second)}


@pytest.fixture
def table() -> MethodTable:
    return MethodTable()


@pytest.fixture
def dispatcher(table: MethodTable) -> Dispatcher:
    return Dispatcher(table.methods())


def req(method: str, params: Any = None, id: Any = 1) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    if id is not ...:
        message["id"] = id
    return message


def note(method: str, params: Any = None) -> dict[str, Any]:
    return req(method, params, id=...)


async def send(dispatcher: Dispatcher, message: Any) -> Any:
    """Dispatch ``message`` (bytes, or a value encoded as JSON); the decoded response or None."""
    raw = message if isinstance(message, bytes) else orjson.dumps(message)
    response = await dispatcher.dispatch(raw)
    if response is None:
        return None
    assert response.endswith(b"\n")
    assert response.count(b"\n") == 1  # exactly one line
    return orjson.loads(response)


def error_code(response: dict[str, Any]) -> int:
    assert "result" not in response
    code: int = response["error"]["code"]
    return code


# -- the request object ----------------------------------------------------------------------


async def test_a_call_returns_its_result_with_its_id(dispatcher: Dispatcher) -> None:
    assert await send(dispatcher, req("echo", {"text": "ab", "times": 2}, id=7)) == {
        "jsonrpc": "2.0", "result": "abab", "id": 7}
    assert (await send(dispatcher, req("echo", {"text": "x"}, id="req-1")))["id"] == "req-1"


@pytest.mark.parametrize("raw", [b"{", b'{"jsonrpc": "2.0", "method": "echo",}', b"not json",
                                 b"\xff\xfe{}", b'{"a":1} trailing'])
async def test_bad_json_is_a_parse_error_with_null_id(dispatcher: Dispatcher, raw: bytes) -> None:
    response = await send(dispatcher, raw)
    assert error_code(response) == -32700
    assert response["id"] is None
    assert response["jsonrpc"] == "2.0"


@pytest.mark.parametrize("obj", [1, "echo", None, True, {}, {"method": "echo"},
                                 {"jsonrpc": "1.0", "method": "echo", "id": 1},
                                 {"jsonrpc": 2.0, "method": "echo", "id": 1},
                                 {"jsonrpc": "2.0", "id": 1},
                                 {"jsonrpc": "2.0", "method": 5, "id": 1},
                                 {"jsonrpc": "2.0", "method": "echo", "id": {"a": 1}},
                                 {"jsonrpc": "2.0", "method": "echo", "id": True},
                                 {"jsonrpc": "2.0", "method": "echo", "params": "text", "id": 1},
                                 {"jsonrpc": "2.0", "method": "echo", "id": 1, "extra": 0}])
async def test_invalid_request_objects(dispatcher: Dispatcher, obj: Any) -> None:
    response = await send(dispatcher, obj)
    assert error_code(response) == -32600
    assert isinstance(response["error"]["data"], str)  # what is wrong, for a person


async def test_an_invalid_request_keeps_a_usable_id(dispatcher: Dispatcher) -> None:
    assert (await send(dispatcher, {"jsonrpc": "2.0", "id": 9}))["id"] == 9
    assert (await send(dispatcher, {"jsonrpc": "2.0", "id": True, "method": "x"}))["id"] is None
    assert (await send(dispatcher, [1]))[0]["id"] is None


async def test_empty_batch_is_one_invalid_request(dispatcher: Dispatcher) -> None:
    response = await send(dispatcher, [])
    assert isinstance(response, dict)
    assert error_code(response) == -32600
    assert response["id"] is None


# -- batches ---------------------------------------------------------------------------------


async def test_each_invalid_batch_element_gets_its_own_error(dispatcher: Dispatcher) -> None:
    response = await send(dispatcher, [1, 2, 3])
    assert isinstance(response, list)
    assert len(response) == 3
    assert [error_code(r) for r in response] == [-32600] * 3
    assert [r["id"] for r in response] == [None] * 3


async def test_mixed_batch_answers_only_the_calls(dispatcher: Dispatcher,
                                                  table: MethodTable) -> None:
    response = await send(dispatcher, [
        req("echo", {"text": "hi"}, id=1),
        note("record", {"value": 42}),
        {"jsonrpc": "2.0", "method": 1, "id": 3},
        req("missing", id="m"),
        "junk",
    ])
    assert isinstance(response, list)
    by_id = {r["id"]: r for r in response if r["id"] is not None}
    assert by_id[1]["result"] == "hi"
    assert error_code(by_id[3]) == -32600
    assert error_code(by_id["m"]) == -32005
    assert len(response) == 4  # no response for the notification
    assert [error_code(r) for r in response if r["id"] is None] == [-32600]  # "junk"
    assert table.calls == [42]  # the notification ran


async def test_batch_of_notifications_gets_no_response(dispatcher: Dispatcher,
                                                       table: MethodTable) -> None:
    batch = [note("record", {"value": 1}), note("record", {"value": 2}), note("fail"),
             note("nope"), note("record", {"value": "x"})]
    assert await dispatcher.dispatch(orjson.dumps(batch)) is None
    assert sorted(map(str, table.calls)) == ["1", "2", "fail"]


async def test_a_batch_of_one_is_answered_with_a_list(dispatcher: Dispatcher) -> None:
    assert await send(dispatcher, [req("echo", {"text": "a"})]) == [
        {"jsonrpc": "2.0", "result": "a", "id": 1}]


async def test_batch_elements_run_concurrently(dispatcher: Dispatcher) -> None:
    # ``first`` returns only once ``second`` has run: run one after the other, they would hang.
    with trio.fail_after(scaled(10)):  # a deadlock guard, not a timing check
        response = await send(dispatcher, [req("first", id=1), req("second", id=2)])
    assert {r["id"]: r["result"] for r in response} == {1: "first", 2: "second"}


# -- notifications ---------------------------------------------------------------------------


async def test_notification_runs_and_gets_no_response(dispatcher: Dispatcher,
                                                      table: MethodTable) -> None:
    assert await dispatcher.dispatch(orjson.dumps(note("record", {"value": 5}))) is None
    assert table.calls == [5]


@pytest.mark.parametrize("message", [note("fail"), note("missing"), note("no.such.method"),
                                     note("echo", {"text": 1}), note("echo", [1, 2])])
async def test_a_failing_notification_gets_no_response(dispatcher: Dispatcher,
                                                       message: dict[str, Any]) -> None:
    assert await dispatcher.dispatch(orjson.dumps(message)) is None


async def test_null_id_is_a_call_not_a_notification(dispatcher: Dispatcher) -> None:
    assert await send(dispatcher, req("echo", {"text": "n"}, id=None)) == {
        "jsonrpc": "2.0", "result": "n", "id": None}


# -- methods and params ----------------------------------------------------------------------


async def test_unknown_method_lists_the_methods(dispatcher: Dispatcher) -> None:
    response = await send(dispatcher, req("ecoh", id=4))
    assert error_code(response) == -32601
    assert response["id"] == 4
    assert "ecoh" in response["error"]["message"]
    assert response["error"]["data"] == {
        "method": "ecoh",
        "methods": ["echo", "fail", "first", "missing", "record", "second"]}


async def test_invalid_params_have_field_level_data(dispatcher: Dispatcher) -> None:
    response = await send(dispatcher, req("echo", {"text": 3, "times": 9, "loud": True}))
    assert error_code(response) == -32602
    data = response["error"]["data"]
    assert all(set(d) == {"field", "message", "type"} for d in data)
    assert {(d["field"], d["type"]) for d in data} == {
        ("text", "string_type"), ("times", "less_than_equal"), ("loud", "extra_forbidden")}
    for field in ("text", "times", "loud"):
        assert field in response["error"]["message"]


async def test_missing_params_name_the_required_field(dispatcher: Dispatcher) -> None:
    response = await send(dispatcher, req("echo"))
    assert error_code(response) == -32602
    assert response["error"]["data"] == [
        {"field": "text", "message": "Field required", "type": "missing"}]


async def test_params_as_a_non_empty_array_are_rejected(dispatcher: Dispatcher) -> None:
    response = await send(dispatcher, req("echo", ["hi"]))
    assert error_code(response) == -32602
    assert "object" in response["error"]["message"]


async def test_params_as_an_empty_array_are_an_empty_object(dispatcher: Dispatcher) -> None:
    assert (await send(dispatcher, req("missing", [])))["error"]["code"] == -32005
    assert error_code(await send(dispatcher, req("echo", []))) == -32602  # {} lacks "text"


async def test_absent_params_are_an_empty_object(dispatcher: Dispatcher,
                                                 table: MethodTable) -> None:
    assert error_code(await send(dispatcher, req("fail"))) == -32603
    assert table.calls == ["fail"]


async def test_exception_in_a_method_is_an_internal_error_and_the_next_call_works(
        dispatcher: Dispatcher, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="zettelclaw.protocol.dispatcher"):
        response = await send(dispatcher, req("fail", id=11))
    assert error_code(response) == -32603
    assert response["id"] == 11
    assert "RuntimeError: kaboom" in response["error"]["message"]
    [record] = [r for r in caplog.records if r.name == "zettelclaw.protocol.dispatcher"]
    assert record.exc_info is not None  # logged with its traceback
    assert (await send(dispatcher, req("echo", {"text": "still here"}, id=12)))["result"] == (
        "still here")


async def test_domain_error_keeps_its_code_message_and_data(dispatcher: Dispatcher) -> None:
    response = await send(dispatcher, req("missing", id="d"))
    assert response == {"jsonrpc": "2.0", "id": "d", "error": {
        "code": -32005, "message": "no subject 'ghost'", "data": {"slug": "ghost"}}}


# -- the real method table -------------------------------------------------------------------


@pytest.fixture
def pool(home: Home, workspace: Path) -> Iterator[Agents]:
    agents = open_pool(home, workspace)
    yield agents
    agents.close_all()


@pytest.fixture
def app(pool: Agents) -> App:
    return pool.open_now(MAIN)


@pytest.fixture
def real(pool: Agents) -> Dispatcher:
    return Dispatcher(build_methods(pool, lambda: {"socket": None}))


CORE_METHODS = {"hook.beforePromptBuild", "memory.get", "memory.search", "status",
                "subjects.add", "subjects.list", "subjects.rename"}


async def test_real_table_lists_its_methods(real: Dispatcher) -> None:
    response = await send(real, req("memory.find"))
    assert error_code(response) == -32601
    listed = response["error"]["data"]["methods"]
    assert listed == sorted(real.methods)
    assert set(listed) >= CORE_METHODS


async def test_real_status_and_search(real: Dispatcher,
                                      write_log: Callable[..., list[dict[str, Any]]]) -> None:
    [fact] = write_log(entry("fact", "webhooks retry with exponential backoff"))
    status = (await send(real, req("status")))["result"]
    assert status["entries"]["total"] == 1
    assert status["server"] == {"socket": None}
    found = (await send(real, req("memory.search", {"query": "webhook", "maxResults": 5})))
    assert [r["id"] for r in found["result"]["results"]] == [fact["id"]]


async def test_real_search_rejects_a_misspelt_param_by_name(real: Dispatcher) -> None:
    response = await send(real, req("memory.search", {"query": "x", "maxresults": 5}))
    assert error_code(response) == -32602
    assert response["error"]["data"] == [{"field": "maxresults",
                                          "message": "Extra inputs are not permitted",
                                          "type": "extra_forbidden"}]


async def test_real_search_rejects_a_bad_since_naming_the_field(real: Dispatcher) -> None:
    response = await send(real, req("memory.search", {"since": "last tuesday"}))
    assert error_code(response) == -32602
    assert [d["field"] for d in response["error"]["data"]] == ["since"]


async def test_real_search_dates_are_utc_days(real: Dispatcher,
                                              write_log: Callable[..., list[dict[str, Any]]]
                                              ) -> None:
    early, late, next_day = write_log(
        entry(timestamp="2026-02-20T00:00:00Z", content="first moment of the day"),
        entry(timestamp="2026-02-20T23:59:59Z", content="last second of the day"),
        entry(timestamp="2026-02-21T00:00:00Z", content="the next day"))

    async def ids(**params: Any) -> list[str]:
        result = (await send(real, req("memory.search", params)))["result"]
        return sorted(r["id"] for r in result["results"])

    assert await ids(until="2026-02-20") == sorted([early["id"], late["id"]])
    assert await ids(since="2026-02-21") == [next_day["id"]]
    assert await ids(since="2026-02-20", until="2026-02-20") == sorted([early["id"], late["id"]])
    assert await ids(since="2026-02-20T23:59:59") == sorted([late["id"], next_day["id"]])
    assert await ids(until="2026-02-20T02:00:00+02:00") == [early["id"]]
    assert await ids(until="2026-02-20T01:59:59+02:00") == []


async def test_real_domain_errors_keep_their_codes(real: Dispatcher, workspace: Path) -> None:
    rename = await send(real, req("subjects.rename", {"from": "ghost", "to": "spirit"}))
    assert error_code(rename) == -32005
    assert rename["error"]["data"] == {"slug": "ghost"}
    assert (await send(real, req("subjects.add", {"slug": "auth"})))["result"]["subject"][
        "slug"] == "auth"
    again = await send(real, req("subjects.add", {"slug": "auth"}))
    assert error_code(again) == -32004
    assert again["error"]["data"]["slug"] == "auth"
    assert error_code(await send(real, req("memory.get", {"path": "../secret.md"}))) == -32003
    assert error_code(await send(real, req("memory.get", {"path": "e99999999999"}))) == -32002
    assert error_code(await send(real, req("memory.get", {"path": "MEMORY.md"}))) == -32002
    (workspace / "MEMORY.md").write_text("one\ntwo\n")
    got = await send(real, req("memory.get", {"path": "MEMORY.md", "from": 2}))
    assert got["result"]["text"] == "two\n"


async def test_real_rename_to_itself_is_invalid_params(real: Dispatcher) -> None:
    response = await send(real, req("subjects.rename", {"from": "auth", "to": "auth"}))
    assert error_code(response) == -32602
    assert "same slug" in response["error"]["message"]


async def test_real_hook_needs_nothing_and_answers_null_without_a_handoff(
        real: Dispatcher) -> None:
    response = await send(real, req("hook.beforePromptBuild", {"sessionKey": "agent:main:main"}))
    assert response["result"] == {"prependContext": None}


async def test_real_batch(real: Dispatcher) -> None:
    response = await send(real, [req("status", id=1), req("subjects.list", id=2),
                                 note("status"), req("memory.search", {"maxResults": 0}, id=3)])
    by_id = {r["id"]: r for r in response}
    assert set(by_id) == {1, 2, 3}
    assert by_id[1]["result"]["entries"]["total"] == 0
    assert by_id[2]["result"] == {"subjects": []}
    assert error_code(by_id[3]) == -32602


@pytest.mark.parametrize(("errno_", "expected"), [
    (28, (-32010, "memory.search could not complete: the disk is full")),
    (30, (-32010, "memory.search could not complete: the file system is read-only")),
    (24, (-32010, "memory.search could not complete: the process is out of file descriptors")),
    (36, (-32602, "Invalid params: a name in the path is too long")),
])
async def test_the_machines_state_has_its_own_code_not_internal(
        real: Dispatcher, app: App, monkeypatch: pytest.MonkeyPatch, errno_: int,
        expected: tuple[int, str]) -> None:
    code, said = expected
    """c7e1242 answered -32603 to a full disk and to a 300-character file name."""
    def failing(_: Any) -> dict[str, Any]:
        raise OSError(errno_, os.strerror(errno_))

    monkeypatch.setattr(app.searcher, "search", failing)
    response = await send(real, req("memory.search", {"query": "x"}))
    assert error_code(response) == code
    assert response["error"]["message"].startswith(said)


async def test_real_method_that_raises_is_internal_and_the_next_call_works(
        real: Dispatcher, app: App, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(_: Any) -> dict[str, Any]:
        raise OSError(9, "Bad file descriptor")  # a bug's errno, not the machine's state

    monkeypatch.setattr(app.searcher, "search", broken)
    response = await send(real, req("memory.search", {"query": "x"}))
    assert error_code(response) == -32603
    assert "OSError" in response["error"]["message"]
    assert (await send(real, req("subjects.list")))["result"] == {"subjects": []}
    monkeypatch.undo()
    assert (await send(real, req("memory.search", {"query": "x"})))["result"]["results"] == []


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner,
                                                                   max_size=2),
    max_leaves=4)
_optional = {  # each field present or not, of the right type or any other
    "id": st.integers() | st.floats(allow_nan=False) | st.text(max_size=4) | _json_values,
    "params": st.dictionaries(st.text(max_size=3), _json_values, max_size=2) | _json_values,
    "extra": _json_values}
_requests = st.fixed_dictionaries(  # the two required fields right: the fast check's own cases
    {"jsonrpc": st.just("2.0"), "method": st.text(max_size=8)}, optional=_optional
) | st.fixed_dictionaries({}, optional={
    "jsonrpc": st.sampled_from(["2.0", "2", 2.0, None]) | _json_values,
    "method": st.text(max_size=8) | _json_values, **_optional})


@given(_requests | _json_values)
def test_the_fast_check_accepts_only_what_the_schema_accepts(obj: Any) -> None:
    if plainly_valid(obj):
        assert list(dispatcher_module._validator.iter_errors(obj)) == []
    else:  # what it leaves to the schema, the schema may still accept (a null method is not)
        assert isinstance(obj, dict) or list(dispatcher_module._validator.iter_errors(obj))


@pytest.mark.parametrize("request_", [
    {"jsonrpc": "2.0", "method": "memory.search", "params": {"query": "x"}, "id": 1},
    {"jsonrpc": "2.0", "method": "status", "id": "a"},
    {"jsonrpc": "2.0", "method": "hook.beforePromptBuild", "params": {}},
    {"jsonrpc": "2.0", "method": "m", "params": [], "id": None},
])
def test_the_common_requests_take_the_fast_check(request_: dict[str, Any]) -> None:
    assert plainly_valid(request_)
    assert not plainly_valid({**request_, "id": True})  # a bool is no id: the schema says so
    assert not plainly_valid({**request_, "jsonrpc": "1.0"})
