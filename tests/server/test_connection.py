"""One connection, on a socketpair: framing, concurrency, refusal, shutdown. No listener here.

The handler is driven directly (``ConnectionHandler(dispatcher, limit)(stream)``), with a table of
test methods that can block until the test lets them go, so ordering is shown without sleeping.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson
import pytest
import trio
import trio.testing
from pydantic import BaseModel, ConfigDict

from tests.timing import scaled
from zettelclaw.protocol.dispatcher import Dispatcher, Method
from zettelclaw.server import connection
from zettelclaw.server.connection import ConnectionHandler

LIMIT = 1024


class AnyParams(BaseModel):
    model_config = ConfigDict(extra="allow")


@dataclass
class Gate:
    """Methods that wait for the test: ``started`` and ``finished`` record their progress."""

    release: trio.Event = field(default_factory=trio.Event)
    started: list[Any] = field(default_factory=list)
    finished: list[Any] = field(default_factory=list)

    def methods(self) -> dict[str, Method]:
        async def echo(p: AnyParams) -> Any:
            return p.model_dump()

        async def wait(p: AnyParams) -> str:
            self.started.append(p.model_dump().get("n"))
            await self.release.wait()
            self.finished.append(p.model_dump().get("n"))
            return "released"

        async def open_gate(_: AnyParams) -> str:
            self.release.set()
            return "opened"

        return {"echo": Method(AnyParams, echo), "wait": Method(AnyParams, wait),
                "open": Method(AnyParams, open_gate)}


class Peer:
    """The client end: send lines, read response lines."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = b""

    async def send(self, *messages: Any) -> None:
        data = b"".join(m if isinstance(m, bytes) else orjson.dumps(m) + b"\n" for m in messages)
        await self.stream.send_all(data)

    async def read(self) -> Any:
        """The next response; None at EOF."""
        while b"\n" not in self.buffer:
            chunk = await self.stream.receive_some(1 << 16)
            if not chunk:
                assert self.buffer == b"", "the server ended in the middle of a line"
                return None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return orjson.loads(line)

    async def read_all(self) -> list[Any]:
        """Every response up to EOF."""
        responses = []
        while (response := await self.read()) is not None:
            responses.append(response)
        return responses


@asynccontextmanager
async def serving(gate: Gate) -> AsyncIterator[Peer]:
    """A handler serving one end of a socketpair in a background task; the other end."""
    handler = ConnectionHandler(Dispatcher(gate.methods()), LIMIT)
    a, b = trio.socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(handler, trio.SocketStream(a))
        async with trio.SocketStream(b) as client:
            yield Peer(client)
        # the client is closed: the handler ends, and with it the nursery


@dataclass
class Wired:
    peer: Peer
    gate: Gate


@pytest.fixture
async def wired() -> AsyncIterator[Wired]:
    gate = Gate()
    async with serving(gate) as peer:
        yield Wired(peer, gate)


def call(method: str, id: Any, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "id": id, "params": params}


async def test_pipelined_messages_are_each_answered_with_their_id(wired: Wired) -> None:
    await wired.peer.send(*(call("echo", i, n=i) for i in range(20)))
    answers = [await wired.peer.read() for _ in range(20)]
    assert sorted(a["id"] for a in answers) == list(range(20))
    assert all(a["result"] == {"n": a["id"]} for a in answers)


async def test_a_blocked_call_does_not_hold_up_the_next_one(wired: Wired) -> None:
    await wired.peer.send(call("wait", "slow", n=1), call("open", "fast"))
    with trio.fail_after(scaled(10)):  # a deadlock guard, not a timing check
        first, second = await wired.peer.read(), await wired.peer.read()
    assert (first["id"], first["result"]) == ("fast", "opened")
    assert (second["id"], second["result"]) == ("slow", "released")


async def test_malformed_line_then_valid_request_both_answered(wired: Wired) -> None:
    await wired.peer.send(b"{this is not json\n", call("echo", 2, ok=True))
    bad, good = await wired.peer.read(), await wired.peer.read()
    assert (bad["error"]["code"], bad["id"]) == (-32700, None)
    assert good == {"jsonrpc": "2.0", "id": 2, "result": {"ok": True}}
    await wired.peer.send(call("echo", 3))  # the connection is still open
    assert (await wired.peer.read())["id"] == 3


async def test_oversized_message_gets_one_error_and_the_next_is_answered(wired: Wired) -> None:
    big = call("echo", 1, blob="x" * (3 * LIMIT))
    await wired.peer.send(big, call("echo", 2, after=True))
    error, answer = await wired.peer.read(), await wired.peer.read()
    assert error["id"] is None
    assert error["error"]["code"] == -32001
    assert error["error"]["data"] == {"limit": LIMIT}
    assert answer["result"] == {"after": True}


