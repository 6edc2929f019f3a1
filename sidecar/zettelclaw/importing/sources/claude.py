"""A Claude.ai data export (Settings > Privacy > Export data): its zip, its
``conversations.json``, or the folder it was unpacked into.

The format: a list of conversations, each with ``uuid``, ``name``, ``created_at`` and
``updated_at`` (ISO 8601) and ``chat_messages``: ``uuid``, ``sender`` ("human" or "assistant"),
``text``, ``content`` (blocks: ``{"type": "text", "text": ...}``, and ``thinking``, ``tool_use``,
``tool_result``, ...), ``created_at``, ``attachments`` (``file_name``, ``extracted_content``) and
``files`` (``file_name``).

What becomes a ``Message``: a message from "human" (the user) or "assistant"; its text is the
``text`` blocks of ``content`` joined (thinking and tool blocks left out), or the ``text`` field
when it has no ``content`` text; its attachments and files follow, each as ``[attached:
name]`` and, for an attachment Claude extracted text from (``extracted_content``: what the
model read), that text up to ``ATTACHMENT_CHARS`` characters; a longer one is cut there and
named in a Problem (the rest is left out: extraction keeps a conversation's end, and a long
document would push the conversation itself out of the prompt).
Its time is its ``created_at``; when absent or not a time, the time of the message before it,
or the conversation's ``created_at`` for the first. Messages carrying
``parent_message_uuid`` (exports since edits made branches) are read along the current branch:
from ``current_leaf_message_uuid`` when the conversation names it, else from the last message,
up through the parents; without those fields, in list order. A conversation with no message left
is not yielded.

``source_id``: ``claude:<uuid>``. A conversation without ``uuid`` or ``chat_messages`` is a
Problem; so is a message that is not an object (the rest of its conversation is read).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from zettelclaw.importing.items import Conversation, Item, Message, Problem, Role
from zettelclaw.importing.sources import exports

SOURCE = "claude"
ATTACHMENT_CHARS = 4000


def detect(path: Path) -> str | None:
    """"claude" when ``path`` (zip, json or folder) holds a Claude.ai conversations list."""
    return SOURCE if exports.sniff(path) == SOURCE else None


def read(path: Path) -> Iterator[Item]:
    """The conversations of the export at ``path``, and a Problem for each part unread."""
    return exports.read_conversations(path, "Claude", _conversation)


def _conversation(element: exports.Element) -> Iterator[Item]:
    value = element.value
    if not isinstance(value, dict):
        yield Problem(element.place, f"a JSON {type(value).__name__}, not a conversation object")
        return
    listed = value.get("chat_messages")
    if not isinstance(listed, list):
        yield Problem(element.place, "no 'chat_messages' list: not a Claude conversation; "
                                     "skipped")
        return
    ident = value.get("uuid")
    if not isinstance(ident, str) or not ident:
        yield Problem(element.place, "no conversation 'uuid': skipped")
        return
    place = f"{element.place} (uuid {ident})"
    raw: list[dict[str, Any]] = []
    for index, message in enumerate(listed):
        if isinstance(message, dict):
            raw.append(message)
        else:
            yield Problem(f"{place}, message {index}",
                          f"a JSON {type(message).__name__}, not a message: left out")
    cut: list[tuple[str, int]] = []
    messages = tuple(message for item in _branch(raw, value.get("current_leaf_message_uuid"))
                     if (message := _message(item, cut)) is not None)
    for attachment, size in cut:
        yield Problem(f"{place}, attachment {attachment}",
                      f"its text is {size:,} characters: the first {ATTACHMENT_CHARS:,} are "
                      "imported, the rest is left out")
    if not messages:
        return
    name = value.get("name")
    yield Conversation(
        source_id=f"{SOURCE}:{ident}",
        title=(exports.clean_text(name.strip()) or None) if isinstance(name, str) else None,
        messages=exports.fill_times(messages, exports.from_iso(value.get("created_at"))),
        origin=place,
    )


def _branch(messages: list[dict[str, Any]], leaf: object) -> list[dict[str, Any]]:
    """The messages of the current branch, oldest first (all of them when none is branched)."""
    if not any("parent_message_uuid" in message for message in messages):
        return messages
    by_id = {message["uuid"]: message for message in messages
             if isinstance(message.get("uuid"), str)}
    at: object = leaf if isinstance(leaf, str) and leaf in by_id else messages[-1].get("uuid")
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    while isinstance(at, str) and at in by_id and at not in seen:
        seen.add(at)
        path.append(by_id[at])
        at = by_id[at].get("parent_message_uuid")
    path.reverse()
    return path or messages


def _message(message: dict[str, Any], cut: list[tuple[str, int]]) -> Message | None:
    """``cut``: gets (name, size) of each attachment whose text was cut."""
    sender = message.get("sender")
    if sender not in ("human", "assistant"):
        return None
    text = _text(message)
    attached: dict[str, str] = {}  # name -> its extracted text ("" when none)
    for key in ("attachments", "files"):
        listed = message.get(key)
        for entry in listed if isinstance(listed, list) else ():
            if not isinstance(entry, dict) or not isinstance(entry.get("file_name"), str):
                continue
            extracted = entry.get("extracted_content")
            content = extracted.strip() if isinstance(extracted, str) else ""
            name = entry["file_name"]
            if len(content) > ATTACHMENT_CHARS:
                cut.append((name, len(content)))
                content = content[:ATTACHMENT_CHARS] + "…"
            attached[name] = attached.get(name) or content
    shown = "\n".join(f"[attached: {name}]" + (f"\n{content}" if content else "")
                      for name, content in attached.items())
    text = "\n".join(part for part in (text, shown) if part)
    if not text:
        return None
    role: Role = "user" if sender == "human" else "assistant"
    return Message(role, exports.clean_text(text), exports.from_iso(message.get("created_at")))


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        texts = [block["text"] for block in content
                 if isinstance(block, dict) and block.get("type") == "text"
                 and isinstance(block.get("text"), str)]
        joined = "\n\n".join(text.strip() for text in texts if text.strip())
        if joined:
            return joined
    text = message.get("text")
    return text.strip() if isinstance(text, str) else ""
