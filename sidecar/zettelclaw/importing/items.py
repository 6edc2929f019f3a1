"""What a source reader yields: conversations to extract, notes already distilled, problems.

Readers (``importing/sources/``) turn a source's files into these and do no I/O beyond reading
them; the importer decides what each becomes. ``source_id`` is stable across runs of the same
source (a ChatGPT conversation's id, a vault file's path relative to the vault and its content
hash, ...): it is what makes a second import of the same source add nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

NoteKind = Literal["task", "fact", "decision", "question", "handoff"]
Role = Literal["user", "assistant"]


@dataclass(frozen=True)
class Message:
    """One turn of a conversation: the words only (tool calls, images, hidden turns left out)."""

    role: Role
    text: str
    at: datetime | None  # aware (UTC when the source gives no zone); None when it gives no time
    # the host's mark (OpenClaw's __openclaw.senderIsOwner) on a user message; None: not said
    from_owner: bool | None = None


@dataclass(frozen=True)
class Conversation:
    """A conversation to go through extraction, as a live one would."""

    source_id: str  # e.g. "chatgpt:<conversation id>", "claude:<uuid>", "openclaw:<agent>:<sid>"
    title: str | None
    messages: tuple[Message, ...]
    origin: str  # where it was read: "conversations.json, conversation 12 (id ...)"
    # Only for the host's own sessions (OpenClaw): its session id and key. The import then
    # spools under that id, so it and the live path (hooks, the sweep) share exactly-once, and
    # the key's scope rules (no cron, group, sub-agent session) apply as they do live.
    session_id: str | None = None
    session_key: str | None = None
    channel: str | None = None  # the host's channel (telegram, ...): the admission policy's
    # the part an earlier import already sent (``messages`` is what came since): shown to the
    # model as context, not extracted again
    context: tuple[Message, ...] = ()

    @property
    def started(self) -> datetime | None:
        return next((m.at for m in self.messages if m.at is not None), None)


@dataclass(frozen=True)
class Note:
    """An entry already distilled by its source (a dated line of a daily note, a vault page)."""

    source_id: str  # stable per note: e.g. "memory-core:memory/2026-03-01.md#3:<hash>"
    kind: NoteKind
    content: str
    at: datetime | None  # the source's time for it; None when it gives none
    origin: str  # "memory/2026-03-01.md, line 3"
    subject: str | None = None  # a slug when the source names one (a vault project, a folder)
    detail: str | None = None
    status: Literal["open", "done"] | None = None  # tasks only


@dataclass(frozen=True)
class Problem:
    """A part of a source that could not be read; the rest is still imported."""

    origin: str  # the file and the place: "conversations.json, conversation 12", "x.md, line 1"
    message: str  # what is wrong, for a person


Item = Conversation | Note | Problem
