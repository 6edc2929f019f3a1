"""Agent ids: OpenClaw's canonical form, and the agent a call names.

An id is what OpenClaw's ``normalizeAgentId`` accepts as canonical: 1-64 characters of
``[a-z0-9_-]``, starting with a letter or digit, lower-cased. It becomes a directory name, so
anything else is refused, never repaired: a malformed id must not fall back to another agent's
memory (and never to "all agents").
"""

from __future__ import annotations

import re

MAIN = "main"
AGENT_ID_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


class AgentIdError(ValueError):
    pass


def check_agent_id(value: str) -> str:
    """The canonical id (trimmed, lower-cased), or AgentIdError saying what is wrong."""
    canonical = value.strip().lower()
    if not AGENT_ID_RE.match(canonical):
        raise AgentIdError(f"{value[:80]!r} is not an agent id (1-64 of a-z, 0-9, '_', '-', "
                           "starting with a letter or digit)")
    return canonical


def agent_of_key(session_key: str | None) -> str | None:
    """The agent part of an OpenClaw session key (``agent:<agentId>:...``); None for keys of
    another shape. A key of that shape with a malformed agent part is an AgentIdError."""
    if not session_key:
        return None
    parts = session_key.split(":", 2)
    if len(parts) < 3 or parts[0].lower() != "agent":
        return None
    return check_agent_id(parts[1])


def chosen_agent(agent_id: str | None, session_key: str | None) -> str:
    """The agent a call names: ``agentId``, else the session key's agent part, else ``main``.
    Both given and different is an error: one of them is wrong, and guessing could hand one
    agent's memory to another."""
    named = check_agent_id(agent_id) if agent_id is not None else None
    keyed = agent_of_key(session_key)
    if named is not None and keyed is not None and named != keyed:
        raise AgentIdError(f"agentId {named!r} and sessionKey {session_key!r} name different "
                           "agents")
    return named or keyed or MAIN
