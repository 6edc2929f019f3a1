"""Transcripts as hosts deliver them, reduced to the user's and the assistant's words.

A hook may carry OpenClaw message objects (``{"role", "content", "timestamp"}``), transcript
events (``{"type": "message", "id", "timestamp", "message": {...}}``, with other event types such
as ``session``, ``reset`` or ``model_change`` in between), or a path to a JSONL transcript file in
the older OpenClaw format. Content is a string or a list of blocks; only text blocks of user and
assistant messages are kept: tool calls, tool results, thinking and images are noise here.

Each message gets a key that is the same whichever form it came in (role, the message's own
timestamp, and its text), so a stretch delivered twice (by before_reset inline and again by
session_end from the session store) is recognised as already received.

Secrets are replaced by markers here (scrub/), before a message is keyed, spooled or kept in
a provenance transcript: nothing downstream ever holds them.

The memory tools' calls and results are not kept as text, but the entry ids they name are
(``refs``, on the message they came with or the next one): the entries a conversation read are
shown to the extraction model, so that a correction of one comes back with ``replaces``
(extraction/context.py).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from zettelclaw.scrub import scrub

KEPT_ROLES = ("user", "assistant")
TEXT_BLOCKS = ("text", "input_text", "output_text")
TOOL_RESULT_ROLES = ("toolResult", "tool")
CALL_BLOCKS = ("toolCall", "tool_use")
# an entry id's shape (log/schema.py ID_ALPHABET, 12 characters), as a JSON string value
_ID_VALUE = re.compile(r'"(?:id|path|replaces)"\s*:\s*"([A-Za-z0-9_-]{12})"')
MAX_REFS = 200  # per message: a hostile transcript cannot make the prompt's lookups unbounded


@dataclass(frozen=True)
class Message:
    key: str
    role: str
    text: str
    timestamp: str | None  # ISO 8601 UTC, when the host gave one
    # OpenClaw marks user messages with __openclaw.senderIsOwner; None when the host does not say
    from_owner: bool | None = None
    # entry ids the memory tools read around this message (not part of its key)
    refs: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        value = {"key": self.key, "role": self.role, "text": self.text,
                 "timestamp": self.timestamp}
        return {**value, "refs": list(self.refs)} if self.refs else value

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> Message:
        refs = value.get("refs")
        return cls(str(value["key"]), str(value["role"]), str(value["text"]),
                   value.get("timestamp"),
                   refs=tuple(str(r) for r in refs[:MAX_REFS]) if isinstance(refs, list) else ())


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        parts = [block.get("text", "") for block in content
                 if isinstance(block, dict) and block.get("type") in TEXT_BLOCKS
                 and isinstance(block.get("text"), str)]
        return "\n".join(p.strip() for p in parts if p.strip())
    return ""


def _tool_refs(message: Mapping[str, Any]) -> list[str]:
    """The entry ids a memory tool's call (``memory_get``'s ``path``) or result names."""
    content = message.get("content")
    if message.get("role") in TOOL_RESULT_ROLES:
        name = message.get("toolName") or message.get("name")
        if not (isinstance(name, str) and name.startswith("memory_")):
            return []
        text = content if isinstance(content, str) else "\n".join(
            block.get("text", "") for block in content or []
            if isinstance(block, dict) and isinstance(block.get("text"), str)) \
            if isinstance(content, list) else ""
        return _ID_VALUE.findall(text)
    found = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") in CALL_BLOCKS and \
                block.get("name") == "memory_get":
            arguments = block.get("arguments") or block.get("input")
            path = arguments.get("path") if isinstance(arguments, dict) else None
            if isinstance(path, str) and len(path) == 12:
                found.append(path)
    return found


def _iso(value: Any) -> str | None:
    """A message timestamp (epoch ms or s, or ISO 8601) as ISO 8601 UTC with milliseconds."""
    if isinstance(value, bool):
        return None
    try:  # out of range (1e20 ms, year 9999 at -01:00) is as unusable as no timestamp
        if isinstance(value, int | float):
            seconds = value / 1000 if value > 1e11 else value
            moment = datetime.fromtimestamp(seconds, UTC)
        elif isinstance(value, str) and value:
            moment = datetime.fromisoformat(value)
            moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
        else:
            return None
        return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    except (ValueError, OverflowError, OSError):
        return None


def _key(role: str, timestamp: str | None, text: str, ordinal: int) -> str:
    # The ordinal only matters for messages without a timestamp that repeat the same text.
    basis = f"{role}\x00{timestamp or f'#{ordinal}'}\x00{text}".encode()
    return hashlib.blake2b(basis, digest_size=12).hexdigest()


def _unwrap(item: Any) -> tuple[dict[str, Any], Any] | None:
    """The message object inside an item, and the event's timestamp; None for other events."""
    if not isinstance(item, dict):
        return None
    if item.get("type") == "message" and isinstance(item.get("message"), dict):
        return item["message"], item.get("timestamp")
    if "role" in item:
        return item, None
    return None


