"""The host as a model route: a connected client that offers ``llm.complete`` runs completions
with its own model and credentials (OpenClaw: ``api.runtime.llm.complete``, the agent's model).
A client may also offer ``embeddings.embed`` (its embedding provider): kept here with the other
offers, asked by ``search/host_embeddings.py``.

A client offers the capability with ``host.offer`` on a connection it keeps open; the offer ends
with that connection. The newest offer is used. A completion is one ``llm.complete`` request on
that connection, with a deadline. Its failures are sorted as the Anthropic route's are
(``llm/failures.py``): the host gone mid-call, or saying its model cannot be asked now, makes
the job wait (a gateway restart is no reason to fail a job); a timeout, an error the host's
model made, or an empty reply counts as a failed attempt.

A host whose model cannot be asked now stays offered but is marked unusable (``status`` says
so, with the host's words) until it answers again or offers anew; a host that withdraws its
offer (``host.offer`` with no capabilities, e.g. the OpenClaw plugin being reloaded) or goes
away is remembered, so ``status`` names that outage instead of only "no host".
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import trio
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from zettelclaw.config import ExtractionConfig
from zettelclaw.errors import (
    HostModelFailedError,
    HostModelUnavailableError,
    PeerGone,
    ZettelclawError,
)
from zettelclaw.llm.completion import Completion
from zettelclaw.llm.failures import ModelFailed, ModelWaiting

logger = logging.getLogger(__name__)

CAPABILITY = "llm.complete"
# the host's embedding provider (search/host_embeddings.py): offered next to llm.complete,
# each with its own details; an offer of one does not make the host a model route
EMBED_CAPABILITY = "embeddings.embed"
KNOWN_CAPABILITIES = (CAPABILITY, EMBED_CAPABILITY)
NO_HOST = f"no connected host offers {CAPABILITY}"

# OpenClaw's words for a plugin handle retired by a hot reload. The plugin (from this release)
# answers them as -32013; a plugin built before it sent -32014, so the sidecar knows them too:
# a job that failed for this reason is the host's outage, not the job's fault (it waits, and a
# job failed this way is retried when a host offers again).
_RETIRED_HANDLE = re.compile(r"plugin inventory has retired", re.IGNORECASE)


def retired_handle(message: str | None) -> bool:
    """Whether an error says the host's handle on its model was retired (a plugin reload)."""
    return bool(message) and _RETIRED_HANDLE.search(message or "") is not None


class HostPeer(Protocol):
    offers: dict[str, dict[str, Any]]
    closed: bool

    async def request(self, method: str, params: dict[str, Any]) -> Any: ...


@dataclass(frozen=True, slots=True)
class EmbeddingOffer:
    """A connected host that offers ``embeddings.embed`` (``status``'s
    ``search.semantic.hosts``): who it says it is, and the provider and model it embeds with."""

    client: Mapping[str, Any]
    provider: str
    model: str


@dataclass(frozen=True, slots=True)
class Offer:
    """A connected host that offers ``llm.complete`` (``status``'s route ``hosts``): who it
    says it is (``client``: its name and version, as it gave them), its model when it named
    one, and why its model cannot be asked now, if it said so."""

    client: Mapping[str, Any]
    model: str | None = None
    unusable: str | None = None


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    text: str
    model: str | None = None
    provider: str | None = None
    usage: dict[str, Any] | None = Field(None)


