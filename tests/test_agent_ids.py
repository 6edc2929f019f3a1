"""agent_ids.py: OpenClaw's canonical agent ids, and the agent a call names."""

from __future__ import annotations

import pytest

from zettelclaw.agent_ids import MAIN, AgentIdError, agent_of_key, check_agent_id, chosen_agent


@pytest.mark.parametrize("value", ["main", "work", "a", "family-2", "x_y", "0", "a" * 64,
                                   " Work ", "FAMILY"])
def test_canonical_ids_are_folded_and_kept(value: str) -> None:
    assert check_agent_id(value) == value.strip().lower()


@pytest.mark.parametrize("value", ["", " ", "-work", "_x", "a" * 65, "../x", "a/b", "a.b",
                                   "wörk", "a b", "a\x00", "*", "all"[:0]])
def test_anything_else_is_refused_never_repaired(value: str) -> None:
    with pytest.raises(AgentIdError, match="not an agent id"):
        check_agent_id(value)


@pytest.mark.parametrize(("key", "agent"), [
    ("agent:main:main", "main"), ("agent:work:telegram:group:-100:topic:4", "work"),
    ("AGENT:Family:main", "family"), ("main", None), (None, None), ("", None),
    ("session-7", None)])
def test_the_agent_part_of_a_session_key(key: str | None, agent: str | None) -> None:
    assert agent_of_key(key) == agent


def test_a_key_of_the_agent_shape_with_a_bad_agent_part_is_refused() -> None:
    with pytest.raises(AgentIdError):
        agent_of_key("agent:..:main")
    for key in ("agent:x", "agent:x:", " agent:x:main", "agent:x\nmain"):
        with pytest.raises(AgentIdError):
            agent_of_key(key)


def test_agent_id_first_then_the_key_then_main() -> None:
    assert chosen_agent("work", None) == "work"
    assert chosen_agent(None, "agent:family:main") == "family"
    assert chosen_agent("family", "agent:family:main") == "family"
    assert chosen_agent(None, None) == MAIN
    assert chosen_agent(None, "plain-key") == MAIN
    with pytest.raises(AgentIdError, match="different agents"):
        chosen_agent("work", "agent:family:main")
