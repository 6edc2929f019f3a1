"""session_keys: who may read a session, from OpenClaw's key shapes and what the host knows.

Covers Audience.private_reason for every key shape in openclaw-2026.9-facts.md (the owner's main
session and named sessions are private; separate DMs only when the sender is known to be the
owner; groups, channels, threads, topics, cron, subagents and hooks never; a group or channel
chat type or a sender who is not the owner never, even on the main key; no key never),
automated_reason, and TurnFacts (the host's facts noted for a session's later calls).
"""

from __future__ import annotations

import pytest

from zettelclaw.session_keys import (
    Audience,
    Noted,
    TurnFacts,
    automated_reason,
    chat_type_of,
    key_parts,
)

PRIVATE_KEYS = [
    "agent:main:main",
    "agent:main:scratch-1",
    "agent:work:main",
    "AGENT:MAIN:MAIN",
]

SHARED_KEYS = [
    "agent:main:telegram:group:-1001234567890:topic:42",
    "agent:main:telegram:group:-1001234567890",
    "agent:main:discord:channel:123456:thread:987654",
    "agent:main:discord:channel:123456",
    "agent:main:slack:thread:1",
    "agent:main:telegram:topic:7",
]

AUTOMATED_KEYS = [
    "agent:main:cron:nightly:run:8821",
    "agent:main:subagent:child",
    "agent:main:sub:child",
    "agent:main:hook:automation",
    "agent:main:Cron:nightly",
]

DM_KEYS = ["agent:main:telegram:direct:123", "agent:main:whatsapp:dm:+4912345"]


@pytest.mark.parametrize("key", PRIVATE_KEYS)
def test_main_and_named_sessions_are_private(key: str) -> None:
    assert Audience(key).private_reason() is None
    assert Audience(key, chat_type="direct").private_reason() is None
    assert Audience(key, sender_is_owner=True).private_reason() is None


@pytest.mark.parametrize("key", DM_KEYS)
def test_a_separate_dm_is_private_only_from_the_owner(key: str) -> None:
    assert Audience(key, sender_is_owner=True).private_reason() is None
    assert Audience(key, chat_type="direct", sender_is_owner=True).private_reason() is None
    for audience in (Audience(key), Audience(key, chat_type="direct"),
                     Audience(key, sender_is_owner=False)):
        reason = audience.private_reason()
        assert reason is not None
        assert "owner" in reason


@pytest.mark.parametrize("key", SHARED_KEYS)
@pytest.mark.parametrize("owner", [None, True, False])
def test_groups_channels_threads_and_topics_are_never_private(key: str,
                                                             owner: bool | None) -> None:
    reason = Audience(key, sender_is_owner=owner).private_reason()
    assert reason is not None
    assert "others can read it" in reason
    assert Audience(key, chat_type="direct", sender_is_owner=owner).private_reason() is not None


@pytest.mark.parametrize("key", AUTOMATED_KEYS)
@pytest.mark.parametrize("owner", [None, True])
def test_automated_sessions_are_never_private(key: str, owner: bool | None) -> None:
    reason = Audience(key, sender_is_owner=owner).private_reason()
    assert reason is not None
    assert reason.endswith("session")


@pytest.mark.parametrize("chat_type", ["group", "channel"])
@pytest.mark.parametrize("owner", [None, True])
def test_a_group_or_channel_chat_is_never_private_even_on_the_main_key(
        chat_type: str, owner: bool | None) -> None:
    """``session.groupScope: "main"`` routes groups into agent:main:main."""
    reason = Audience("agent:main:main", chat_type=chat_type,  # type: ignore[arg-type]
                      sender_is_owner=owner).private_reason()
    assert reason is not None
    assert chat_type in reason


@pytest.mark.parametrize("key", [*PRIVATE_KEYS, *DM_KEYS])
def test_a_sender_who_is_not_the_owner_is_never_private(key: str) -> None:
    reason = Audience(key, sender_is_owner=False).private_reason()
    assert reason is not None
    assert Audience(key, chat_type="direct", sender_is_owner=False).private_reason() is not None