class HostModels:
    """The clients that offer ``llm.complete`` right now, newest last."""

    def __init__(self, on_offer: Callable[[], Awaitable[None]] | None = None) -> None:
        self._peers: list[HostPeer] = []
        self.on_offer = on_offer  # set by serve: wakes the jobs that wait for a model
        # called (on the event loop) after each offer: the vectorizers of search.embeddings =
        # host (search/host_embeddings.py), so a host's new offer is tried at once; each removes
        # itself when its memory closes
        self.offer_listeners: set[Callable[[], None]] = set()
        # the event loop's token, from the first offer: the embedder, called in worker threads,
        # crosses into trio with it to ask the host
        self.token: trio.lowlevel.TrioToken | None = None
        self._clients: dict[int, str] = {}  # id(peer) -> who offered ("openclaw 2026.9.6")
        self._unusable: dict[int, str] = {}  # id(peer) -> why its model cannot be asked now
        self.gone: str | None = None  # while no host offers: the last one that stopped, and why

    def offer(self, peer: HostPeer, capability: str, details: dict[str, Any]) -> None:
        peer.offers[capability] = details
        if peer in self._peers:
            self._peers.remove(peer)
        self._peers.append(peer)
        self._clients[id(peer)] = _client_name(details)
        self._unusable.pop(id(peer), None)  # a new offer: asked again as if new
        if capability == CAPABILITY:
            self.gone = None
        with contextlib.suppress(RuntimeError):  # outside trio (a unit test): no loop to enter
            self.token = trio.lowlevel.current_trio_token()

    async def offered(self) -> None:
        """Called after a new offer: jobs that waited for a host may go now, and vectorizers
        that waited for a host that embeds."""
        for listener in list(self.offer_listeners):
            listener()
        if self.on_offer is not None:
            await self.on_offer()

    def withdraw(self, peer: HostPeer, why: str = "its connection closed") -> None:
        """The peer's offer ends: withdrawn (``host.offer`` with none, ``why`` its reason) or its
        connection closed."""
        if peer in self._peers:
            self._peers.remove(peer)
            if self.current() is None:
                self.gone = f"{self._clients.get(id(peer), 'the host')}'s offer ended: {why}"
        self._clients.pop(id(peer), None)
        self._unusable.pop(id(peer), None)

    def current(self) -> HostPeer | None:
        for peer in reversed(self._peers):
            if not peer.closed and CAPABILITY in peer.offers:
                return peer
        return None

    def embedder(self) -> HostPeer | None:
        """The newest connected host that offers ``embeddings.embed``."""
        for peer in reversed(self._peers):
            if not peer.closed and EMBED_CAPABILITY in peer.offers:
                return peer
        return None

    def describe_embedders(self) -> list[EmbeddingOffer]:
        return [EmbeddingOffer(client=p.offers[EMBED_CAPABILITY]["client"],
                               provider=p.offers[EMBED_CAPABILITY]["provider"],
                               model=p.offers[EMBED_CAPABILITY]["model"])
                for p in self._peers if not p.closed and EMBED_CAPABILITY in p.offers]

    def unusable(self, peer: HostPeer | None = None) -> str | None:
        """Why the (current) host's model cannot be asked now, or None when nothing says so."""
        peer = self.current() if peer is None else peer
        return None if peer is None else self._unusable.get(id(peer))

    def describe(self) -> list[Offer]:
        hosts = []
        for p in self._peers:
            if not p.closed and CAPABILITY in p.offers:
                details = p.offers[CAPABILITY]
                hosts.append(Offer(client=details["client"], model=details.get("model"),
                                   unusable=self._unusable.get(id(p))))
        return hosts

    async def complete(self, prompt: str, *, purpose: str, config: ExtractionConfig
                       ) -> Completion:
        """One completion by the newest host, within ``extraction.timeoutSeconds``, with
        ``extraction.hostModel`` (None: the host's default, the agent's own model)."""
        peer = self.current()
        if peer is None:
            raise ModelWaiting(NO_HOST)
        model, timeout = config.host_model, config.timeout_seconds
        params: dict[str, Any] = {
            "messages": [{"role": "user", "content": prompt}], "maxTokens": config.max_tokens,
            "purpose": purpose, "timeoutMs": int(timeout * 1000)}
        if model:
            params["model"] = model
        try:
            with trio.fail_after(timeout):
                raw = await peer.request(CAPABILITY, params)
        except trio.TooSlowError:
            raise ModelFailed(f"the host's model did not answer within {timeout:g} s") from None
        except PeerGone as exc:
            raise ModelWaiting(f"the host went away during the call ({exc}); it is asked again "
                               "when it is back") from None
        except HostModelUnavailableError as exc:
            self._unusable[id(peer)] = exc.message
            raise ModelWaiting(f"the host's model cannot be asked now: {exc.message}") from None
        except HostModelFailedError as exc:
            if retired_handle(exc.message):  # an older plugin's words for a reload: an outage
                self._unusable[id(peer)] = exc.message
                raise ModelWaiting(f"the host's model cannot be asked now: {exc.message}"
                                   ) from None
            raise ModelFailed(f"the host's model failed: {exc.message}") from None
        except ZettelclawError as exc:  # the host does not do what it offered: not the job's fault
            raise ModelWaiting(f"the host answered {CAPABILITY} with error {exc.code}: "
                               f"{exc.message}") from None
        self._unusable.pop(id(peer), None)  # it answered: its model can be asked
        try:
            answer = _Answer.model_validate(raw)
        except ValidationError as exc:
            raise ModelFailed(f"the host's reply to {CAPABILITY} is malformed: "
                              f"{exc.errors(include_url=False)[0]['msg']}") from None
        if not answer.text.strip():
            raise ModelFailed("the host's model replied with no text")
        name = answer.model or model or "the host's default"
        if answer.provider and answer.model and "/" not in answer.model:
            name = f"{answer.provider}/{answer.model}"
        return Completion(answer.text, "host", name, answer.usage)


def _client_name(details: dict[str, Any] | None) -> str:
    client = (details or {}).get("client") or {}
    return " ".join(str(client[k]) for k in ("name", "version") if client.get(k)) or "the host"
