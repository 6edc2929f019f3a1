"""What one message may be: depth, batch length, response size, exact ids; and on a connection,
the time a message may take, the bytes held for unfinished ones, and a client that never reads.
Each of these once crashed the process or held it up."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import orjson
import pytest
import trio
import trio.testing
from pydantic import BaseModel

from tests.server.test_connection import Gate, Peer, call
from tests.timing import scaled
from zettelclaw.protocol.dispatcher import Dispatcher, Method
from zettelclaw.protocol.limits import MAX_BATCH, MAX_DEPTH, inexact_id, nesting_exceeds
from zettelclaw.server import connection
from zettelclaw.server.connection import ConnectionHandler


def test_nesting_is_measured_without_recursion() -> None:
    deep: Any = []
    for _ in range(10_000):  # ten times Python's recursion limit
        deep = [deep]
    assert nesting_exceeds(deep)
    shallow: Any = {"a": [{"b": [1, 2]}]}
    assert not nesting_exceeds(shallow)
    exact: Any = 1
    for _ in range(MAX_DEPTH):
        exact = [exact]
    assert not nesting_exceeds(exact)
    assert nesting_exceeds([exact])
    assert not nesting_exceeds("x" * 10)


def test_only_a_float_past_2_53_is_an_inexact_id() -> None:
    assert inexact_id(1.2345678901234568e29)
    assert not inexact_id(2**62)  # an int is kept exactly by orjson up to 64 bits
    assert not inexact_id(1.5)
    assert not inexact_id("123456789012345678901234567890")


async def dispatch(dispatcher: Dispatcher, message: bytes) -> Any:
    line = await dispatcher.dispatch(message)
    assert line is not None
    return orjson.loads(line)


@pytest.mark.parametrize("message", [
    b"[" * 1000 + b"]" * 1000,  # crashed the process at c7e1242 (RecursionError in jsonschema)
    b'{"jsonrpc":"2.0","method":"echo","id":' + b"[" * 1000 + b"]" * 1000 + b"}",
    b'{"jsonrpc":"2.0","method":"echo","id":1,"params":{"x":' + b"[" * 999 + b"]" * 999 + b"}}",
])
async def test_a_message_nested_too_deep_is_an_invalid_request(message: bytes) -> None:
    answer = await dispatch(Dispatcher(Gate().methods()), message)
    assert answer["error"]["code"] == -32600
    assert answer["error"]["data"] == {"limit": MAX_DEPTH}
    assert answer["id"] is None


async def test_a_batch_too_long_is_refused_whole() -> None:
    batch = orjson.dumps([call("echo", i) for i in range(MAX_BATCH + 1)])
    answer = await dispatch(Dispatcher(Gate().methods()), batch)
    assert answer["error"]["code"] == -32600
    assert answer["error"]["data"] == {"limit": MAX_BATCH, "length": MAX_BATCH + 1}
    ok = await dispatch(Dispatcher(Gate().methods()),
                        orjson.dumps([call("echo", i) for i in range(MAX_BATCH)]))
    assert len(ok) == MAX_BATCH


async def test_an_answer_past_the_response_limit_becomes_its_own_error() -> None:
    dispatcher = Dispatcher(Gate().methods(), max_response_bytes=4000)
    big = await dispatch(dispatcher, orjson.dumps(call("echo", 7, text="x" * 5000)))
    assert big["id"] == 7
    assert big["error"]["code"] == -32015
    assert big["error"]["data"]["limit"] == 4000
    batch = [call("echo", i, text="y" * 600) for i in range(8)]
    answers = await dispatch(dispatcher, orjson.dumps(batch))
    line = await dispatcher.dispatch(orjson.dumps(batch))
    assert line is not None
    assert len(line) <= 4000
    assert [a["id"] for a in answers] == list(range(8))
    kinds = ["result" if "result" in a else a["error"]["code"] for a in answers]
    assert kinds[:5] == ["result"] * 5  # as many as fit; the later ones of a size give way
    assert set(kinds[5:]) == {-32015}


async def test_a_long_batch_of_small_answers_under_a_small_limit_is_answered() -> None:
    """At caac987, under --max-message-bytes 4096, a batch of 53 small answers
    all became -32015 (room was kept for a 300-byte error each) and that line, 53 errors long,
    exceeded the limit itself."""
    dispatcher = Dispatcher(Gate().methods(), max_response_bytes=4096)
    small = orjson.dumps([call("echo", i) for i in range(53)])
    answers = await dispatch(dispatcher, small)
    assert all("result" in a for a in answers)
    assert len(answers) == 53
    crowded = orjson.dumps([call("echo", i, text="z" * 100) for i in range(64)])
    line = await dispatcher.dispatch(crowded)
    assert line is not None
    assert len(line) <= 4096  # even as errors they would not fit: one error for the batch
    whole = orjson.loads(line)
    assert whole["error"]["code"] == -32015
    assert whole["error"]["data"] == {"limit": 4096, "answers": 64}
    assert whole["id"] is None


async def test_a_30_digit_integer_id_is_refused_not_rounded() -> None:
    message = b'{"jsonrpc":"2.0","method":"echo","id":123456789012345678901234567890}'
    answer = await dispatch(Dispatcher(Gate().methods()), message)
    assert answer["error"]["code"] == -32600
    assert answer["id"] is None
    exact = await dispatch(Dispatcher(Gate().methods()),
                           b'{"jsonrpc":"2.0","method":"echo","id":9007199254740993}')
    assert exact["id"] == 9007199254740993


# -- on a connection ---------------------------------------------------------------------------


HANDLERS: list[ConnectionHandler] = []


@asynccontextmanager
async def handler_and_clients(n: int, limit: int = 1 << 16, buffer_limit: int | None = None
                              ) -> AsyncIterator[list[Peer]]:
    handler = ConnectionHandler(Dispatcher(Gate().methods()), limit, buffer_limit=buffer_limit)
    HANDLERS[:] = [handler]
    async with trio.open_nursery() as nursery:
        clients = []
        try:
            for _ in range(n):
                a, b = trio.socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
                nursery.start_soon(handler, trio.SocketStream(a))
                clients.append(Peer(trio.SocketStream(b)))
            yield clients
        finally:
            for client in clients:
                await client.stream.aclose()


async def test_the_server_survives_a_deep_message_and_answers_the_next() -> None:
    async with handler_and_clients(1) as [peer]:
        await peer.send(b"[" * 1000 + b"]" * 1000 + b"\n", call("echo", 2, n=2))
        answers = [await peer.read(), await peer.read()]
    assert sorted(str(a["id"]) for a in answers) == ["2", "None"]


async def test_a_message_that_never_ends_times_out_and_closes_the_connection(
        monkeypatch: pytest.MonkeyPatch, autojump_clock: trio.abc.Clock) -> None:
    monkeypatch.setattr(connection, "MESSAGE_SECONDS", 5.0)
    async with handler_and_clients(2) as [slow, other]:
        await slow.send(b'{"jsonrpc":"2.0","method":"echo","id":1,"params":{"x":"')
        await other.send(call("echo", 9, n=9))
        assert (await other.read())["id"] == 9  # the other connection is served meanwhile
        answer = await slow.read()
        assert answer["error"]["code"] == -32016
        assert await slow.read() is None  # closed
        await other.send(call("echo", 10))
        assert (await other.read())["id"] == 10


async def test_an_idle_connection_with_nothing_unfinished_is_kept(
        monkeypatch: pytest.MonkeyPatch, autojump_clock: trio.abc.Clock) -> None:
    monkeypatch.setattr(connection, "MESSAGE_SECONDS", 5.0)
    async with handler_and_clients(1) as [peer]:
        await trio.sleep(3600)  # the OpenClaw plugin keeps its connection open all day
        await peer.send(call("echo", 1))
        assert (await peer.read())["id"] == 1


async def test_unfinished_messages_across_connections_share_one_budget() -> None:
    async with handler_and_clients(3, limit=1 << 20, buffer_limit=300_000) as peers:
        first, second, third = peers
        await first.send(b'{"jsonrpc":"2.0","method":"echo","id":1,"params":{"x":"'
                         + b"a" * 200_000)
        with trio.fail_after(scaled(10)):  # the server has read it all: the first holds the budget
            while True:
                if HANDLERS[0].budget.used >= 200_000:
                    break
                await trio.sleep(0.01)
        await second.send(b'{"jsonrpc":"2.0","method":"echo","id":2,"params":{"x":"'
                          + b"b" * 200_000)
        refused = await second.read()  # the one that would take the total past 300,000
        assert refused["error"]["code"] == -32001
        assert refused["error"]["data"]["serverWide"] is True
        await second.send(b'"}}\n', call("echo", 3, n=3))  # the rest of the dropped line
        assert (await second.read())["id"] == 3  # and the connection goes on
        await first.send(b'"}}\n')
        assert (await first.read())["result"]["x"] == "a" * 200_000
        await third.send(b'{"jsonrpc":"2.0","method":"echo","id":4,"params":{"x":"'
                         + b"c" * 200_000 + b'"}}\n')
        assert (await third.read())["id"] == 4  # the budget was given back


async def test_a_client_that_does_not_read_is_cut_off(
        monkeypatch: pytest.MonkeyPatch, autojump_clock: trio.abc.Clock) -> None:
    monkeypatch.setattr(connection, "SEND_SECONDS", 0.2)
    async with handler_and_clients(2, limit=1 << 22) as [deaf, other]:
        message = orjson.dumps(call("echo", 1, x="z" * 1_000_000)) + b"\n"
        with contextlib.suppress(trio.BrokenResourceError):  # cut off while still writing
            for _ in range(8):  # answers of a megabyte each, never read: the buffer fills
                await deaf.send(message)
        await other.send(call("echo", 2))
        assert (await other.read())["id"] == 2  # served while the deaf one's answer is stuck
        await trio.sleep(1)  # still not reading, past SEND_SECONDS
        received = 0
        # cut off: what was in the socket buffer, then the end. A server that closes with some
        # of the client's bytes still unread ends it with a reset instead of an EOF (Linux,
        # unix(7)): as much a cut as the other, and which one comes depends on how far the
        # server had read, so on the machine's load
        with trio.fail_after(scaled(10)), contextlib.suppress(trio.BrokenResourceError):
            while chunk := await deaf.stream.receive_some(1 << 20):
                received += len(chunk)
        assert received < 8 * len(message)


async def test_a_client_that_writes_and_never_reads_is_held_to_its_output_budget(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """64 lines, each asking for 32 MiB, sent without reading the answers,
    made the server hold 2 GB for that one client. Now reading stops while the connection's
    answers (made or being made) are over its budget; another client is still served."""
    monkeypatch.setattr(connection, "ANSWER_ESTIMATE", 300_000)
    budget = 2_000_000
    made: list[int] = []

    class Big(BaseModel):
        n: int

    async def big(p: Big) -> str:
        made.append(p.n)
        return "x" * 250_000

    methods = {**Gate().methods(), "big": Method(Big, big)}
    handler = ConnectionHandler(Dispatcher(methods), 1 << 20, output_limit=budget,
                                server_output_limit=3 * budget)
    a, b = trio.socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    c, d = trio.socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(handler, trio.SocketStream(a))
        nursery.start_soon(handler, trio.SocketStream(c))
        async with trio.SocketStream(b) as deaf_stream, trio.SocketStream(d) as other_stream:
            deaf, other = Peer(deaf_stream), Peer(other_stream)
            requests = b"".join(orjson.dumps(call("big", i, n=i)) + b"\n" for i in range(60))
            nursery.start_soon(deaf.send, requests)  # may block: the server stops reading
            await trio.testing.wait_all_tasks_blocked()
            assert handler.output.peak <= budget
            assert len(made) < 10  # not 60 answers made to be held
            await other.send(call("echo", "other"))
            assert (await other.read())["id"] == "other"  # served meanwhile
            ids = [(await deaf.read())["id"] for _ in range(60)]  # now it reads: all answered
            assert sorted(ids) == list(range(60))
            assert handler.output.peak <= 3 * budget  # the server's: the other's answer too
    assert handler.output.used == 0
