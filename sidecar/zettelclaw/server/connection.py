"""One client connection: read newline-framed messages, answer each, never die of a bad one.

Messages on one connection are handled concurrently (up to ``MAX_IN_FLIGHT``; reading pauses
beyond that), so a slow search does not hold up a hook sent after it; responses carry their
request's id and may come back in another order, as JSON-RPC allows. Each method runs shielded
from cancellation, so a shutdown lets in-flight work finish instead of cutting a write in half.
"""

from __future__ import annotations

import contextlib
import logging

import trio

from zettelclaw.errors import ForbiddenError, MessageTooLargeError
from zettelclaw.protocol.dispatcher import Dispatcher, encode, error_response
from zettelclaw.protocol.framing import LineFramer, Oversized
from zettelclaw.server.listener import peer_allowed, peer_uid

logger = logging.getLogger(__name__)

MAX_IN_FLIGHT = 64
RECEIVE_BYTES = 1 << 16


class ConnectionHandler:
    def __init__(self, dispatcher: Dispatcher, max_message_bytes: int) -> None:
        self.dispatcher = dispatcher
        self.max_message_bytes = max_message_bytes

    async def __call__(self, stream: trio.SocketStream) -> None:
        async with stream:
            uid = peer_uid(stream)
            if not peer_allowed(uid):
                logger.warning("refused a connection from uid %d", uid)
                refusal = ForbiddenError(f"this sidecar serves its own user only; peer uid {uid}")
                await _send(stream, encode(error_response(refusal, None)))
                return
            await self._serve(stream)

    async def _serve(self, stream: trio.SocketStream) -> None:
        framer = LineFramer(self.max_message_bytes)
        send_lock = trio.Lock()
        in_flight = trio.Semaphore(MAX_IN_FLIGHT)

        async def answer(message: bytes) -> None:
            try:
                with trio.CancelScope(shield=True):
                    response = await self.dispatcher.dispatch(message)
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
