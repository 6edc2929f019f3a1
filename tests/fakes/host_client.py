"""A fake host: a client that offers ``llm.complete`` (and ``embeddings.embed``, when asked to)
to the sidecar over its real Unix socket.

It runs in a thread of the test process, speaks the protocol as protocol.md describes a host
(``host.offer`` on a connection it keeps open, then it answers the sidecar's requests), and
records every request it gets. ``mode`` says what it does with one:

- ``answer``: reply ``{"text": reply, "model": "fake/host-model", "usage": {...}}``;
- ``error``: reply with the JSON-RPC error ``error`` (code, message);
- ``hold``: wait until ``release()``, then answer;
- ``drop``: close the connection without a reply (the gateway going away mid-call).

``embeddings.embed`` is answered the same way (``mode`` too), with ``tests/fakes/embeddings_api``'s
bag-of-words vectors (deterministic: texts of one meaning are close), or with what
``embed_answer(texts)`` returns when set (a malformed answer).
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from pathlib import Path
from typing import Any

from tests.fakes.embeddings_api import vector


class FakeHost:
    def __init__(self, socket_path: Path, reply: str = "", *, mode: str = "answer",
                 error: tuple[int, str] = (-32013, "no model configured"),
                 name: str = "fake-host",
                 embedding: tuple[str, str] = ("fake", "bag-of-words")) -> None:
        self.socket_path, self.reply, self.mode, self.error = socket_path, reply, mode, error
        self.name = name
        self.embedding = embedding  # (provider, model) of the embeddings it offers
        self.embed_answer: Any = None  # texts -> the result to answer, instead of vectors
        self.requests: list[dict[str, Any]] = []
        self.embed_requests: list[dict[str, Any]] = []
        self.offer_answer: dict[str, Any] | None = None
        self.received = threading.Event()  # set at each request
        self._release = threading.Event()
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self, capabilities: tuple[str, ...] = ("llm.complete",)) -> FakeHost:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(str(self.socket_path))
        self._sock = sock
        self._reader = sock.makefile("rb")
        self._send({"jsonrpc": "2.0", "id": 1, "method": "host.offer",
                    "params": self.offer_params(capabilities)})
        while self.offer_answer is None:  # the sidecar may send a request before the answer
            self._handle(json.loads(self._reader.readline()))
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()
        return self

    def offer_params(self, capabilities: tuple[str, ...]) -> dict[str, Any]:
        params: dict[str, Any] = {"capabilities": list(capabilities),
                                  "client": {"name": self.name, "version": "0"}}
        if "embeddings.embed" in capabilities:
            provider, model = self.embedding
            params["embeddings"] = {"provider": provider, "model": model}
        return params

    def offer_again(self, capabilities: tuple[str, ...]) -> None:
        """A new offer on the same connection (e.g. another embedding model)."""
        self._send({"jsonrpc": "2.0", "id": 3, "method": "host.offer",
                    "params": self.offer_params(capabilities)})

    def withdraw(self, reason: str) -> None:
        """Withdraw the offer on the same connection (``host.offer`` with no capabilities), as
        the OpenClaw plugin does when OpenClaw stops or reloads it."""
        self._send({"jsonrpc": "2.0", "id": 2, "method": "host.offer",
                    "params": {"capabilities": [], "reason": reason}})

    def release(self) -> None:
        self._release.set()

    def stop(self) -> None:
        self._release.set()
        sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        if self._thread is not None:
            self._thread.join(10)

    def wait_requests(self, n: int, timeout: float = 20) -> None:
        import time

        deadline = time.monotonic() + timeout
        while len(self.requests) < n:
            assert time.monotonic() < deadline, f"{len(self.requests)} requests, wanted {n}"
            self.received.wait(0.05)

    # -- the connection ----------------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        sock = self._sock
        if sock is None:
            return
        with self._lock:
            sock.sendall(json.dumps(message).encode() + b"\n")

    def _loop(self) -> None:
        try:
            for line in self._reader:
                self._handle(json.loads(line))
        except (OSError, ValueError):
            pass

    def _handle(self, message: dict[str, Any]) -> None:
        if message.get("id") == 1 and "method" not in message:
            self.offer_answer = message
            return
        if message.get("method") == "embeddings.embed":
            self.embed_requests.append(message)
        elif message.get("method") == "llm.complete":
            self.requests.append(message)
        else:
            return
        self.received.set()
        threading.Thread(target=self._answer, args=(message,), daemon=True).start()

    def _answer(self, message: dict[str, Any]) -> None:
        if self.mode == "drop":
            self.stop_soon()
            return
        if self.mode == "hold":
            self._release.wait()
        try:
            if self.mode == "error":
                code, text = self.error
                self._send({"jsonrpc": "2.0", "id": message["id"],
                            "error": {"code": code, "message": text}})
            elif message["method"] == "embeddings.embed":
                texts = message["params"]["texts"]
                result = (self.embed_answer(texts) if self.embed_answer is not None
                          else {"vectors": [vector(t) for t in texts]})
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": result})
            else:
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": {
                    "text": self.reply, "model": "fake/host-model",
                    "usage": {"inputTokens": len(json.dumps(message)) // 4,
                              "outputTokens": len(self.reply) // 4}}})
        except OSError:
            pass  # the connection is gone: the reply goes nowhere

    def stop_soon(self) -> None:
        sock = self._sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
