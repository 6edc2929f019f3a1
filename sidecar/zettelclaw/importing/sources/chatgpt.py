"""A ChatGPT data export (Settings > Data controls > Export): its zip, its ``conversations.json``
(or shards ``conversations-NNN.json``), or the folder it was unpacked into.

The format: a list of conversations, each with ``id`` (and ``conversation_id``, the same),
``title``, ``create_time`` and ``update_time`` (epoch seconds), ``current_node`` and ``mapping``:
node id -> ``{id, message, parent, children}``. Edits and regenerations make the mapping a tree;
the conversation the user sees is the path from ``current_node`` up through ``parent`` to the
root, and only that path is read (the other branches are drafts the user replaced).

What becomes a ``Message``: a node's message whose ``author.role`` is ``user`` or ``assistant``,
addressed to everyone (``recipient`` "all": an assistant's message to a tool is a tool call),
not hidden (``metadata.is_visually_hidden_from_conversation``, ``weight`` 0), whose
``content.content_type`` is ``text`` or ``multimodal_text``: the string parts, the text of voice
transcriptions (``audio_transcription`` parts), ``[image]`` for an image part. Left out: system
and tool messages, code sent to tools, their output (``execution_output``, ``tether_*``),
reasoning (``thoughts``, ``reasoning_recap``).

Custom instructions (a hidden ``user_editable_context`` message: ``user_profile``, what the user
says about themselves, and ``user_instructions``, how they want answers; each wrapped by
ChatGPT in its own preamble and a ``` fence, which are taken off) are the owner's own words about
themselves: each distinct text is one one-message Conversation (``chatgpt:custom-instructions``),
undated (they hold until changed), however many conversations carry it.
Citation marks the answers carry (private-use ``\\ue200...\\ue201`` and ``【...†...】``) are
removed. A message's time is its ``create_time``; when that is null, the time of the message
before it, or the conversation's ``create_time`` for the first (None only when the source has
none). Messages keep the tree's order, not their times'. A conversation with no message left is
not yielded.

``source_id``: ``chatgpt:<id>``. A conversation without ``mapping`` or an id, or whose parent
chain loops, is a Problem; a missing or unknown ``current_node`` falls back to the latest leaf.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from zettelclaw.importing.items import Conversation, Item, Message, Problem, Role
from zettelclaw.importing.sources import exports

SOURCE = "chatgpt"
INSTRUCTIONS = f"{SOURCE}:custom-instructions"
_FENCED = re.compile(r"```\s*(.*?)\s*```", re.DOTALL)
_CITATION = re.compile(r"\ue200[^\ue201]*\ue201|【[^】\n]{0,80}†[^】\n]{0,200}】")
_TEXT_TYPES = {"text", "multimodal_text"}


def detect(path: Path) -> str | None:
    """"chatgpt" when ``path`` (zip, json or folder) holds a ChatGPT conversations list."""
    return SOURCE if exports.sniff(path) == SOURCE else None


def read(path: Path) -> Iterator[Item]:
    """The conversations of the export at ``path``, and a Problem for each part unread."""
    seen: set[str] = set()  # custom instructions: one item per distinct text

    def convert(element: exports.Element) -> Iterator[Item]:
        for item in _conversation(element):
            if isinstance(item, Conversation) and item.source_id == INSTRUCTIONS:
                if item.messages[0].text in seen:
                    continue
                seen.add(item.messages[0].text)
            yield item

    return exports.read_conversations(path, "ChatGPT", convert)


def _conversation(element: exports.Element) -> Iterator[Item]:
    value = element.value
    if not isinstance(value, dict):
        yield Problem(element.place, f"a JSON {type(value).__name__}, not a conversation object")
        return
    mapping = value.get("mapping")
    if not isinstance(mapping, dict):
        yield Problem(element.place, "no 'mapping' of messages: not a ChatGPT conversation; "
                                     "skipped")
        return
    ident = value.get("conversation_id") or value.get("id")
    if not isinstance(ident, str) or not ident:
        yield Problem(element.place, "no conversation id ('id' or 'conversation_id'): skipped")
        return
    place = f"{element.place} (id {ident})"
    path = _path(mapping, value.get("current_node"))
    if path is None:
        yield Problem(place, "its messages' parent links loop: skipped")
        return
    instructions = next((text for node in path
                         if (text := _instructions(node.get("message"))) is not None), None)
    if instructions is not None:
        yield Conversation(source_id=INSTRUCTIONS, title="ChatGPT custom instructions",
                           messages=(Message("user", instructions, None),),
                           origin=f"{place}, custom instructions")
    messages = tuple(message for node in path
                     if (message := _message(node.get("message"))) is not None)
    if not messages:
        return
    title = value.get("title")
    yield Conversation(
        source_id=f"{SOURCE}:{ident}",
        title=(exports.clean_text(title.strip()) or None) if isinstance(title, str) else None,
        messages=exports.fill_times(messages, exports.from_epoch(value.get("create_time"))),
        origin=place,
    )


def _path(mapping: dict[str, Any], current: object) -> list[Mapping[str, Any]] | None:
    """The nodes from the root down to ``current`` (or the latest leaf); None on a loop."""
    if not isinstance(current, str) or current not in mapping:
        current = _latest_leaf(mapping)
    nodes: list[Mapping[str, Any]] = []
    seen: set[str] = set()
    at: object = current
    while isinstance(at, str) and at in mapping:
        if at in seen:
            return None
        seen.add(at)
        node = mapping[at]
        if not isinstance(node, dict):
            break
        nodes.append(node)
        at = node.get("parent")
    nodes.reverse()
    return nodes


def _latest_leaf(mapping: dict[str, Any]) -> str | None:
    parents = {node.get("parent") for node in mapping.values() if isinstance(node, dict)}
    best: tuple[float, str] | None = None
    for key, node in mapping.items():
        if key in parents or not isinstance(node, dict):
            continue
        message = node.get("message")
        when = message.get("create_time") if isinstance(message, dict) else None
        rank = (float(when) if isinstance(when, int | float) else float("-inf"), key)
        if best is None or rank > best:
            best = rank
    return best[1] if best is not None else None


def _message(message: object) -> Message | None:
    if not isinstance(message, dict) or not _shown(message):
        return None
    content = message.get("content")
    if not isinstance(content, dict) or content.get("content_type") not in _TEXT_TYPES:
        return None
    parts = content.get("parts")
    texts = map(_part_text, parts) if isinstance(parts, list) else ()
    text = _CITATION.sub("", "\n".join(filter(None, texts))).strip()
    if not text:
        return None
    author = message["author"]
    role: Role = "user" if author["role"] == "user" else "assistant"
    return Message(role, exports.clean_text(text), exports.from_epoch(message.get("create_time")))


def _shown(message: dict[str, Any]) -> bool:
    """Whether the user saw ``message`` as a turn of the conversation, theirs or the model's."""
    author = message.get("author")
    if not isinstance(author, dict) or author.get("role") not in ("user", "assistant"):
        return False
    metadata = message.get("metadata")
    hidden = isinstance(metadata, dict) and bool(
        metadata.get("is_visually_hidden_from_conversation"))
    return not hidden and message.get("weight") != 0 and \
        message.get("recipient", "all") in ("all", None)