def normalize(items: Iterable[Any]) -> list[Message]:
    """User and assistant text messages, in order, each with its key."""
    messages: list[Message] = []
    seen: dict[tuple[str, str], int] = {}
    refs: list[str] = []  # read by the memory tools, for the next message kept
    for item in items:
        unwrapped = _unwrap(item)
        if unwrapped is None:
            continue
        message, event_time = unwrapped
        refs += _tool_refs(message)
        role = message.get("role")
        if role not in KEPT_ROLES:
            continue
        # Secrets out before anything is kept or keyed: the key is a hash of the text, and a
        # hash of "my password is hunter2" would let a dictionary find the password.
        text = scrub(_text(message.get("content")))
        if not text:
            continue
        timestamp = _iso(message.get("timestamp")) or _iso(event_time)
        ordinal = seen.get((role, text), 0)
        seen[(role, text)] = ordinal + 1
        marks = message.get("__openclaw")
        owner = marks.get("senderIsOwner") if isinstance(marks, dict) else None
        messages.append(Message(_key(role, timestamp, text, ordinal), role, text, timestamp,
                                owner if isinstance(owner, bool) else None,
                                tuple(dict.fromkeys(refs))[:MAX_REFS]))
        refs = []
    if refs and messages:  # read after the last words: they go with the last message
        last = messages[-1]
        messages[-1] = replace(last, refs=tuple(dict.fromkeys([*last.refs, *refs]))[:MAX_REFS])
    return messages


def read_jsonl(path: Path) -> Iterator[Any]:
    """The records of a JSONL transcript file; unreadable lines are skipped."""
    with path.open("rb") as f:
        for raw in f:
            try:
                yield orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue


def transcript_file(path: Path) -> Path | None:
    """``path``, or when it is gone, its newest ``.reset.*`` rotation
    (docs/04-extraction.md#transcripts)."""
    if path.is_file():
        return path
    rotated = sorted(path.parent.glob(f"{path.name}.reset.*"), key=lambda p: p.stat().st_mtime)
    return rotated[-1] if rotated else None


def line(m: Message) -> str:
    """A message as the transcript shows it (its length, + 2 for the blank line between, is
    what it takes of the prompt's budget)."""
    return f"[{m.role}{' ' + m.timestamp[:16].replace('T', ' ') if m.timestamp else ''}] {m.text}"


def render(messages: Iterable[Message], max_chars: int) -> tuple[str, int]:
    """The transcript as the prompt shows it, and how many earliest messages were cut to fit."""
    lines = [line(m) for m in messages]
    total, kept = 0, list[str]()
    for text in reversed(lines):  # keep the end of a long conversation: its latest state
        total += len(text) + 2
        if total > max_chars:
            if not kept:  # a single message longer than the budget: keep its end
                kept.append("…" + text[-(max_chars - 1):])
            break
        kept.append(text)
    kept.reverse()
    return "\n\n".join(kept), len(lines) - len(kept)
