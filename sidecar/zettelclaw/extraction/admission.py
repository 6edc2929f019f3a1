"""The admission policy: channels, senders, session keys and agents kept out of extraction.

Checked first at intake (before the transcript is read, so nothing of the conversation is kept:
no spool job, no transcript copy) and by the sweep (which then does not ask the host for it).
A refusal is recorded like the scope's skips (``state.json`` ``skippedSessions``) and counted
(``admissionRefused``); ``status`` shows the policy and the counts.

What a rule is matched against, when known (a missing value matches no rule, as in OpenClaw's
own memory admission policy):

- ``agents``: the agent the hook names (``agentId``, else the session key's);
- ``sessionKeys``: the session key as sent;
- ``channels``: the hook's ``channel``, else the channel part of an OpenClaw session key
  (``agent:main:telegram:direct:123`` -> ``telegram``);
- ``senders``: the hook's ``senderId``, else the peer of a direct-message key
  (``agent:main:telegram:direct:123`` -> ``123``).
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase

from zettelclaw.config import AdmissionConfig
from zettelclaw.session_keys import DIRECT_PARTS, SHARED_PARTS

REASON_PREFIX = "admission policy"
_CHAT_PARTS = DIRECT_PARTS | SHARED_PARTS


@dataclass(frozen=True)
class Subject:
    """What is known of a conversation when it is offered."""

    session_key: str | None = None
    agent_id: str | None = None
    channel: str | None = None
    sender_id: str | None = None


def _key_rest(session_key: str | None) -> list[str]:
    """The parts of an OpenClaw key after ``agent:<id>:`` (case kept), or []."""
    if not session_key:
        return []
    parts = session_key.split(":")
    return parts[2:] if len(parts) >= 3 and parts[0].lower() == "agent" else []


def agent_of(subject: Subject) -> str | None:
    if subject.agent_id:
        return subject.agent_id
    parts = (subject.session_key or "").split(":")
    return parts[1].lower() if len(parts) >= 3 and parts[0].lower() == "agent" else None


def channel_of(subject: Subject) -> str | None:
    if subject.channel:
        return subject.channel
    rest = _key_rest(subject.session_key)
    if len(rest) >= 2 and rest[1].lower() in _CHAT_PARTS:
        return rest[0]
    return None


def sender_of(subject: Subject) -> str | None:
    if subject.sender_id:
        return subject.sender_id
    rest = _key_rest(subject.session_key)
    if len(rest) >= 3 and rest[1].lower() in DIRECT_PARTS:
        return rest[2]
    return None


class Admission:
    def __init__(self, config: AdmissionConfig) -> None:
        self.config = config

    @property
    def active(self) -> bool:
        c = self.config
        return bool(c.channels or c.senders or c.session_keys or c.agents)

    def refusal(self, subject: Subject) -> str | None:
        """Why the policy keeps this conversation out (one line), or None."""
        if not self.active:
            return None
        checks = (("agent", agent_of(subject), self.config.agents),
                  ("session key", subject.session_key, self.config.session_keys),
                  ("channel", channel_of(subject), self.config.channels),
                  ("sender", sender_of(subject), self.config.senders))
        for what, value, patterns in checks:
            if value is None:
                continue
            hit = next((p for p in patterns if fnmatchcase(value, p)), None)
            if hit is not None:
                return f"{REASON_PREFIX}: {what} {value} matches {hit!r}"
        return None

    def status(self, refused: int, refused_sessions: int) -> AdmissionStatus:
        c = self.config
        return AdmissionStatus(channels=list(c.channels), senders=list(c.senders),
                               session_keys=list(c.session_keys), agents=list(c.agents),
                               refused=refused, refused_sessions=refused_sessions)


@dataclass(frozen=True, slots=True)
class AdmissionStatus:
    """``status``'s ``extraction.admission``: the patterns, and what they refused so far."""

    channels: list[str]
    senders: list[str]
    session_keys: list[str]
    agents: list[str]
    refused: int
    refused_sessions: int
