"""host.offer through the dispatcher, with no socket: the offer is the calling connection's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.direct import open_app
from zettelclaw.agents.pool import Agents
from zettelclaw.agents.roster import Roster
from zettelclaw.app import App
from zettelclaw.home import Home
from zettelclaw.llm.host import Offer
from zettelclaw.llm.route import Router
from zettelclaw.methods import host
from zettelclaw.methods.host import withdraw_offers
from zettelclaw.protocol.dispatcher import Dispatcher
from zettelclaw.protocol.peer import Peer, current_peer


async def _nowhere(data: bytes) -> None:
    pass


@pytest.fixture
def app(home: Home, workspace: Path) -> Iterator[App]:
    app = open_app(home, workspace)
    yield app
    app.close()


def setup(app: App) -> tuple[Router, Dispatcher, list[int]]:
    woken: list[int] = []

    async def on_offer() -> None:
        woken.append(1)

    app.router.hosts.on_offer = on_offer
    pool = Agents(app.home, Roster(app.home, app.workspace, share={}), app.settings, app.router,
                  serving=False)
    return app.router, Dispatcher(host.methods(pool)), woken


async def offer(dispatcher: Dispatcher, params: dict[str, object]) -> dict[str, Any]:
    line = await dispatcher.dispatch(orjson.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "host.offer", "params": params}))
    assert line is not None
    answer: dict[str, Any] = orjson.loads(line)
    return answer


async def test_an_offer_needs_a_connection(app: App) -> None:
    router, dispatcher, woken = setup(app)
    answer = await offer(dispatcher, {"capabilities": ["llm.complete"]})
    assert answer["error"]["code"] == -32600
    assert router.choose().route is None
    assert woken == []


async def test_an_offer_lasts_as_long_as_its_connection(app: App) -> None:
    router, dispatcher, woken = setup(app)
    peer = Peer(_nowhere)
    token = current_peer.set(peer)
    try:
        answer = await offer(dispatcher, {"capabilities": ["llm.complete", "tea.make"],
                                          "client": {"name": "openclaw", "version": "2026.9.6"},
                                          "model": "fake/fake-model"})
    finally:
        current_peer.reset(token)
    result = answer["result"]
    assert result["accepted"] == ["llm.complete"]
    assert result["ignored"] == ["tea.make"]
    assert result["route"]["active"] == "host"
    assert router.status().hosts == [Offer(client={"name": "openclaw", "version": "2026.9.6"},
                                           model="fake/fake-model")]
    assert result["route"]["hosts"] == [{"client": {"name": "openclaw", "version": "2026.9.6"},
                                         "model": "fake/fake-model"}]
    assert woken == [1]  # the waiting jobs were told
    peer.close()
    await withdraw_offers(router, peer)
    assert router.choose().route is None
    assert router.status().hosts == []


async def test_an_empty_offer_withdraws_the_connections_earlier_one(app: App) -> None:
    router, dispatcher, woken = setup(app)
    token = current_peer.set(Peer(_nowhere))
    try:
        await offer(dispatcher, {"capabilities": ["llm.complete"]})
        answer = await offer(dispatcher, {"capabilities": []})
    finally:
        current_peer.reset(token)
    assert answer["result"]["accepted"] == []
    assert router.choose().route is None
    assert woken == [1]


async def test_bad_params_are_refused(app: App) -> None:
    _, dispatcher, _ = setup(app)
    answer = await offer(dispatcher, {"capabilities": "llm.complete"})
    assert answer["error"]["code"] == -32602
