"""Memory reaches only the owner's private session: memory.search and memory.get with the
audience a host passes for an agent in a chat (the OpenClaw plugin's tools do)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import entry
from zettelclaw.client import AsyncClient
from zettelclaw.errors import RestrictedError
from zettelclaw.serve import Ready

PRIVATE = [{"sessionKey": "agent:main:main"},
           {"sessionKey": "agent:main:scratch-1"},
           {"sessionKey": "agent:main:telegram:direct:42", "senderIsOwner": True},
           {}]  # no audience at all: the owner's own call (the CLI, socat)
NOT_PRIVATE = [{"sessionKey": "agent:main:telegram:group:-100123:topic:4"},
               {"sessionKey": "agent:main:discord:channel:1:thread:2"},
               {"sessionKey": "agent:main:main", "chatType": "group"},
               {"sessionKey": "agent:main:main", "senderIsOwner": False},
               {"sessionKey": "agent:main:telegram:direct:42"},
               {"sessionKey": "agent:main:cron:nightly:run:1"},
               {"chatType": "direct"}]  # an audience without a key: nobody can tell whose


@pytest.fixture
async def secret(server: Ready, write_log: Callable[..., list[dict[str, Any]]]
                 ) -> dict[str, Any]:
    return write_log(entry("fact", "the safe combination is 31-17-42"))[0]


@pytest.mark.parametrize("audience", PRIVATE)
async def test_the_owner_sees_memory(server: Ready, secret: dict[str, Any],
                                     audience: dict[str, Any]) -> None:
    async with await AsyncClient.connect(server.socket) as client:
        found = await client.call("memory.search", {"query": "safe combination", **audience})
        assert [r["id"] for r in found["results"]] == [secret["id"]]
        got = await client.call("memory.get", {"path": secret["id"], **audience})
        assert got["entry"]["content"] == secret["content"]


@pytest.mark.parametrize("audience", NOT_PRIVATE)
async def test_nobody_else_does(server: Ready, secret: dict[str, Any],
                                audience: dict[str, Any]) -> None:
    async with await AsyncClient.connect(server.socket) as client:
        found = await client.call("memory.search", {"query": "safe combination", **audience})
        assert found["results"] == []
        assert found["mode"] == "restricted"
        assert found["restricted"]["reason"]
        with pytest.raises(RestrictedError) as refused:
            await client.call("memory.get", {"path": secret["id"], **audience})
        assert refused.value.data["reason"] == found["restricted"]["reason"]
        with pytest.raises(RestrictedError):
            await client.call("memory.get", {"path": "MEMORY.md", **audience})


# -- hook.turnFacts: what the host said of a session's turn, for its calls that come without it --


async def test_a_noted_group_bit_keeps_memory_out_of_a_group_routed_into_main(
        server: Ready, secret: dict[str, Any]) -> None:
    """OpenClaw's prompt hook carries no group bit; before_dispatch does, on a call of its own."""
    main = {"sessionKey": "agent:main:main"}
    async with await AsyncClient.connect(server.socket) as client:
        assert (await client.call("hook.turnFacts", {**main, "isGroup": True})) == {"noted": True}
        found = await client.call("memory.search", {"query": "safe combination", **main})
        assert found["mode"] == "restricted"
        assert "group chat" in found["restricted"]["reason"]
        # a fact the call carries wins over the noted one
        own = await client.call("memory.search", {"query": "safe combination", **main,
                                                  "isGroup": False})
        assert [r["id"] for r in own["results"]] == [secret["id"]]
        # another session key is not touched by it
        other = await client.call("memory.search", {"query": "safe combination",
                                                     "sessionKey": "agent:main:scratch-1"})
        assert [r["id"] for r in other["results"]] == [secret["id"]]


async def test_a_noted_owner_bit_stands_for_its_session_only(
        server: Ready, secret: dict[str, Any]) -> None:
    """A DM session kept apart shows memory only to the owner: the tool factory knows the
    owner bit, the prompt hook does not; a new session under the same key is not told it."""
    dm = {"sessionKey": "agent:main:telegram:direct:42"}
    async with await AsyncClient.connect(server.socket) as client:
        before = await client.call("memory.search", {"query": "safe combination", **dm})
        assert before["mode"] == "restricted"
        await client.call("hook.turnFacts", {**dm, "sessionId": "s-1", "senderIsOwner": True})
        found = await client.call("memory.get", {"path": secret["id"], **dm})
        assert found["entry"]["id"] == secret["id"]
        note = {"type": "fact", "content": "the boiler is serviced in May"}
        kept = await client.call("memory.remember", {**note, **dm, "sessionId": "s-1"})
        assert kept["entry"]["session"] == "s-1"
        with pytest.raises(RestrictedError):
            await client.call("memory.remember", {**note, **dm, "sessionId": "s-2"})
