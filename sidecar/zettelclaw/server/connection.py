"""One client connection: read newline-framed messages, answer each, never die of a bad one.

Messages on one connection are handled concurrently (up to ``MAX_IN_FLIGHT``; reading pauses
beyond that), so a slow search does not hold up a hook sent after it; responses carry their
request's id and may come back in another order, as JSON-RPC allows. Each method runs shielded
from cancellation, so a shutdown lets in-flight work finish instead of cutting a write in half.

Limits (protocol.md, "Limits"): the bytes of unfinished messages held across all connections
(``BufferBudget``: past it, the message that would exceed it is dropped with -32001), the time a
message may take from its first byte to its newline (``MESSAGE_SECONDS``: past it, -32016 and
the connection is closed), and the time a response may take to be written (``SEND_SECONDS``: a
client that does not read is cut off). Answers are bounded too (``OutputBudget``): a message is
charged, before it is started, its own bytes plus an estimate of its answer (``ANSWER_ESTIMATE``
an element, ``GET_ESTIMATE`` a memory.get, at most the response limit); once answered, the
charge becomes the answer line's size, given back when the line is written. A connection does
not read its next message while its charge is over its budget, nor while the server's is over
the server's (unless it holds nothing: a client that reads its answers is always served). So a
client that writes and never reads makes the server hold a bounded amount for it, not 64
answers of 32 MiB. A failure inside the handling of one message is answered with -32603 and
logged; it never ends the connection, let alone the
server.

The same connection carries the sidecar's own requests to the client (``protocol/peer.py``): a
line that is a reply to one of them goes to its ``Peer``, everything else to the dispatcher.
When the connection ends, the peer is closed and ``on_close`` told (its offers are withdrawn).
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import Awaitable, Callable

import orjson
import trio

from zettelclaw.errors import (
    ForbiddenError,
    InternalError,
    MessageTimeoutError,
    MessageTooLargeError,
)
from zettelclaw.protocol.dispatcher import Dispatcher, encode, error_response
from zettelclaw.protocol.framing import Event, LineFramer, Oversized
from zettelclaw.protocol.limits import MAX_BATCH
from zettelclaw.protocol.outgoing import as_reply
from zettelclaw.protocol.peer import Peer, current_peer
from zettelclaw.server.listener import peer_allowed, peer_uid

logger = logging.getLogger(__name__)

MAX_IN_FLIGHT = 64
MESSAGE_SECONDS = 30.0  # from a message's first byte to its newline
SEND_SECONDS = 30.0  # to write one response
UNPARSED = object()


class BufferBudget:
    """Bytes of unfinished messages held, across every connection of one server."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
RECEIVE_BYTES = 1 << 16
ANSWER_ESTIMATE = 64 << 10  # an element's answer, before it is made
GET_ESTIMATE = 1 << 20  # a memory.get's: it reads up to 512 KiB of a file
CONNECTION_OUTPUT_FLOOR = 64 << 20  # a connection's output budget, at least
SERVER_OUTPUT_FLOOR = 256 << 20  # the server's, at least


class OutputBudget:
    """Bytes of answers charged (being made, or made and not yet written), across every
    connection of one server; ``peak`` is the most ever charged at once."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self.peak = 0
        self.changed = trio.lowlevel.ParkingLot()

    def charge(self, n: int) -> None:
        self.used += n
        self.peak = max(self.peak, self.used)
        if n < 0:
            self.changed.unpark_all()


def answer_estimate(message: bytes, limit: int) -> int:
    """What a message is charged before it runs: its bytes and its answers' (one an element of a
    batch, a memory.get's larger; at most the response limit), without parsing it."""
    elements = max(1, min(message.count(b'"method"'), MAX_BATCH))
    gets = min(message.count(b'"memory.get"'), elements)
    return len(message) + min(limit, (elements - gets) * ANSWER_ESTIMATE + gets * GET_ESTIMATE)


class ConnectionHandler:
    def __init__(self, dispatcher: Dispatcher, max_message_bytes: int,
                 on_close: Callable[[Peer], Awaitable[None]] | None = None,
                 buffer_limit: int | None = None, *, output_limit: int | None = None,
                 server_output_limit: int | None = None) -> None:
        self.dispatcher = dispatcher
        self.max_message_bytes = max_message_bytes
        self.on_close = on_close
        # four messages of the largest size at once, by default
        self.budget = BufferBudget(buffer_limit or 4 * max_message_bytes)
        self.output_limit = output_limit or max(CONNECTION_OUTPUT_FLOOR, 2 * max_message_bytes)
        self.output = OutputBudget(server_output_limit
                                   or max(SERVER_OUTPUT_FLOOR, 8 * max_message_bytes))

    async def __call__(self, stream: trio.SocketStream) -> None:
        async with stream:
            uid = peer_uid(stream)
            if not peer_allowed(uid):
                logger.warning("refused a connection from uid %d", uid)
                refusal = ForbiddenError(f"this sidecar serves its own user only; peer uid {uid}")
                await _send(stream, encode(error_response(refusal, None)))
                return
            connection = _Connection(self, stream)
            current_peer.set(connection.peer)
            try:
                await connection.serve()
            finally:
                connection.peer.close()
                if self.on_close is not None:
                    with trio.CancelScope(shield=True):
                        await self.on_close(connection.peer)


