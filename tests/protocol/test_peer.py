"""A connection's client as the sidecar's requests see it: replies, errors, deadlines, goodbye."""

from __future__ import annotations

import orjson
import pytest
import trio

from zettelclaw.errors import HostModelFailedError, PeerGone
from zettelclaw.protocol.outgoing import Reply
from zettelclaw.protocol.peer import Peer


class Wire:
    def __init__(self) -> None:
        self.sent: list[dict[str, object]] = []
        self.broken = False
        self.arrived = trio.Event()

    async def send(self, data: bytes) -> None:
        if self.broken:
            raise trio.BrokenResourceError("gone")
        self.sent.append(orjson.loads(data))
        self.arrived.set()


async def answered(peer: Peer, wire: Wire, reply: Reply | None) -> object:
    result: list[object] = []

    async def ask() -> None:
        try:
            result.append(await peer.request("llm.complete", {"n": 1}))
        except Exception as exc:
            result.append(exc)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(ask)
        await wire.arrived.wait()
        if reply is None:
            peer.close()
        else:
            assert peer.deliver(Reply(str(wire.sent[-1]["id"]), reply.result, reply.error))
    return result[0]


async def test_a_reply_resolves_its_request() -> None:
    wire = Wire()
    peer = Peer(wire.send)
    assert await answered(peer, wire, Reply("", result={"text": "ok"})) == {"text": "ok"}
    assert wire.sent[0]["method"] == "llm.complete"
    assert str(wire.sent[0]["id"]).startswith("zc-")


async def test_an_error_reply_is_raised_as_its_class() -> None:
    wire = Wire()
    error = HostModelFailedError("500")
    assert await answered(Peer(wire.send), wire, Reply("", error=error)) is error


async def test_closing_fails_what_waits_and_what_comes_after() -> None:
    wire = Wire()
    peer = Peer(wire.send)
    assert isinstance(await answered(peer, wire, None), PeerGone)
    with pytest.raises(PeerGone):
        await peer.request("llm.complete", {})


async def test_a_broken_write_is_peer_gone() -> None:
    wire = Wire()
    wire.broken = True
    with pytest.raises(PeerGone, match="cannot write"):
        await Peer(wire.send).request("llm.complete", {})


async def test_after_the_deadline_a_late_reply_is_dropped(
        autojump_clock: trio.abc.Clock) -> None:
    wire = Wire()
    peer = Peer(wire.send)
    with pytest.raises(trio.TooSlowError):
        with trio.fail_after(0.05):
            await peer.request("llm.complete", {})
    assert not peer.deliver(Reply(str(wire.sent[0]["id"]), result={"text": "late"}))
    assert not peer.deliver(Reply("zc-unknown", result=1))
