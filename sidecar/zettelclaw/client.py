"""A small Python client for the sidecar's protocol (protocol.md): blocking and trio flavours.

    with Client(socket_path) as client:
        hits = client.call("memory.search", {"query": "webhook"})["results"]
        # typed by the contract (protocol/contract.py): params and result models
        found = ask(client, MEMORY_SEARCH, SearchParams(query="webhook"))

Errors come back as the exceptions of ``zettelclaw.errors`` (a -32005 is a SubjectNotFoundError,
and so on). ``SidecarUnavailableError`` means nothing answers on the socket.
"""

from __future__ import annotations

import itertools
import os
import socket
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, TypeVar

import orjson
import trio
from pydantic import BaseModel, ValidationError

from zettelclaw.errors import from_json
from zettelclaw.protocol.contract import Rpc

DEFAULT_TIMEOUT = 30.0


class SidecarUnavailableError(ConnectionError):
    """Nothing answers on the socket (not started, stopped, or crashed)."""


class ProtocolViolationError(ConnectionError):
    """The peer sent something that is not a JSON-RPC response."""


def _request(request_id: int, method: str, params: dict[str, Any] | None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "id": request_id}
    if params is not None:
        message["params"] = params
    return orjson.dumps(message) + b"\n"


def _result(line: bytes, request_id: int) -> tuple[bool, Any]:
    """(True, result) for the response to ``request_id``; (False, None) for another one."""
    try:
        response = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise ProtocolViolationError(f"the sidecar sent invalid JSON: {exc}") from exc
    if not isinstance(response, dict):
        raise ProtocolViolationError(f"unexpected message from the sidecar: {line[:200]!r}")
    if "error" in response and response.get("id") in (request_id, None):
        raise from_json(response["error"])
    if response.get("id") != request_id:
        return False, None
    return True, response.get("result")


P = TypeVar("P", bound=BaseModel)
R = TypeVar("R")


class Caller(Protocol):
    """What calls a method by name with a JSON object: a client, a CLI backend."""

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any: ...


def ask(caller: Caller, rpc: Rpc[P, R], params: P) -> R:
    """``rpc`` called with ``params``: its result model (mypy holds the three together)."""
    answer = caller.call(rpc.name, rpc.request(params))
    try:
        return rpc.answer(answer)
    except ValidationError as exc:
        raise ProtocolViolationError(f"{rpc.name}: the answer is not its result: {exc}") from exc


class Client:
    """A blocking client: one connection, one call at a time."""

    def __init__(self, socket_path: Path | str, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.socket_path = Path(socket_path)
        self.timeout = timeout
        self._ids = itertools.count(1)
        self._sock: socket.socket | None = None
        self._buffer = b""

    def connect(self) -> Client:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(os.fspath(self.socket_path))
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            sock.close()
            raise SidecarUnavailableError(f"no sidecar answers on {self.socket_path}") from exc
        except OSError:
            sock.close()
            raise
        self._sock = sock
        return self

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def __enter__(self) -> Client:
        return self if self._sock is not None else self.connect()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        if self._sock is None:
            self.connect()
        assert self._sock is not None
        request_id = next(self._ids)
        self._sock.sendall(_request(request_id, method, params))
        while True:
            done, result = _result(self._read_line(), request_id)
            if done:
                return result

    def _read_line(self) -> bytes:
        assert self._sock is not None
        while b"\n" not in self._buffer:
            chunk = self._sock.recv(1 << 16)
            if not chunk:
                raise SidecarUnavailableError("the sidecar closed the connection")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line


class AsyncClient:
    """A trio client; calls on one client are serialized."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self._stream = stream
        self._ids = itertools.count(1)
        self._lock = trio.Lock()
        self._buffer = b""

    @classmethod
    async def connect(cls, socket_path: Path | str) -> AsyncClient:
        try:
            stream = await trio.open_unix_socket(os.fspath(socket_path))
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            raise SidecarUnavailableError(f"no sidecar answers on {socket_path}") from exc
        return cls(stream)

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        async with self._lock:
            request_id = next(self._ids)
            await self._stream.send_all(_request(request_id, method, params))
            while True:
                done, result = _result(await self._read_line(), request_id)
                if done:
                    return result

    async def _read_line(self) -> bytes:
        while b"\n" not in self._buffer:
            chunk = await self._stream.receive_some(1 << 16)
            if not chunk:
                raise SidecarUnavailableError("the sidecar closed the connection")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line
