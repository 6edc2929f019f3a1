"""Agent ids: OpenClaw's canonical form, and the agent a call names.

An id is what OpenClaw's ``normalizeAgentId`` accepts as canonical: 1-64 characters of
``[a-z0-9_-]``, starting with a letter or digit, lower-cased. It becomes a directory name, so
anything else is refused, never repaired: a malformed id must not fall back to another agent's
memory (and never to "all agents"). Only ASCII is lower-cased: Python's ``lower`` folds the
Kelvin sign (U+212A) to ``k``, so ``"wor\u212a"`` named agent ``work`` once
(tests/hostile/test_issue28_small.py).

A session key that starts ``agent:`` must be ``agent:<agentId>:<rest>`` exactly: ``agent:work``,
``" agent:work:main"`` or a key holding a control character (``"agent:work\nmain"``) is refused,
never read as ``main``'s memory (tests/test_agent_ids.py).
"""

from __future__ import annotations

import re

MAIN = "main"
AGENT_ID_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class AgentIdError(ValueError):
    pass


def check_agent_id(value: str) -> str:
    """The canonical id (trimmed, lower-cased), or AgentIdError saying what is wrong."""
    canonical = value.strip().lower()
    if not value.isascii() or not AGENT_ID_RE.match(canonical):
        raise AgentIdError(f"{value[:80]!r} is not an agent id (1-64 of a-z, 0-9, '_', '-', "
                           "starting with a letter or digit)")
    return canonical


def agent_of_key(session_key: str | None) -> str | None:
    """The agent part of an OpenClaw session key (``agent:<agentId>:...``); None for keys of
    another shape. A key of that shape with a malformed agent part is an AgentIdError."""
    if not session_key:
        return None
    shaped = session_key.strip().lower().startswith("agent:")
    if shaped and (_CONTROL.search(session_key) or session_key != session_key.strip()):
        raise AgentIdError(f"sessionKey {session_key[:80]!r} holds white space or control "
                           "characters; a key is agent:<agentId>:<rest>")
    parts = session_key.split(":", 2)
    if not shaped:
        return None
    if len(parts) < 3 or not parts[2]:
        raise AgentIdError(f"sessionKey {session_key[:80]!r} is not agent:<agentId>:<rest>")
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
