"""zettelclaw.client: the blocking Client and the trio AsyncClient, each tested the same way.

Against the real server they must turn error codes back into the classes of zettelclaw.errors;
against a scripted fake server, they must cope with what a broken peer does. The blocking client
runs in a worker thread, since the server shares this test's trio loop.
"""

from __future__ import annotations

import os
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest
import trio
import trio.testing

from tests.timing import scaled
from zettelclaw.client import AsyncClient, Client, ProtocolViolationError, SidecarUnavailableError
from zettelclaw.errors import (
    InvalidParamsError,
    MessageTooLargeError,
    MethodNotFoundError,
    NotFoundError,
    PathNotAllowedError,
    SubjectExistsError,
    SubjectNotFoundError,
    ZettelclawError,
)
from zettelclaw.serve import Ready

Calls = list[tuple[str, dict[str, Any] | None]]


async def run_calls(flavour: str, path: Path, calls: Calls) -> list[Any]:
    """Make ``calls`` in order on one connection; each result, or the exception it raised."""
    if flavour == "async":
        outcomes: list[Any] = []
        async with await AsyncClient.connect(path) as client:
            for method, params in calls:
                try:
                    outcomes.append(await client.call(method, params))
                except (ZettelclawError, ConnectionError) as exc:
                    outcomes.append(exc)
        return outcomes

    def blocking() -> list[Any]:
        outcomes: list[Any] = []
        with Client(path, timeout=scaled(20)) as client:
            for method, params in calls:
                try:
                    outcomes.append(client.call(method, params))
                except (ZettelclawError, ConnectionError) as exc:
                    outcomes.append(exc)
        return outcomes

    return await trio.to_thread.run_sync(blocking)


flavours = pytest.mark.parametrize("flavour", ["blocking", "async"])


# -- against the real server -----------------------------------------------------------------


@flavours
async def test_results_come_back(server: Ready, flavour: str) -> None:
    status, listing = await run_calls(flavour, server.socket, [("status", None),
                                                               ("subjects.list", {})])
    assert status["server"]["socket"] == str(server.socket)
    assert listing == {"subjects": []}


@flavours
async def test_error_codes_come_back_as_their_classes(server: Ready, flavour: str) -> None:
    outcomes = await run_calls(flavour, server.socket, [
        ("subjects.rename", {"from": "ghost", "to": "spirit"}),
        ("subjects.add", {"slug": "auth"}),
        ("subjects.add", {"slug": "auth"}),
        ("memory.search", {"maxresults": 3}),
        ("memory.find", None),
        ("memory.get", {"path": "../../etc/passwd"}),
        ("memory.get", {"path": "e99999999999"}),
        ("subjects.list", None),
    ])
    missing, added, exists, invalid, unknown, outside, absent, listing = outcomes
    assert type(missing) is SubjectNotFoundError
    assert missing.data == {"slug": "ghost"}
    assert "ghost" in str(missing)
    assert added["subject"]["slug"] == "auth"
    assert type(exists) is SubjectExistsError
    assert exists.data["slug"] == "auth"
    assert type(invalid) is InvalidParamsError
    assert invalid.data[0]["field"] == "maxresults"
    assert type(unknown) is MethodNotFoundError
    assert "memory.search" in unknown.data["methods"]
    assert type(outside) is PathNotAllowedError
    assert type(absent) is NotFoundError
    assert [s["slug"] for s in listing["subjects"]] == ["auth"]  # the connection went on


@flavours
async def test_nothing_at_the_path_is_unavailable(short_dir: Path, flavour: str) -> None:
    with pytest.raises(SidecarUnavailableError, match="no sidecar answers"):
        await run_calls(flavour, short_dir / "none.sock", [("status", None)])


@flavours
async def test_a_stale_socket_is_unavailable(short_dir: Path, flavour: str) -> None:
    path = short_dir / "stale.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(os.fspath(path))
    sock.close()
    with pytest.raises(SidecarUnavailableError):
        await run_calls(flavour, path, [("status", None)])


def test_unavailable_is_a_connection_error() -> None:
    assert issubclass(SidecarUnavailableError, ConnectionError)
    assert issubclass(ProtocolViolationError, ConnectionError)


# -- against a scripted peer -----------------------------------------------------------------

Script = Callable[[trio.SocketStream, list[dict[str, Any]]], Awaitable[None]]


@asynccontextmanager
async def fake_server(path: Path, script: Script) -> AsyncIterator[list[dict[str, Any]]]:
    """A socket at ``path`` whose one connection ``script`` answers; yields what it received."""
    received: list[dict[str, Any]] = []
    sock = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    await sock.bind(os.fspath(path))
    sock.listen(1)
    async with trio.SocketListener(sock) as listener, trio.open_nursery() as nursery:

        async def serve_one() -> None:
            async with await listener.accept() as stream:
                await script(stream, received)

        nursery.start_soon(serve_one)
        yield received


async def read_request(stream: trio.SocketStream, received: list[dict[str, Any]]
                       ) -> dict[str, Any]:
    data = b""
    while not data.endswith(b"\n"):
        chunk = await stream.receive_some(1 << 16)
        assert chunk
        data += chunk
    request: dict[str, Any] = orjson.loads(data)
    received.append(request)
    return request


