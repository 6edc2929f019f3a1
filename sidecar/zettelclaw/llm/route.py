"""Which model a completion goes to: the Anthropic API or the host's (``extraction.route``).

- ``anthropic``: the Anthropic Messages API (``extraction.apiKey`` / ``ANTHROPIC_API_KEY``).
- ``host``: a connected client that offers ``llm.complete`` (``llm/host.py``).
- ``local``: an OpenAI-compatible server (``extraction.localUrl``: Ollama, llama.cpp, vLLM;
  ``llm/local_client.py``).
- ``auto`` (the default): the Anthropic API when a key is set, else the local model when its URL
  is set, else a connected host.

With no usable route a call raises ``ModelWaiting`` saying why, so jobs wait as they do for a
missing key. The choice is made per call: a host that connects later is used from then on.
Every route gets the same prompt (one user message, from ``prompts/``, scrubbed of secrets),
and its reply goes through the same validation; only the transport differs.

A reply that stops at its token limit is never passed on as whole: the model is asked to go on
from where it stopped (the reply so far sent back as the start of its answer), up to
``CONTINUATIONS`` times, unless it was repeating itself (more of a loop is no use); the
``Completion`` says it was cut, continued or looping. Each route's speeds (prompt tokens read
and output tokens written a second, ``llm/speed.py``) are measured; the local route's size its
token limit so that a reply fits in its configured timeout (a slow local model writes a shorter
reply and is asked to go on, instead of running past it), and each call's timeout to the time
the call should take, with a margin.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import trio

from zettelclaw.config import BudgetConfig, ExtractionConfig
from zettelclaw.llm import anthropic_client, local_client, usage
from zettelclaw.llm.completion import Completion
from zettelclaw.llm.failures import ModelFailed, ModelWaiting
from zettelclaw.llm.host import NO_HOST, HostModels, Offer
from zettelclaw.llm.json_objects import scan
from zettelclaw.llm.speed import Speeds
from zettelclaw.scrub import scrub

NO_ROUTE_AUTO = f"no Anthropic API key and {NO_HOST} (route auto)"
CONTINUATIONS = 2  # calls that ask a reply cut at its token limit to go on


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
        self.speeds = Speeds(usage_path.with_name("speeds.json") if usage_path else None)
        # One router per process, shared by every agent's memory: so ``extraction.concurrency``
        # bounds the model calls of the whole sidecar, not of each agent's extraction loop.
        self.calls = trio.CapacityLimiter(config.concurrency)

    def choose(self) -> Choice:  # noqa: PLR0911 (one return per route setting and reason)
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
        local = bool(self.config.local_url)
        if setting == "local":
            return (Choice("local", "set by extraction.route (route local)") if local
                    else Choice(None, f"{local_client.NO_URL} (route local)"))
        if key:
            return Choice("anthropic", "an Anthropic API key is set (route auto)")
        if local:
            return Choice("local", "no Anthropic API key; extraction.localUrl is set "
                                   "(route auto)")
        if host:
            return Choice("host", "no Anthropic API key; a connected host offers llm.complete "
                                  f"(route auto){trouble}")
        return Choice(None, f"{NO_ROUTE_AUTO}{gone}")

    def may_use_anthropic(self) -> bool:
        """Whether any call of this process may go to the Anthropic API: a key is set and the
        route allows it (the settings are read once, at start)."""
        return bool(self.config.api_key) and self.config.route != "host"

    async def complete(self, prompt: str, *, purpose: str,
                       anthropic_model: str | None = None, counted_as: str | None = None,
                       max_tokens: int | None = None) -> Completion:
        """``counted_as``: the purpose its tokens count under today (an import's extraction
        is ``import``), when it is not ``purpose`` (what a host is told). ``max_tokens``: a
        call that needs fewer than ``extraction.maxTokens`` (a message's details).

        The prompt is scrubbed here, on every route: whatever it quotes (a transcript, the
        entries it is asked about, a line a person wrote into the log by hand, a workspace
        file) no secret reaches a model."""
        prompt = await trio.to_thread.run_sync(scrub, prompt)
        async with self.calls:
            return await self._complete(prompt, purpose, anthropic_model,
                                        counted_as or purpose, max_tokens)

    async def _complete(self, prompt: str, purpose: str, anthropic_model: str | None,
                        counted_as: str, max_tokens: int | None = None) -> Completion:
        choice = self.choose()  # once a call may go: the route may have changed meanwhile
        try:
            if choice.route is None:
                raise ModelWaiting(choice.reason)
            reply = await self._ask(choice.route, prompt, purpose, anthropic_model, counted_as,
                                    max_tokens=max_tokens)
            calls = 1
            while reply.cut and calls <= CONTINUATIONS and choice.route != "host":
                if _looping(reply.text):
                    reply = replace(reply, looping=True)
                    break
                more = await self._ask(choice.route, prompt, purpose, anthropic_model,
                                       counted_as, prefill=reply.text, max_tokens=max_tokens)
                calls += 1
                reply = replace(more, text=_joined(reply.text, more.text),
                                usage=_added(reply.usage, more.usage), continued=calls - 1)
        except (ModelWaiting, ModelFailed) as exc:
            exc.route = choice.route or self.config.route  # what it waits for: "auto", "host"
            raise
        return reply

    async def _ask(self, route: str, prompt: str, purpose: str, anthropic_model: str | None,
                   counted_as: str, *, prefill: str = "", max_tokens: int | None = None
                   ) -> Completion:
        """One call on ``route``, counted against today's budget."""
        spent = await trio.to_thread.run_sync(self.spent)
        if spent is not None:
            raise ModelWaiting(spent, usage.seconds_to_tomorrow())
        ceiling = self.timeout(route)
        reading = usage.estimate_tokens(prompt) + usage.estimate_tokens(prefill)
        asked = min(max_tokens, self.config.max_tokens) if max_tokens else self.config.max_tokens
        limit = self.speeds.token_limit(route, ceiling, asked, reading)
        started = trio.current_time()
        if route == "host":
            reply = await self.hosts.complete(prompt, purpose=purpose, config=self.config)
        elif route == "local":
            timeout = self.speeds.timeout(route, reading, limit, ceiling)
            try:
                reply = await local_client.complete(self.config, prompt, prefill=prefill,
                                                    max_tokens=limit, seconds=timeout)
            except ModelFailed as exc:
                if exc.timed_out:  # slower than measured: the next call is sized for that
                    await trio.to_thread.run_sync(self.speeds.timed_out, route, limit, timeout)
                raise
        else:
            model = (anthropic_model or self.config.model).removeprefix("anthropic/")
            reply = await anthropic_client.complete_with_usage(
                self.config, prompt, model, prefill=prefill, max_tokens=limit)
        elapsed = trio.current_time() - started
        tokens = usage.counted_tokens(reply.usage)
        if tokens is None:  # a route that does not say: counted as an import's plan counts
            tokens = usage.estimate_tokens(prompt) + usage.estimate_tokens(reply.text)
        await trio.to_thread.run_sync(self.usage.charge, counted_as, tokens)
        await trio.to_thread.run_sync(partial(
            self.speeds.record, route, _output_tokens(reply), elapsed,
            prompt_tokens=_counted(reply, "input") or reading, timings=reply.timings))
        return reply

    def timeout(self, route: str) -> float:
        return (self.config.local_timeout_seconds if route == "local"
                else self.config.timeout_seconds)

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
                           hosts=self.hosts.describe(), local_url=self.config.local_url,
                           local_model=self.config.local_model,
                           speeds=self.speeds.known(), reading_speeds=self.speeds.reading())


