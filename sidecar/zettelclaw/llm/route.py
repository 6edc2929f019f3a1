"""Which model a completion goes to: the Anthropic API or the host's (``extraction.route``).

- ``anthropic``: the Anthropic Messages API (``extraction.apiKey`` / ``ANTHROPIC_API_KEY``).
- ``host``: a connected client that offers ``llm.complete`` (``llm/host.py``).
- ``auto`` (the default): the Anthropic API when a key is set, else a connected host.

With no usable route a call raises ``ModelWaiting`` saying why, so jobs wait as they do for a
missing key. The choice is made per call: a host that connects later is used from then on.
Every route gets the same prompt (one user message, from ``prompts/``, scrubbed of secrets),
and its reply goes through the same validation; only the transport differs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import trio

from zettelclaw.config import BudgetConfig, ExtractionConfig
from zettelclaw.llm import anthropic_client, usage
from zettelclaw.llm.failures import ModelFailed, ModelWaiting
from zettelclaw.llm.host import NO_HOST, Completion, HostModels, Offer
from zettelclaw.scrub import scrub

NO_ROUTE_AUTO = f"no Anthropic API key and {NO_HOST} (route auto)"


@dataclass(frozen=True)
class Choice:
    route: str | None  # "anthropic", "host", or None: nothing to ask now
    reason: str  # why this route, or why none


class Router:
    def __init__(self, config: ExtractionConfig, hosts: HostModels, *,
                 budget: BudgetConfig | None = None, usage_path: Path | None = None) -> None:
        self.config = config
        self.hosts = hosts
        self.budget = budget or BudgetConfig()
        self.usage = usage.Usage(usage_path)  # today's tokens, against budget.dailyTokens
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
                       anthropic_model: str | None = None, counted_as: str | None = None
                       ) -> Completion:
        """``counted_as``: the purpose its tokens count under today (an import's extraction
        is ``import``), when it is not ``purpose`` (what a host is told).

        The prompt is scrubbed here, on every route: whatever it quotes (a transcript, the
        entries it is asked about, a line a person wrote into the log by hand, a workspace
        file) no secret reaches a model."""
        prompt = await trio.to_thread.run_sync(scrub, prompt)
        async with self.calls:
            return await self._complete(prompt, purpose, anthropic_model,
                                        counted_as or purpose)

    async def _complete(self, prompt: str, purpose: str, anthropic_model: str | None,
                        counted_as: str) -> Completion:
        choice = self.choose()  # once a call may go: the route may have changed meanwhile
        try:
            if choice.route is None:
                raise ModelWaiting(choice.reason)
            spent = await trio.to_thread.run_sync(self.spent)
            if spent is not None:
                raise ModelWaiting(spent, usage.seconds_to_tomorrow())
            if choice.route == "host":
                reply = await self.hosts.complete(prompt, purpose=purpose, config=self.config)
            else:
                model = (anthropic_model or self.config.model).removeprefix("anthropic/")
                text, counts = await anthropic_client.complete_with_usage(self.config, prompt,
                                                                         model)
                reply = Completion(text, "anthropic", model, counts)
        except (ModelWaiting, ModelFailed) as exc:
            exc.route = choice.route or self.config.route  # what it waits for: "auto", "host"
            raise
        tokens = usage.counted_tokens(reply.usage)
        if tokens is None:  # a route that does not say: counted as an import's plan counts
            tokens = usage.estimate_tokens(prompt) + usage.estimate_tokens(reply.text)
        await trio.to_thread.run_sync(self.usage.charge, counted_as, tokens)
        return reply

    def spent(self) -> str | None:
        """Why no call may go today (the daily budget is spent), or None."""
        limit = self.budget.daily_tokens
        if not limit:
            return None
        used = self.usage.read().tokens
        if used < limit:
            return None
        return (f"the daily token budget is spent ({used:,} of budget.dailyTokens {limit:,}); "
                "model calls resume at 00:00 UTC")

    def budget_status(self) -> BudgetStatus:
        day = self.usage.read()
        return BudgetStatus(daily_tokens=self.budget.daily_tokens,
                            import_tokens=self.budget.import_tokens, day=day.day,
                            used_today=day.tokens, by_purpose=dict(day.by_purpose),
                            calls=day.calls, spent=self.spent() is not None)

    def status(self) -> RouteStatus:
        choice = self.choose()
        return RouteStatus(setting=self.config.route, active=choice.route,
                           reason=choice.reason, anthropic_model=self.config.model_id,
                           host_model=self.config.host_model or "the agent's own",
                           hosts=self.hosts.describe())


@dataclass(frozen=True, slots=True)
class BudgetStatus:
    """Model tokens against the budgets (``budget.*``): today's use (UTC), by purpose."""

    daily_tokens: int  # the day's limit; 0: none
    import_tokens: int  # an import's default limit; 0: none
    day: str
    used_today: int
    by_purpose: dict[str, int]
    calls: int
    spent: bool  # the day's budget is spent: model calls wait for the next day


@dataclass(frozen=True, slots=True)
class RouteStatus:
    """The route setting, the route the next call takes (None: none now) and why, and the
    hosts that offer ``llm.complete`` (each as it described itself in ``host.offer``)."""

    setting: str
    active: str | None
    reason: str
    anthropic_model: str
    host_model: str
    hosts: list[Offer]