async def test_oversized_message_sent_in_pieces_gets_one_error(wired: Wired) -> None:
    for _ in range(10):
        await wired.peer.stream.send_all(b"y" * LIMIT)
    await wired.peer.send(b"\n", call("echo", 2))
    error, answer = await wired.peer.read(), await wired.peer.read()
    assert error["error"]["code"] == -32001
    assert answer["id"] == 2


async def test_last_message_without_newline_is_answered_after_eof(wired: Wired) -> None:
    await wired.peer.stream.send_all(orjson.dumps(call("echo", 1)) + b"\n"
                                     + orjson.dumps(call("echo", 2)))
    await wired.peer.stream.send_eof()  # half-close: the answers can still come back
    assert sorted(r["id"] for r in await wired.peer.read_all()) == [1, 2]


async def test_answers_in_flight_at_eof_are_still_sent(wired: Wired) -> None:
    await wired.peer.send(call("wait", "w", n=1))
    await trio.testing.wait_all_tasks_blocked()
    assert wired.gate.started == [1]
    await wired.peer.stream.send_eof()
    await trio.testing.wait_all_tasks_blocked()
    wired.gate.release.set()
    assert await wired.peer.read_all() == [{"jsonrpc": "2.0", "id": "w", "result": "released"}]


async def test_notifications_and_blank_lines_get_no_answer(wired: Wired) -> None:
    await wired.peer.send(b"\n\n", {"jsonrpc": "2.0", "method": "echo"}, b"   \n",
                          {"jsonrpc": "2.0", "method": "nope"}, call("echo", 5))
    await wired.peer.stream.send_eof()
    assert [r["id"] for r in await wired.peer.read_all()] == [5]


async def test_a_client_that_leaves_before_its_answer_does_no_harm(wired: Wired) -> None:
    await wired.peer.send(call("wait", 1, n=1))
    await trio.testing.wait_all_tasks_blocked()
    await wired.peer.stream.aclose()
    wired.gate.release.set()
    await trio.testing.wait_all_tasks_blocked()
    assert wired.gate.finished == [1]  # the handler finished quietly (or the test would fail)


async def test_reading_pauses_beyond_the_in_flight_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connection, "MAX_IN_FLIGHT", 2)
    gate = Gate()
    async with serving(gate) as peer:
        await peer.send(*(call("wait", i, n=i) for i in range(3)))
        await trio.testing.wait_all_tasks_blocked()
        assert gate.started == [0, 1]  # the third waits until one of them is done
        gate.release.set()
        assert sorted([(await peer.read())["id"] for _ in range(3)]) == [0, 1, 2]
        assert sorted(gate.started) == [0, 1, 2]


@pytest.fixture
def refused_uids(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make the handler take every peer for another user; the uids it was asked about."""
    seen: list[int] = []

    def refuse(uid: int) -> bool:
        seen.append(uid)
        return False

    monkeypatch.setattr(connection, "peer_allowed", refuse)
    return seen


async def test_a_peer_of_another_uid_gets_one_forbidden_error_then_eof(
        refused_uids: list[int]) -> None:
    async with serving(Gate()) as peer:
        responses = await peer.read_all()
    assert len(responses) == 1
    assert responses[0]["id"] is None
    assert responses[0]["error"]["code"] == -32009
    assert refused_uids == [os.getuid()]
    assert f"peer uid {os.getuid()}" in responses[0]["error"]["message"]


async def test_a_refused_peer_that_sent_a_request_gets_the_error_and_nothing_runs(
        refused_uids: list[int]) -> None:
    gate = Gate()
    async with serving(gate) as peer:
        await peer.send(call("open", 1))
        response = await peer.read()
        assert response["error"]["code"] == -32009
        # Closed with the request unread, the socket may end in a reset rather than an EOF.
        with contextlib.suppress(trio.BrokenResourceError):
            assert await peer.read() is None
    assert refused_uids
    assert not gate.release.is_set()  # the request was never run


async def test_shutdown_lets_a_running_method_finish() -> None:
    gate = Gate()
    handler = ConnectionHandler(Dispatcher(gate.methods()), LIMIT)
    a, b = trio.socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    async with trio.SocketStream(b) as client_stream, trio.open_nursery() as nursery:
        scope = trio.CancelScope()

        async def serve_until_cancelled() -> None:
            with scope:
                await handler(trio.SocketStream(a))

        nursery.start_soon(serve_until_cancelled)
        await Peer(client_stream).send(call("wait", 1, n=1))
        await trio.testing.wait_all_tasks_blocked()
        assert gate.started == [1]
        scope.cancel()  # the shutdown: a method not shielded would see Cancelled right here
        await trio.testing.wait_all_tasks_blocked()
        gate.release.set()
    assert gate.finished == [1]
    assert scope.cancelled_caught
