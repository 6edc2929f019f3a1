"""A fake OpenAI-compatible chat model on 127.0.0.1, for a real OpenClaw gateway to talk to.

OpenClaw (``api: "openai-completions"``) streams every request: the fake answers ``POST
/v1/chat/completions`` with server-sent ``chat.completion.chunk`` events (and a plain
``chat.completion`` when ``stream`` is false), and ``GET /v1/models``.

How the reply is chosen, first rule that matches:

0. an extraction prompt (a user message that starts as ``prompts/extraction.md`` does, sent by
   the sidecar through OpenClaw's ``llm.complete``, the host's model route, or straight to
   this server, the local-model route): the next of ``extraction_replies`` (text and finish
   reason: ``"length"`` is a reply cut at its token limit), else the text of ``--reply-file``
   (the entries the test wants extracted), else a bare handoff; a message's details prompt
   (``prompts/extraction-details.md``, the local route's second reading): the next of
   ``details_replies``, else ``none``;
1. after a tool result (the last message is ``role: "tool"``, ignoring OpenClaw's trailing
   internal-context user message): the text ``FAKE_TOOL_RESULT_SEEN <the tool's text>``;
2. the user's text of this turn holds ``CALL_TOOL:<name> <json arguments>`` and a tool of that
   name is offered: a streamed ``tool_calls`` delta calling it;
3. otherwise ``FAKE_REPLY #<n>``.

OpenClaw sends the user's words and then a second user message with its internal context, so
"the user's text of this turn" is every user message after the last assistant message.

Every request body is appended to ``--log`` (one JSON object a line) with a ``_meta`` member
(time, reply), so a test can check what the model was sent. Run it as
``python -m tests.fakes.openai_api --log FILE``: it prints its URL (a free port) when ready.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from tests.fakes.local_server import LocalServer

INTERNAL_CONTEXT = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>"
CALL_TOOL = re.compile(r"CALL_TOOL:([A-Za-z0-9_\-]+)[ \t]*(\{[^\n]*\})?")
MODEL = "fake-model"


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content
                         if isinstance(p, dict) and p.get("type") in ("text", "input_text"))
    return "" if content is None else str(content)


def offered_tools(body: dict[str, Any]) -> set[str]:
    names = set()
    for tool in body.get("tools") or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and function.get("name"):
            names.add(function["name"])
    return names


EXTRACTION_PROMPT = "You are the memory extraction agent"
DETAILS_PROMPT = "Rewrite a chat message as facts about its speaker"


def asks(body: dict[str, Any], prompt: str) -> bool:
    """Whether the request is one of the sidecar's prompts (its user message opens so)."""
    return any(m.get("role") == "user" and text_of(m.get("content")).lstrip().startswith(prompt)
               for m in body.get("messages") or [])


def choose_reply(body: dict[str, Any], n: int, reply_file: Path | None = None,  # noqa: PLR0911
                 queued: list[tuple[str, str]] | None = None,
                 details: list[str] | None = None) -> dict[str, Any]:
    messages = body.get("messages") or []
    if asks(body, DETAILS_PROMPT):
        return {"text": details.pop(0) if details else "none", "extraction": True}
    if asks(body, EXTRACTION_PROMPT):
        if queued:
            text, finish = queued.pop(0)
            return {"text": text, "extraction": True, "finish": finish}
        if reply_file is not None and reply_file.exists():
            return {"text": reply_file.read_text(), "extraction": True}
        return {"text": '{"type": "handoff", "content": "nothing to keep"}', "extraction": True}
    for message in reversed(messages):
        if message.get("role") == "tool":
            return {"text": "FAKE_TOOL_RESULT_SEEN " + text_of(message.get("content"))}
        is_context = (message.get("role") == "user"
                      and text_of(message.get("content")).lstrip().startswith(INTERNAL_CONTEXT))
        if not is_context:
            break
    turn: list[str] = []
    for message in reversed(messages):
        if message.get("role") == "assistant":
            break
        if message.get("role") == "user":
            turn.append(text_of(message.get("content")))
    match = CALL_TOOL.search("\n".join(reversed(turn)))
    if match and match[1] in offered_tools(body):
        try:
            arguments = json.loads(match[2]) if match[2] else {}
        except ValueError:
            arguments = {}
        return {"tool_call": {"name": match[1], "arguments": arguments}}
    return {"text": f"FAKE_REPLY #{n}"}


