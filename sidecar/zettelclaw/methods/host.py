"""``host.offer``: a client says what it can do for the sidecar on this connection.

The offer belongs to the connection it came on (``protocol/peer.py``) and ends with it, so a
host that goes away is never asked; a host that reconnects offers again. Capabilities the
sidecar does not know are listed as ignored, so a newer client may offer more.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from zettelclaw.agents.pool import Agents
from zettelclaw.errors import InvalidRequestError
from zettelclaw.llm.host import EMBED_CAPABILITY, KNOWN_CAPABILITIES, HostModels
from zettelclaw.llm.route import Router
from zettelclaw.methods.edge import from_domain
from zettelclaw.protocol.dispatcher import Method
from zettelclaw.protocol.params import HostOfferParams
from zettelclaw.protocol.peer import Peer, current_peer
from zettelclaw.protocol.results import Offered, Route


async def offer(agents: Agents, params: HostOfferParams) -> Offered:
    router = agents.router
    hosts: HostModels = router.hosts
    peer = current_peer.get()
    if peer is None:
        raise InvalidRequestError("host.offer needs a connection that stays open (the "
                                  "offer lasts as long as it): call it over the socket")
    accepted = [c for c in dict.fromkeys(params.capabilities) if c in KNOWN_CAPABILITIES]
    ignored = [c for c in dict.fromkeys(params.capabilities) if c not in KNOWN_CAPABILITIES]
    client = (params.client.model_dump(exclude_none=True) if params.client
              else {"name": "unnamed"})
    details: dict[str, dict[str, Any]] = {
        capability: {"client": client} for capability in KNOWN_CAPABILITIES}
    if params.model:
        details["llm.complete"]["model"] = params.model
    if params.embeddings is not None:
        details[EMBED_CAPABILITY].update(params.embeddings.model_dump())
    for capability in KNOWN_CAPABILITIES:
        if capability in accepted:
            hosts.offer(peer, capability, details[capability])
        else:  # an offer replaces this connection's earlier one
            peer.offers.pop(capability, None)
    if not peer.offers:
        hosts.withdraw(peer, params.reason or "withdrawn by the host")
    if accepted:
        await hosts.offered()
    return Offered(accepted=accepted, ignored=ignored, route=from_domain(Route, router.status()))


def methods(agents: Agents) -> dict[str, Method]:
    return {"host.offer": Method(HostOfferParams, partial(offer, agents))}


async def withdraw_offers(router: Router, peer: Peer) -> None:
    """The connection ended (``ConnectionHandler.on_close``)."""
    router.hosts.withdraw(peer)
