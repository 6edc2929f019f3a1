"""What a session key says about who is talking. Pure; used by recall and by extraction.

OpenClaw session keys look like ``agent:<agentId>:<rest>``: ``agent:main:main`` (the owner's
main session), ``agent:main:telegram:direct:123`` (a DM kept apart, maybe not the owner),
``agent:main:telegram:group:-100123:topic:42`` and ``agent:main:discord:channel:1:thread:2``
(shared chats), ``agent:main:cron:nightly:run:8821``, ``agent:main:subagent:child``,
``agent:main:hook:automation``, and named sessions such as ``agent:main:scratch-1``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

AUTOMATED_PARTS = frozenset({"cron", "sub", "subagent", "hook"})
SHARED_PARTS = frozenset({"group", "channel", "thread", "topic"})
DIRECT_PARTS = frozenset({"direct", "dm"})

ChatType = Literal["direct", "group", "channel"]


def key_parts(session_key: str) -> list[str]:
    """The parts after ``agent:<agentId>:``, lower-cased (all parts for other key shapes)."""
    parts = [p.lower() for p in session_key.split(":")]
    if len(parts) >= 3 and parts[0] == "agent":
        return parts[2:]
    return parts


def automated_reason(session_key: str | None, skip_parts: frozenset[str] = AUTOMATED_PARTS
                     ) -> str | None:
    """Why a session has no human at its keyboard (cron, subagent, hook), or None."""
    if not session_key:
        return None
    hit = next((p for p in key_parts(session_key) if p in skip_parts), None)
    return f"{hit} session" if hit else None


@dataclass(frozen=True)
class Audience:
    """Who may be reading a session's turns, from its key and what the host knows."""

    session_key: str | None
    chat_type: ChatType | None = None
    sender_is_owner: bool | None = None

    def private_reason(self) -> str | None:  # noqa: PLR0911  (one return per rule)
        """None when this is the owner's main private session; else why it is not.

        Only then may memory from the main session be injected into it.
        """
        if not self.session_key:
            return "no session key: cannot tell whose session this is"
        parts = key_parts(self.session_key)
        if hit := next((p for p in parts if p in AUTOMATED_PARTS), None):
            return f"{hit} session"
        if hit := next((p for p in parts if p in SHARED_PARTS), None):
            return f"{hit} session: others can read it"
        if self.chat_type in ("group", "channel"):
            return f"{self.chat_type} chat: others can read it"
        if self.sender_is_owner is False:
            return "the sender is not the owner"
        if any(p in DIRECT_PARTS for p in parts) and self.sender_is_owner is not True:
            return "a separate direct-message session, and the sender is not known to be the owner"
        return None