class FakeModel(LocalServer):
    path = "/v1"

    def __init__(self, log: Path | None, reply_file: Path | None = None) -> None:
        self.log = log
        self.reply_file = reply_file
        self.extraction_replies: list[tuple[str, str]] = []  # (text, finish reason), in order
        self.details_replies: list[str] = []  # a message's details, in order
        self.requests: list[dict[str, Any]] = []
        self.count = 0
        self.lock = threading.Lock()
        self.status = 200  # anything else: a POST is answered that error
        self.body: bytes | None = None  # when set, a POST is answered these bytes, as they are
        self.usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        self.timings: dict[str, Any] | None = None  # llama.cpp's account of a call, when set
        # when set, a POST waits for it before answering (a server that stalls), at most 30 s
        self.release: threading.Event | None = None
        super().__init__(self._handler())

    @property
    def extraction_requests(self) -> list[dict[str, Any]]:
        """The requests of the extraction prompt proper (not a message's details)."""
        return [r for r in self.requests if asks(r, EXTRACTION_PROMPT)]

    def reply_to(self, body: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            self.count += 1
            self.requests.append(body)
            reply = choose_reply(body, self.count, self.reply_file, self.extraction_replies,
                                 self.details_replies)
            if self.log is not None:
                record = {**body, "_meta": {"t": time.time(), "reply": reply}}
                with self.log.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(record) + "\n")
        return reply

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._json(200, {"object": "list", "data": [
                        {"id": MODEL, "object": "model", "created": 0, "owned_by": "fake"}]})
                else:
                    self._json(404, {"error": {"message": f"not found: {self.path}"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    body = {}
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._json(404, {"error": {"message": f"not found: {self.path}"}})
                    return
                if fake.status != 200:
                    self._json(fake.status, {"error": {"message": "fake failure"}})
                    return
                if fake.body is not None:
                    self.send_response(200)
                    self.send_header("content-length", str(len(fake.body)))
                    self.end_headers()
                    self.wfile.write(fake.body)
                    return
                if fake.release is not None:
                    fake.release.wait(30)
                reply = fake.reply_to(body)
                if body.get("stream"):
                    self._stream(body, reply)
                else:
                    self._plain(body, reply)

            def _json(self, status: int, value: Any) -> None:
                data = json.dumps(value).encode()
                # the client may have given up first (its timeout, while ``release`` held)
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)

            def _plain(self, body: dict[str, Any], reply: dict[str, Any]) -> None:
                message: dict[str, Any] = {"role": "assistant", "content": reply.get("text")}
                finish = reply.get("finish", "stop")
                if "tool_call" in reply:
                    call = reply["tool_call"]
                    message["tool_calls"] = [{
                        "id": f"call_{uuid.uuid4().hex[:12]}", "type": "function",
                        "function": {"name": call["name"],
                                     "arguments": json.dumps(call["arguments"])}}]
                    finish = "tool_calls"
                self._json(200, {
                    "id": f"chatcmpl-{uuid.uuid4().hex}", "object": "chat.completion",
                    "created": int(time.time()), "model": body.get("model", MODEL),
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": fake.usage,
                    **({"timings": fake.timings} if fake.timings is not None else {})})

            def _stream(self, body: dict[str, Any], reply: dict[str, Any]) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("connection", "close")
                self.end_headers()
                base = {"id": f"chatcmpl-{uuid.uuid4().hex}", "object": "chat.completion.chunk",
                        "created": int(time.time()), "model": body.get("model", MODEL)}

                def send(chunk: dict[str, Any]) -> None:
                    self.wfile.write(b"data: " + json.dumps({**base, **chunk}).encode() + b"\n\n")

                def delta(value: dict[str, Any], finish: str | None = None) -> None:
                    send({"choices": [{"index": 0, "delta": value, "finish_reason": finish}]})

                if "tool_call" in reply:
                    call = reply["tool_call"]
                    delta({"role": "assistant", "content": None, "tool_calls": [{
                        "index": 0, "id": f"call_{uuid.uuid4().hex[:12]}", "type": "function",
                        "function": {"name": call["name"], "arguments": ""}}]})
                    delta({"tool_calls": [{"index": 0, "function": {
                        "arguments": json.dumps(call["arguments"])}}]})
                    delta({}, "tool_calls")
                else:
                    text = reply["text"]
                    delta({"role": "assistant", "content": ""})
                    for start in range(0, len(text), 64):
                        delta({"content": text[start:start + 64]})
                    delta({}, "stop")
                if (body.get("stream_options") or {}).get("include_usage"):
                    send({"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5,
                                                   "total_tokens": 15}})
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log", type=Path, help="append every request body here (JSON lines)")
    parser.add_argument("--reply-file", type=Path,
                        help="what an extraction prompt is answered with (rule 0)")
    args = parser.parse_args()
    FakeModel(args.log, args.reply_file).serve_until_interrupted()


if __name__ == "__main__":
    main()