@flavours
async def test_requests_are_json_rpc_lines_with_increasing_ids(short_dir: Path,
                                                               flavour: str) -> None:
    async def echo_twice(stream: trio.SocketStream, received: list[dict[str, Any]]) -> None:
        for _ in range(2):
            request = await read_request(stream, received)
            await stream.send_all(orjson.dumps({"jsonrpc": "2.0", "id": request["id"],
                                                "result": request.get("params")}) + b"\n")

    async with fake_server(short_dir / "f.sock", echo_twice) as received:
        outcomes = await run_calls(flavour, short_dir / "f.sock",
                                   [("status", None), ("memory.search", {"query": "q"})])
    assert outcomes == [None, {"query": "q"}]
    assert received == [{"jsonrpc": "2.0", "method": "status", "id": 1},
                        {"jsonrpc": "2.0", "method": "memory.search", "id": 2,
                         "params": {"query": "q"}}]


@flavours
async def test_a_response_to_another_id_is_skipped(short_dir: Path, flavour: str) -> None:
    async def stray_first(stream: trio.SocketStream, received: list[dict[str, Any]]) -> None:
        request = await read_request(stream, received)
        await stream.send_all(b'{"jsonrpc":"2.0","id":999,"result":"stray"}\n'
                              + orjson.dumps({"jsonrpc": "2.0", "id": request["id"],
                                              "result": "mine"}) + b"\n")

    async with fake_server(short_dir / "f.sock", stray_first):
        assert await run_calls(flavour, short_dir / "f.sock", [("status", None)]) == ["mine"]


@flavours
async def test_an_error_with_null_id_is_raised(short_dir: Path, flavour: str) -> None:
    async def too_large(stream: trio.SocketStream, received: list[dict[str, Any]]) -> None:
        await read_request(stream, received)
        await stream.send_all(b'{"jsonrpc":"2.0","id":null,"error":{"code":-32001,'
                              b'"message":"message exceeds 1024 bytes","data":{"limit":1024}}}\n')

    async with fake_server(short_dir / "f.sock", too_large):
        [error] = await run_calls(flavour, short_dir / "f.sock", [("status", None)])
    assert type(error) is MessageTooLargeError
    assert error.data == {"limit": 1024}


@flavours
async def test_an_unknown_error_code_keeps_its_code(short_dir: Path, flavour: str) -> None:
    async def newer(stream: trio.SocketStream, received: list[dict[str, Any]]) -> None:
        request = await read_request(stream, received)
        await stream.send_all(orjson.dumps({"jsonrpc": "2.0", "id": request["id"], "error": {
            "code": -32077, "message": "from the future"}}) + b"\n")

    async with fake_server(short_dir / "f.sock", newer):
        [error] = await run_calls(flavour, short_dir / "f.sock", [("status", None)])
    assert isinstance(error, ZettelclawError)
    assert (error.code, error.message) == (-32077, "from the future")


@flavours
@pytest.mark.parametrize("reply", [b"this is not json\n", b"[1, 2]\n"])
async def test_garbage_from_the_peer_is_a_protocol_violation(short_dir: Path, flavour: str,
                                                             reply: bytes) -> None:
    async def garbage(stream: trio.SocketStream, received: list[dict[str, Any]]) -> None:
        await read_request(stream, received)
        await stream.send_all(reply)

    async with fake_server(short_dir / "f.sock", garbage):
        [error] = await run_calls(flavour, short_dir / "f.sock", [("status", None)])
    assert type(error) is ProtocolViolationError


@flavours
async def test_a_peer_that_closes_mid_call_makes_the_sidecar_unavailable(short_dir: Path,
                                                                         flavour: str) -> None:
    async def hang_up(stream: trio.SocketStream, received: list[dict[str, Any]]) -> None:
        await read_request(stream, received)
        await stream.send_all(b'{"jsonrpc":"2.0","id":1,"res')  # and closes mid-line

    async with fake_server(short_dir / "f.sock", hang_up):
        [error] = await run_calls(flavour, short_dir / "f.sock", [("status", None)])
    assert type(error) is SidecarUnavailableError
    assert "closed the connection" in str(error)


async def test_a_response_split_across_reads_is_reassembled() -> None:
    a, b = trio.socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    async with AsyncClient(trio.SocketStream(a)) as client, trio.SocketStream(b) as peer:

        async def answer_in_pieces() -> None:
            received: list[dict[str, Any]] = []
            request = await read_request(peer, received)
            line = orjson.dumps({"jsonrpc": "2.0", "id": request["id"], "result": "x" * 1000})
            for i in range(0, len(line), 7):
                await peer.send_all(line[i:i + 7])
                await trio.testing.wait_all_tasks_blocked()
            await peer.send_all(b"\n")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(answer_in_pieces)
            assert await client.call("status") == "x" * 1000


def test_blocking_client_connects_lazily_and_closes(short_dir: Path) -> None:
    client = Client(short_dir / "none.sock")
    client.close()  # closing an unconnected client is fine
    with pytest.raises(SidecarUnavailableError):
        client.call("status")  # the first call connects
