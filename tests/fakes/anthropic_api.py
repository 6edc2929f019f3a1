"""A fake Anthropic Messages API on 127.0.0.1, for the real ``anthropic`` SDK to talk to.

Replies are scripted in order (``add``), else the ``default`` reply is used; every request body
is recorded. A reply can be a text, an HTTP error with headers, a delay (to cause a client
timeout), or held until ``release()`` (to kill a sidecar while its model call is in flight).

Run standalone (for subprocess and end-to-end tests):
``python -m tests.fakes.anthropic_api --reply-file FILE`` prints its URL (a free port), then answers
every request with the text in FILE (read at each request); ``--log FILE`` appends every request
body to FILE, one JSON object a line.
"""

from __future__ import annotations

import argparse
import json
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from tests.fakes.local_server import LocalServer


@dataclass
class Reply:
    text: str | None = None  # 200 with this text
    status: int = 200
    error_type: str = "api_error"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    hold: bool = False  # wait for release() before answering
    stop_reason: str = "end_turn"  # "max_tokens": the reply was cut at its token limit


def message(text: str, model: str, stop_reason: str = "end_turn") -> dict[str, Any]:
    return {"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": text}], "stop_reason": stop_reason,
            "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 10}}


class FakeAnthropic(LocalServer):
    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.default: Reply | None = Reply(text='{"type":"handoff","content":"Nothing new"}')
        self.requests: list[dict[str, Any]] = []
        self.reply_file: Path | None = None
        # when set, answers every request not answered by ``add``: request body -> Reply
        self.respond: Callable[[dict[str, Any]], Reply] | None = None
        self.log_file: Path | None = None
        self._released = threading.Event()
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        super().__init__(self._handler())

    def stop(self) -> None:
        self._stopping.set()  # a held or delayed reply ends now
        self._released.set()
        super().stop()

    def add(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def release(self) -> None:
        self._released.set()

    def numbered(self, text: str, *, hold: bool = False) -> None:
        """Answer every call with ``text`` made its own (each content numbered): the same
        entries from two jobs of one memory would be written once (memory holds them already),
        by whichever job finished first."""
        calls = iter(range(1, 10_000))

        def respond(body: dict[str, Any]) -> Reply:
            return Reply(text=text.replace('"content":"', f'"content":"#{next(calls)} '),
                         hold=hold)

        self.respond = respond
        self.default = None

    def prompts(self) -> list[str]:
        return [r["messages"][0]["content"] for r in self.requests]

    def _next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self.replies:
                return self.replies.popleft()
        if self.respond is not None:
            return self.respond(body)
        if self.reply_file is not None:
            return Reply(text=self.reply_file.read_text())
        if self.default is None:
            return Reply(status=500, text=None)
        return self.default

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with fake._lock:
                    fake.requests.append(body)
                    if fake.log_file is not None:
                        with fake.log_file.open("a", encoding="utf-8") as log:
                            log.write(json.dumps(body) + "\n")
                reply = fake._next(body)
                if reply.hold:
                    fake._released.wait()
                if reply.delay:
                    fake._stopping.wait(reply.delay)
                if reply.status == 200 and reply.text is not None:
                    payload = message(reply.text, body.get("model", "?"), reply.stop_reason)
                else:
                    payload = {"type": "error",
                               "error": {"type": reply.error_type, "message": "fake error"}}
                data = json.dumps(payload).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test): nothing to answer

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reply-file", type=Path, required=True)
    parser.add_argument("--log", type=Path, help="append every request body here (JSON lines)")
    args = parser.parse_args()
    fake = FakeAnthropic()
    fake.reply_file = args.reply_file
    fake.log_file = args.log
    fake.serve_until_interrupted()


if __name__ == "__main__":
    main()