@pytest.mark.parametrize("key", [None, ""])
@pytest.mark.parametrize("owner", [None, True])
def test_no_session_key_is_never_private(key: str | None, owner: bool | None) -> None:
    reason = Audience(key, chat_type="direct", sender_is_owner=owner).private_reason()
    assert reason is not None
    assert "no session key" in reason


def test_the_agent_id_is_not_read_as_a_part() -> None:
    # an agent named like a shared or automated part does not make its main session shared
    assert Audience("agent:group:main").private_reason() is None
    assert Audience("agent:cron:main").private_reason() is None
    assert key_parts("agent:cron:main") == ["main"]
    assert key_parts("Agent:X:Telegram:Group:1") == ["telegram", "group", "1"]


def test_parts_must_match_whole() -> None:
    # "subscriptions" is not "sub", "grouping" is not "group"
    assert Audience("agent:main:subscriptions").private_reason() is None
    assert Audience("agent:main:grouping-notes").private_reason() is None


@pytest.mark.parametrize(("key", "expected"), [
    ("agent:main:cron:nightly:run:8821", "cron session"),
    ("agent:main:subagent:child", "subagent session"),
    ("agent:main:sub:child", "sub session"),
    ("agent:main:hook:automation", "hook session"),
    ("agent:main:main", None),
    ("agent:main:telegram:direct:123", None),
    ("agent:main:telegram:group:-100:topic:4", None),
    ("agent:main:scratch-1", None),
    ("agent:cron:main", None),
    (None, None),
    ("", None),
])
def test_automated_reason(key: str | None, expected: str | None) -> None:
    assert automated_reason(key) == expected


def test_automated_reason_with_other_parts() -> None:
    skip = frozenset({"cron"})
    assert automated_reason("agent:main:cron:x", skip) == "cron session"
    assert automated_reason("agent:main:subagent:x", skip) is None


# -- TurnFacts: the host's facts of a turn, noted for the session's calls without them ------


def test_a_noted_fact_stands_for_its_session_key_for_a_while() -> None:
    facts = TurnFacts(seconds=30)
    facts.note("agent:main:main", 100.0, is_group=True)
    assert facts.of("agent:main:main", None, 129.0) == Noted(is_group=True, at=100.0)
    assert facts.of("agent:main:main", None, 131.0) is None, "past its time"
    assert facts.of("agent:main:other", None, 101.0) is None
    assert facts.of(None, None, 101.0) is None


def test_facts_of_one_key_add_up_and_the_owner_bit_keeps_its_session() -> None:
    facts = TurnFacts()
    facts.note("k", 0.0, sender_is_owner=True, session_id="s-1")
    facts.note("k", 1.0, is_group=False)  # before_dispatch: no session id, no owner bit
    assert facts.of("k", "s-1", 2.0) == Noted(is_group=False, sender_is_owner=True,
                                              session_id="s-1", at=1.0)
    assert facts.of("k", None, 2.0) == Noted(is_group=False, sender_is_owner=True,
                                             session_id="s-1", at=1.0)
    assert facts.of("k", "s-2", 2.0) == Noted(is_group=False, at=1.0), \
        "a new session under the key is another conversation: not told the owner bit"


def test_old_facts_are_dropped_as_new_ones_come() -> None:
    facts = TurnFacts(seconds=30)
    facts.note("a", 0.0, is_group=True)
    facts.note("b", 100.0, is_group=True)
    assert len(facts) == 1, "what is past its time is not kept"


@pytest.mark.parametrize(("facts", "chat"), [
    ((None, None, None, None), None),
    (("channel", False, 1, 1), "channel"),  # the host's own word wins
    ((None, True, None, None), "group"),
    ((None, False, None, None), "direct"),
    ((None, None, "-100", "42"), "group"),  # a chat that is not the sender's: shared
    ((None, None, 42, "42"), "direct"),  # the sender's own chat, told by value not type
    ((None, False, "-100", "42"), "group"),  # a shared chat is shared whatever the bit says
    ((None, None, "-100", None), None),
])
def test_the_chat_type_is_inferred_from_the_hosts_raw_facts(
        facts: tuple[object, object, object, object], chat: str | None) -> None:
    assert chat_type_of(*facts) == chat  # type: ignore[arg-type]