class _Connection:
    def __init__(self, handler: ConnectionHandler, stream: trio.SocketStream) -> None:
        self.dispatcher = handler.dispatcher
        self.budget = handler.budget
        self.output = handler.output
        self.output_limit = handler.output_limit
        self.max_message_bytes = handler.max_message_bytes
        self.charged = 0  # this connection's share of the output budget
        self.stream = stream
        self.send_lock = trio.Lock()
        self.framer = LineFramer(handler.max_message_bytes)
        self.in_flight = trio.Semaphore(MAX_IN_FLIGHT)
        self.peer = Peer(self._send_request)
        self.held = 0  # this connection's share of the budget
        self.started = 0.0  # when the message in progress began (trio clock)

    async def serve(self) -> None:
        try:
            async with trio.open_nursery() as nursery:
                while True:
                    data = await self._receive()
                    if data is None:
                        break
                    for event in self._frame(data):
                        if isinstance(event, Oversized):
                            await self._reply(encode(error_response(_too_large(event), None)))
                            continue
                        charge = answer_estimate(event.data, self.max_message_bytes)
                        await self._room_for(charge)
                        await self.in_flight.acquire()
                        self._charge(charge)
                        nursery.start_soon(self._answer, event.data, charge)
                    if not data:
                        break  # the client is done sending; answers in flight are still sent
        finally:
            self.budget.used -= self.held
            self._charge(-self.charged)

    async def _room_for(self, charge: int) -> None:
        """Back-pressure: wait (reading nothing more) until this connection's answers and the
        server's leave room for ``charge``. A connection that holds nothing never waits."""
        output = self.output
        while self.charged and (self.charged + charge > self.output_limit
                                or output.used + charge > output.limit):
            await output.changed.park()

    def _charge(self, n: int) -> None:
        self.charged += n
        self.output.charge(n)

    async def _receive(self) -> bytes | None:
        """The next bytes (b"" at end of stream), or None when the connection is to end."""
        deadline = self.started + MESSAGE_SECONDS if self.framer.pending else math.inf
        try:
            with trio.move_on_at(deadline):
                return await self.stream.receive_some(RECEIVE_BYTES)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return None
        error = MessageTimeoutError(
            f"a message was not completed within {MESSAGE_SECONDS:g} s of its first byte; the "
            "connection is closed", {"limit": MESSAGE_SECONDS})
        await self._reply(encode(error_response(error, None)))
        return None

    def _frame(self, data: bytes) -> list[Event]:
        framer, budget = self.framer, self.budget
        was_pending = framer.pending
        events = framer.feed(data) if data else framer.finish()
        if framer.pending and (not was_pending or events):  # a new message began
            self.started = trio.current_time()
        if framer.pending - self.held > budget.limit - budget.used:
            framer.discard()
            events.append(Oversized(budget.limit, server_wide=True))
        budget.used += framer.pending - self.held
        self.held = framer.pending
        return events

    async def _answer(self, message: bytes, charge: int) -> None:
        try:
            try:
                decoded = orjson.loads(message)
            except orjson.JSONDecodeError:
                decoded = UNPARSED  # the dispatcher answers it with -32700
            reply = as_reply(decoded)
            if reply is not None:  # the client answering one of the sidecar's requests
                if not self.peer.deliver(reply):
                    logger.info("a reply to no waiting request (%s) was dropped",
                                reply.request_id)
                return
            with trio.CancelScope(shield=True):
                try:
                    if decoded is UNPARSED:
                        response = await self.dispatcher.dispatch(message)
                    else:
                        response = await self.dispatcher.dispatch_decoded(decoded)
                except Exception as exc:  # the last wall: a bug answers -32603, nothing ends
                    logger.exception("a message could not be handled")
                    failure = InternalError(f"Internal error: {type(exc).__name__}")
                    response = encode(error_response(failure, None))
            if response is not None:
                self._charge(len(response) - charge)  # the estimate becomes what it is
                charge = len(response)
                await self._reply(response)
        finally:
            self._charge(-charge)
            self.in_flight.release()

    async def _reply(self, data: bytes) -> None:
        async with self.send_lock:
            with trio.move_on_after(SEND_SECONDS) as waited:
                await _send(self.stream, data)
        if waited.cancelled_caught:  # a client that does not read: cut it off
            logger.warning("a client did not read its response within %g s; closing its "
                           "connection", SEND_SECONDS)
            await self.stream.aclose()

    async def _send_request(self, data: bytes) -> None:
        """For the peer: raises when the client is gone or does not read."""
        async with self.send_lock:
            with trio.fail_after(SEND_SECONDS):
                await self.stream.send_all(data)


def _too_large(event: Oversized) -> MessageTooLargeError:
    if event.server_wide:
        return MessageTooLargeError(
            f"the server holds {event.limit} bytes of unfinished messages across its "
            "connections; this message was dropped (send it again shortly)",
            {"limit": event.limit, "serverWide": True})
    return MessageTooLargeError(f"message exceeds {event.limit} bytes; it was dropped",
                                {"limit": event.limit})


async def _send(stream: trio.SocketStream, data: bytes) -> None:
    with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
        await stream.send_all(data)  # if the client went away, there is no one to tell
