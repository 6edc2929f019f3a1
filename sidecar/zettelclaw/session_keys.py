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


def chat_type_of(chat_type: ChatType | None, is_group: bool | None,
                 chat_id: str | int | None, sender_id: str | int | None) -> ChatType | None:
    """What the host's raw facts say the chat is: ``chat_type`` when the host names it, else a
    group when ``is_group`` says so or the chat's id differs from the sender's (a shared chat),
    a direct chat when they agree; None when nothing says."""
    if chat_type is not None:
        return chat_type
    shared = None if chat_id is None or sender_id is None else str(chat_id) != str(sender_id)
    if is_group is True or shared is True:
        return "group"
    if is_group is False or shared is False:
        return "direct"
    return None


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


TURN_FACT_SECONDS = 30.0  # how long a noted fact stands for its session's next calls


@dataclass(frozen=True)
class Noted:
    """What the host said of a session's turn, on a call of its own (``hook.turnFacts``)."""

    is_group: bool | None = None
    chat_type: ChatType | None = None
    sender_is_owner: bool | None = None
    session_id: str | None = None  # the session the owner bit was said of
    at: float = 0.0


class TurnFacts:
    """The host's facts about a turn, noted for the calls of the same session that come without
    them: OpenClaw gives the prompt hook neither the owner bit (its tool factory has it) nor
    the group bit (before_dispatch has it). A noted fact stands for ``TURN_FACT_SECONDS``; the
    owner bit only for the session it was said of (a new session under the same key is another
    conversation). A fact the call itself carries always wins. Kept in memory, per process: a
    restart forgets them, and a fact not there is a missing fact (``Audience``'s rules)."""

    def __init__(self, seconds: float = TURN_FACT_SECONDS) -> None:
        self.seconds = seconds
        self._noted: dict[str, Noted] = {}

    def note(self, session_key: str, now: float, *, is_group: bool | None = None,
             chat_type: ChatType | None = None, sender_is_owner: bool | None = None,
             session_id: str | None = None) -> None:
        self._noted = {k: v for k, v in self._noted.items() if now - v.at <= self.seconds}
        old = self._noted.get(session_key, Noted())
        owner_session = session_id if sender_is_owner is not None else old.session_id
        self._noted[session_key] = Noted(
            is_group=old.is_group if is_group is None else is_group,
            chat_type=old.chat_type if chat_type is None else chat_type,
            sender_is_owner=old.sender_is_owner if sender_is_owner is None else sender_is_owner,
            session_id=owner_session, at=now)

    def __len__(self) -> int:
        return len(self._noted)

    def of(self, session_key: str | None, session_id: str | None, now: float) -> Noted | None:
        """The facts noted for this session and still standing, or None."""
        found = self._noted.get(session_key) if session_key else None
        if found is None or now - found.at > self.seconds:
            return None
        if found.session_id is not None and session_id is not None \
                and found.session_id != session_id:
            return Noted(is_group=found.is_group, chat_type=found.chat_type, at=found.at)
        return found
