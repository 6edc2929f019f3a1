"""The client at the other end of one connection, as the sidecar's own requests see it.

A ``Peer`` sends a request on the connection and waits for the reply the connection hands back
(``deliver``); when the connection ends, every request still waiting fails with ``PeerGone``.
What the client offers (``host.offer``) is kept on its peer, so an offer lives exactly as long
as the connection that made it.
"""

from __future__ import annotations

import contextvars
import itertools
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from zettelclaw.errors import PeerGone
from zettelclaw.protocol.outgoing import Reply, request_line

Send = Callable[[bytes], Awaitable[None]]  # raises trio.BrokenResourceError & co when gone

# The peer of the connection a method runs for: set by the connection's task, inherited by the
# task that answers each of its messages (trio copies the context into each task it starts).
current_peer: contextvars.ContextVar[Peer | None] = contextvars.ContextVar("current_peer",
                                                                          default=None)

_ids = itertools.count(1)  # process-wide: an id is never reused, even across connections


class _Waiting:
    def __init__(self) -> None:
        self.done = trio.Event()
        self.reply: Reply | None = None


class Peer:
    def __init__(self, send: Send) -> None:
        self._send = send
        self.offers: dict[str, dict[str, Any]] = {}  # capability -> what the client said of it
        self.closed = False
        self._waiting: dict[str, _Waiting] = {}

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        """The result of ``method`` on the client. Raises the error it answered with (as its
        ``ZettelclawError`` class) or ``PeerGone``. The caller sets the deadline (a cancel
        scope); the request is then forgotten, and a late reply dropped."""
        if self.closed:
            raise PeerGone("the client had disconnected")
        request_id = f"zc-{next(_ids)}"
        waiting = self._waiting[request_id] = _Waiting()
        try:
            try:
                await self._send(request_line(request_id, method, params))
            except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
                raise PeerGone(f"cannot write to the client: {exc or type(exc).__name__}"
                               ) from None
            await waiting.done.wait()
        finally:
            del self._waiting[request_id]
        if waiting.reply is None:
            raise PeerGone("the client disconnected before it answered")
        if waiting.reply.error is not None:
            raise waiting.reply.error
        return waiting.reply.result

    def deliver(self, reply: Reply) -> bool:
        """Hand a reply to its request; False when none waits for it (late, or not ours)."""
        waiting = self._waiting.get(reply.request_id)
        if waiting is None or waiting.done.is_set():
            return False
        waiting.reply = reply
        waiting.done.set()
        return True

    def close(self) -> None:
        """The connection ended: whatever still waits learns it now."""
        self.closed = True
        self.offers.clear()
        for waiting in self._waiting.values():
            waiting.done.set()  # with no reply: PeerGone
