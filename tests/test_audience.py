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
