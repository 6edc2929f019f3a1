"""The MCP server's stdio transport: one JSON-RPC message per line on stdin and stdout.

The SDK's own stdio transport drops what it cannot parse without a word and, when stdin ends,
cancels the requests still running. A client then waits for an answer that never comes, or a
``memory_remember`` sent just before the client closed the pipe is lost. This one answers every
line: a line that is not JSON is answered -32700 (``id`` null), JSON that is not a JSON-RPC
message -32600 (with its ``id`` when it has a usable one); and at the end of stdin it lets the
requests it passed on finish and writes their answers before the server stops
(tests/cli/test_mcp_stdio.py).

While it serves, fd 0 reads the null device and fd 1 writes to stderr, as in the SDK's
transport: output a library prints by mistake cannot corrupt the wire.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import IO, Any

import anyio
import anyio.abc
import mcp_types as types
import orjson
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

# a line longer than this is not read whole: it is answered -32600 and skipped
MAX_LINE_BYTES = 64 << 20


def error_for(line: bytes) -> types.JSONRPCError | None:
    """The answer to a line that is not a message the server can take, else None."""
    if not line.strip():
        return None  # a blank line between messages is no message
    try:
        data = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        return _error(None, types.PARSE_ERROR, f"Parse error: the line is not JSON ({exc})")
    try:
        types.jsonrpc_message_adapter.validate_python(data, by_name=False)
        if isinstance(data, dict) and "id" in data and _usable_id(data) is None:
            # else taken for a notification (its other members are ignored), never answered
            raise ValueError("an id that is neither a string nor an integer")
    except ValueError:
        what = ("a batch (an array): MCP takes one message per line" if isinstance(data, list)
                else "not a JSON-RPC 2.0 request, notification or response")
        return _error(_usable_id(data), types.INVALID_REQUEST, f"Invalid Request: {what}")
    return None


def _usable_id(data: Any) -> types.RequestId | None:
    """The id to answer an invalid request with: its own, when it is a string or an integer."""
    found = data.get("id") if isinstance(data, dict) else None
    return found if isinstance(found, str) or (isinstance(found, int)
                                               and not isinstance(found, bool)) else None


def _error(request_id: types.RequestId | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id,
                              error=types.ErrorData(code=code, message=message))


def _key(request_id: types.RequestId) -> types.RequestId:
    """A request id as the SDK correlates it: "7" and 7 are one id."""
    if isinstance(request_id, str):
        try:
            return int(request_id)
        except ValueError:
            return request_id
    return request_id


class Pending:
    """The requests passed to the server and not answered yet."""

    def __init__(self) -> None:
        self.ids: set[types.RequestId] = set()
        self.empty = anyio.Event()
        self.empty.set()

    def add(self, request_id: types.RequestId) -> None:
        self.ids.add(_key(request_id))
        if self.empty.is_set():
            self.empty = anyio.Event()

    def discard(self, request_id: types.RequestId | None) -> None:
        if request_id is None:
            return
        self.ids.discard(_key(request_id))
        if not self.ids:
            self.empty.set()


def _cancelled_id(message: types.JSONRPCMessage) -> types.RequestId | None:
    """The request a ``notifications/cancelled`` gives up (the server then answers nothing)."""
    if isinstance(message, types.JSONRPCNotification) and \
            message.method == "notifications/cancelled" and message.params:
        found = message.params.get("requestId")
        if isinstance(found, str | int):
            return found
    return None


def _claim_stdio() -> tuple[IO[bytes], IO[bytes], Callable[[], None]]:
    """The wire's stdin and stdout on private descriptors; fd 0 then reads the null device and
    fd 1 writes to stderr. The returned function puts them back."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)

    def restore() -> None:
        sys.stdout.flush()
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)

    return os.fdopen(wire_in, "rb"), os.fdopen(wire_out, "wb"), restore


class Wire:
    """The client's end: lines read from ``stdin``, messages written to ``stdout``."""

    def __init__(self, stdin: IO[bytes], stdout: IO[bytes]) -> None:
        self.stdin, self.stdout = stdin, stdout

    async def readline(self) -> bytes:
        # abandoned when cancelled: a read blocks until the client writes or closes
        return await anyio.to_thread.run_sync(self.stdin.readline, MAX_LINE_BYTES,
                                              abandon_on_cancel=True)

    async def next_line(self) -> bytes | types.JSONRPCError | None:
        """The next line (b"" at the end of stdin), or the answer to one too long to read."""
        line = await self.readline()
        if len(line) < MAX_LINE_BYTES or line.endswith(b"\n"):
            return line
        while (rest := await self.readline()) and not rest.endswith(b"\n"):
            pass  # the rest of the line is skipped, never held
        return _error(None, types.INVALID_REQUEST,
                      f"Invalid Request: the line is longer than {MAX_LINE_BYTES} bytes")

    async def write(self, message: types.JSONRPCMessage) -> None:
        text = message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"

        def put() -> None:
            self.stdout.write(text)
            self.stdout.flush()

        await anyio.to_thread.run_sync(put)


@asynccontextmanager
async def stdio_streams(
    stdin: IO[bytes] | None = None, stdout: IO[bytes] | None = None,
) -> AsyncIterator[tuple[MemoryObjectReceiveStream[SessionMessage | Exception],
                         MemoryObjectSendStream[SessionMessage]]]:
    """The streams to run the MCP server on, as the SDK's ``stdio_server`` gives them."""
    restore: Callable[[], None] | None = None
    if stdin is None or stdout is None:
        stdin, stdout, restore = _claim_stdio()
    wire = Wire(stdin, stdout)
    to_server, from_wire = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_wire, from_server = anyio.create_memory_object_stream[SessionMessage](0)
    pending = Pending()
    answers = to_wire.clone()  # this transport's own answers, beside the server's

    async def read() -> None:
        async with to_server, answers:
            while line := await wire.next_line():
                refused = line if isinstance(line, types.JSONRPCError) else error_for(line)
                if refused is not None:
                    await answers.send(SessionMessage(refused))
                    continue
                assert isinstance(line, bytes)
                if not line.strip():
                    continue
                message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                if isinstance(message, types.JSONRPCRequest):
                    pending.add(message.id)
                await to_server.send(SessionMessage(message))
                pending.discard(_cancelled_id(message))
            await pending.empty.wait()  # the end of stdin: answer what was asked first

    async def write_all(tasks: anyio.abc.TaskGroup) -> None:
        async with from_server:
            async for outgoing in from_server:
                message = outgoing.message
                try:
                    await wire.write(message)
                except (BrokenPipeError, ConnectionResetError):
                    # the client closed its end: nobody is left to answer; stop, quietly
                    tasks.cancel_scope.cancel()
                    return
                if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
                    pending.discard(message.id)

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(read)
            tasks.start_soon(write_all, tasks)
            async with to_wire:
                yield from_wire, to_wire
    finally:
        if restore is not None:
            restore()
