"""Which model a completion goes to: the Anthropic API or the host's (``extraction.route``).

- ``anthropic``: the Anthropic Messages API (``extraction.apiKey`` / ``ANTHROPIC_API_KEY``).
- ``host``: a connected client that offers ``llm.complete`` (``llm/host.py``).
- ``auto`` (the default): the Anthropic API when a key is set, else a connected host.

With no usable route a call raises ``ModelWaiting`` saying why, so jobs wait as they do for a
missing key. The choice is made per call: a host that connects later is used from then on.
Every route gets the same prompt (one user message, from ``prompts/``), and its reply goes
through the same validation; only the transport differs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import trio

from zettelclaw.config import ExtractionConfig
from zettelclaw.llm import anthropic_client
from zettelclaw.llm.failures import ModelFailed, ModelWaiting
from zettelclaw.llm.host import NO_HOST, Completion, HostModels

NO_ROUTE_AUTO = f"no Anthropic API key and {NO_HOST} (route auto)"


@dataclass(frozen=True)
class Choice:
    route: str | None  # "anthropic", "host", or None: nothing to ask now
    reason: str  # why this route, or why none


class Router:
    def __init__(self, config: ExtractionConfig, hosts: HostModels) -> None:
        self.config = config
        self.hosts = hosts
        # One router per process, shared by every agent's memory: so ``extraction.concurrency``
        # bounds the model calls of the whole sidecar, not of each agent's extraction loop.
        self.calls = trio.CapacityLimiter(config.concurrency)

    def choose(self) -> Choice:
        setting, key = self.config.route, bool(self.config.api_key)
        host = self.hosts.current() is not None
        gone = f" ({self.hosts.gone})" if self.hosts.gone else ""
        unusable = self.hosts.unusable()
        trouble = f"; its model cannot be asked now: {unusable}" if unusable else ""
        if setting == "anthropic":
            return (Choice("anthropic", "set by extraction.route (route anthropic)") if key
                    else Choice(None, f"{anthropic_client.NO_KEY} (route anthropic)"))
        if setting == "host":
            return (Choice("host", f"set by extraction.route (route host){trouble}") if host
                    else Choice(None, f"{NO_HOST}{gone} (route host)"))
        if key:
            return Choice("anthropic", "an Anthropic API key is set (route auto)")
        if host:
            return Choice("host", "no Anthropic API key; a connected host offers llm.complete "
                                  f"(route auto){trouble}")
        return Choice(None, f"{NO_ROUTE_AUTO}{gone}")

    def may_use_anthropic(self) -> bool:
        """Whether any call of this process may go to the Anthropic API: a key is set and the
        route allows it (the settings are read once, at start)."""
        return bool(self.config.api_key) and self.config.route != "host"

    async def complete(self, prompt: str, *, purpose: str,
                       anthropic_model: str | None = None) -> Completion:
        async with self.calls:
            return await self._complete(prompt, purpose, anthropic_model)

    async def _complete(self, prompt: str, purpose: str, anthropic_model: str | None
                        ) -> Completion:
        choice = self.choose()  # once a call may go: the route may have changed meanwhile
        try:
            if choice.route is None:
                raise ModelWaiting(choice.reason)
            if choice.route == "host":
                return await self.hosts.complete(prompt, purpose=purpose, config=self.config)
            model = (anthropic_model or self.config.model).removeprefix("anthropic/")
            text = await anthropic_client.complete(self.config, prompt, model)
            return Completion(text, "anthropic", model)
        except (ModelWaiting, ModelFailed) as exc:
            exc.route = choice.route or self.config.route  # what it waits for: "auto", "host"
            raise

    def status(self) -> RouteStatus:
        choice = self.choose()
        return RouteStatus(setting=self.config.route, active=choice.route,
                           reason=choice.reason, anthropic_model=self.config.model_id,
                           host_model=self.config.host_model or "the agent's own",
                           hosts=self.hosts.describe())


@dataclass(frozen=True, slots=True)
class RouteStatus:
    """The route setting, the route the next call takes (None: none now) and why, and the
    hosts that offer ``llm.complete`` (each as it described itself in ``host.offer``)."""

    setting: str
    active: str | None
    reason: str
    anthropic_model: str
    host_model: str
    hosts: list[dict[str, Any]]