LOOP_TAIL = 80  # characters: a reply whose end is a stretch it already wrote twice is looping
LOOP_WINDOW = 4000
LOOP_OBJECTS = 4  # a reply whose last this many objects were all written before is looping


def _looping(text: str) -> bool:
    """A reply that is mostly the same objects again (a small model cut at its token limit
    while writing one fact 43 times), or whose last objects it had all written already, or
    that ends repeating a sentence inside one (the same model, a handoff's detail saying the
    same three sentences until the limit): going on would only write more of it."""
    objects = [repr(sorted(o.items())) for o in scan(text).objects]
    if len(objects) >= 6 and len(set(objects)) * 2 <= len(objects):
        return True
    # a cycle of several facts written over and over (the same model: nine facts, then the
    # same nine again, until the limit): the newest objects are all old ones
    newest = len(objects) - LOOP_OBJECTS
    if newest >= LOOP_OBJECTS and set(objects[newest:]) <= set(objects[:newest]):
        return True
    tail = text.rstrip()[-LOOP_TAIL:]
    return len(tail) == LOOP_TAIL and text[-LOOP_WINDOW:].count(tail) >= 3


def _joined(before: str, after: str) -> str:
    # the API is sent the reply so far without its trailing white space, and goes on from there
    return before.rstrip() + after if before.strip() else after


def _added(a: dict[str, Any] | None, b: dict[str, Any] | None) -> dict[str, Any] | None:
    if a is None or b is None:
        return a or b
    return {k: (a.get(k) or 0) + (b.get(k) or 0) for k in {*a, *b}
            if isinstance(a.get(k, 0), int) and isinstance(b.get(k, 0), int)}


def _counted(reply: Completion, side: str) -> int | None:
    """The reply's own count of its ``side`` tokens ("input" or "output"), as the API and a
    local server give it (``input_tokens``) or a host (``inputTokens``); None if it gives none."""
    counts = reply.usage or {}
    value = counts.get(f"{side}_tokens", counts.get(f"{side}Tokens"))
    return value if isinstance(value, int) and value > 0 else None


def _output_tokens(reply: Completion) -> int:
    return _counted(reply, "output") or usage.estimate_tokens(reply.text)


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
    local_url: str | None = None
    local_model: str | None = None
    speeds: dict[str, float] | None = None  # output tokens a second, by route, as measured
    reading_speeds: dict[str, float] | None = None  # prompt tokens a second, where measured
