"""Newline-delimited framing with a size bound. Pure: bytes in, messages out, no I/O.

Each message is one line of UTF-8 JSON. A line longer than the bound is not buffered: its bytes
are dropped up to the next newline, and the caller is told once, so it can answer with an error
and go on reading the messages after it.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Message:
    data: bytes


@dataclass(frozen=True, slots=True)
class Oversized:
    limit: int
    server_wide: bool = False  # dropped for the server's budget of unfinished bytes


Event = Message | Oversized


class LineFramer:
    def __init__(self, max_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._buffer = bytearray()
        self._discarding = False

    def feed(self, data: bytes) -> list[Event]:
        events: list[Event] = []
        start = 0
        while start < len(data):
            newline = data.find(b"\n", start)
            stop = len(data) if newline < 0 else newline
            if self._discarding:
                if newline >= 0:
                    self._discarding = False
            else:
                self._buffer += data[start:stop]
                if len(self._buffer) > self.max_bytes:
                    self._buffer.clear()
                    events.append(Oversized(self.max_bytes))
                    self._discarding = newline < 0
                elif newline >= 0:
                    line = bytes(self._buffer).strip()
                    self._buffer.clear()
                    if line:  # blank lines between messages are allowed and ignored
                        events.append(Message(line))
            if newline < 0:
                break
            start = newline + 1
        return events

    def discard(self) -> None:
        """Drop the message in progress: its bytes held so far, and the rest up to its newline."""
        if self._buffer:
            self._buffer.clear()
            self._discarding = True

    def finish(self) -> list[Event]:
        """At end of stream: a last message that lacked its newline is still a message."""
        line = bytes(self._buffer).strip()
        self._buffer.clear()
        return [Message(line)] if line and not self._discarding else []

    @property
    def pending(self) -> int:
        """Bytes of an incomplete message held back (for end-of-stream reporting)."""
        return len(self._buffer)
