"""One client connection: read newline-framed messages, answer each, never die of a bad one.

Messages on one connection are handled concurrently (up to ``MAX_IN_FLIGHT``; reading pauses
beyond that), so a slow search does not hold up a hook sent after it; responses carry their
request's id and may come back in another order, as JSON-RPC allows. Each method runs shielded
from cancellation, so a shutdown lets in-flight work finish instead of cutting a write in half.

The same connection carries the sidecar's own requests to the client (``server/peer.py``): a
line that is a reply to one of them goes to its ``Peer``, everything else to the dispatcher.
When the connection ends, the peer is closed and ``on_close`` told (its offers are withdrawn).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable

import orjson
import trio

from zettelclaw.errors import ForbiddenError, MessageTooLargeError
from zettelclaw.protocol.dispatcher import Dispatcher, encode, error_response
from zettelclaw.protocol.framing import LineFramer, Oversized
from zettelclaw.protocol.outgoing import as_reply
from zettelclaw.server.listener import peer_allowed, peer_uid
from zettelclaw.server.peer import Peer, current_peer

logger = logging.getLogger(__name__)

MAX_IN_FLIGHT = 64
UNPARSED = object()
RECEIVE_BYTES = 1 << 16


class ConnectionHandler:
    def __init__(self, dispatcher: Dispatcher, max_message_bytes: int,
                 on_close: Callable[[Peer], Awaitable[None]] | None = None) -> None:
        self.dispatcher = dispatcher
        self.max_message_bytes = max_message_bytes
        self.on_close = on_close

    async def __call__(self, stream: trio.SocketStream) -> None:
        async with stream:
            uid = peer_uid(stream)
            if not peer_allowed(uid):
                logger.warning("refused a connection from uid %d", uid)
                refusal = ForbiddenError(f"this sidecar serves its own user only; peer uid {uid}")
                await _send(stream, encode(error_response(refusal, None)))
                return
            send_lock = trio.Lock()

            async def send(data: bytes) -> None:  # for the peer: raises when the client is gone
                async with send_lock:
                    await stream.send_all(data)

            peer = Peer(send, uid)
            current_peer.set(peer)
            try:
                await self._serve(stream, send_lock, peer)
            finally:
                peer.close()
                if self.on_close is not None:
                    with trio.CancelScope(shield=True):
                        await self.on_close(peer)

    async def _serve(self, stream: trio.SocketStream, send_lock: trio.Lock, peer: Peer) -> None:
        framer = LineFramer(self.max_message_bytes)
        in_flight = trio.Semaphore(MAX_IN_FLIGHT)

        async def answer(message: bytes) -> None:
            try:
                try:
                    decoded = orjson.loads(message)
                except orjson.JSONDecodeError:
                    decoded = UNPARSED  # the dispatcher answers it with -32700
                reply = as_reply(decoded)
                if reply is not None:  # the client answering one of the sidecar's requests
                    if not peer.deliver(reply):
                        logger.info("a reply to no waiting request (%s) was dropped",
                                    reply.request_id)
                    return
                with trio.CancelScope(shield=True):
                    if decoded is UNPARSED:
                        response = await self.dispatcher.dispatch(message)
                    else:
                        response = await self.dispatcher.dispatch_decoded(decoded)
                if response is not None:
                    async with send_lock:
                        await _send(stream, response)
            finally:
                in_flight.release()

        async with trio.open_nursery() as nursery:
            while True:
                try:
                    data = await stream.receive_some(RECEIVE_BYTES)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    break
                events = framer.feed(data) if data else framer.finish()
                for event in events:
                    if isinstance(event, Oversized):
                        error = MessageTooLargeError(
                            f"message exceeds {event.limit} bytes; it was dropped",
                            {"limit": event.limit})
                        async with send_lock:
                            await _send(stream, encode(error_response(error, None)))
                        continue
                    await in_flight.acquire()
                    nursery.start_soon(answer, event.data)
                if not data:
                    break  # the client is done sending; answers still in flight are sent


async def _send(stream: trio.SocketStream, data: bytes) -> None:
    with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
        await stream.send_all(data)  # if the client went away, there is no one to tell