def _part_text(part: object) -> str | None:
    if isinstance(part, str):
        return part
    if not isinstance(part, dict):
        return None
    kind = part.get("content_type")
    if kind == "audio_transcription":
        text = part.get("text")
        return text if isinstance(text, str) else None
    if kind == "image_asset_pointer":
        return "[image]"
    return None


def _instructions(message: object) -> str | None:
    """The text of a custom-instructions message, as the owner wrote it; None if not one."""
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if not isinstance(content, dict) or content.get("content_type") != "user_editable_context":
        return None
    parts = content.get("parts")
    said = [(label, _unwrapped(content.get(key)))
            for key, label in (("user_profile", "About me"),
                               ("user_instructions", "How I want to be answered"))]
    lines = [f"{label}: {text}" for label, text in said if text]
    if not lines and isinstance(parts, list):  # an older form: the text in parts
        lines = [text for part in parts if (text := _unwrapped(part))]
    if not lines:
        return None
    return exports.clean_text("My ChatGPT custom instructions.\n" + "\n".join(lines))


def _unwrapped(value: object) -> str | None:
    """``value`` without ChatGPT's preamble: the text inside its ``` fence when it has one."""
    if not isinstance(value, str):
        return None
    fenced = _FENCED.search(value)
    text = (fenced.group(1) if fenced else value).strip()
    return text or None
