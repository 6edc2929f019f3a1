"""Which model a call goes to (extraction.route), and how the host route reads the host."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from tests.fakes.anthropic_api import FakeAnthropic, Reply
from tests.timing import scaled
from zettelclaw.config import ExtractionConfig
from zettelclaw.errors import (
    HostModelFailedError,
    HostModelUnavailableError,
    PeerGone,
    ZettelclawError,
)
from zettelclaw.llm.failures import ModelFailed, ModelWaiting
from zettelclaw.llm.host import NO_HOST, HostModels
from zettelclaw.llm.route import NO_ROUTE_AUTO, Router


class Host:
    """Stands for a connection's peer: answers llm.complete with ``answer`` (or raises it)."""

    def __init__(self, answer: Any = None) -> None:
        self.offers: dict[str, dict[str, Any]] = {}
        self.closed = False
        self.answer = answer if answer is not None else {"text": "ok", "model": "m/x"}
        self.asked: list[dict[str, Any]] = []

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        assert method == "llm.complete"
        self.asked.append(params)
        if isinstance(self.answer, BaseException):
            raise self.answer
        if self.answer == "hang":
            await trio.sleep_forever()
        return self.answer


def router(key: bool, route: str = "auto", host: Host | None = None, **more: Any) -> Router:
    config = ExtractionConfig.model_validate(
        {"route": route, **({"apiKey": "k"} if key else {}), **more})
    hosts = HostModels()
    if host is not None:
        hosts.offer(host, "llm.complete", {"client": {"name": "t"}})
    return Router(config, hosts)


@pytest.mark.parametrize(("route", "key", "host", "active"), [
    ("auto", True, True, "anthropic"), ("auto", True, False, "anthropic"),
    ("auto", False, True, "host"), ("auto", False, False, None),
    ("host", True, True, "host"), ("host", True, False, None),
    ("anthropic", False, True, None), ("anthropic", True, False, "anthropic"),
])
def test_the_choice(route: str, key: bool, host: bool, active: str | None) -> None:
    choice = router(key, route, Host() if host else None).choose()
    assert choice.route == active
    assert choice.reason.endswith(f"(route {route})")


def test_no_route_says_what_is_missing() -> None:
    assert router(False).choose().reason == NO_ROUTE_AUTO
    assert router(True, "host").choose().reason == f"{NO_HOST} (route host)"


def test_a_closed_or_withdrawn_host_is_not_chosen() -> None:
    host, other = Host(), Host()
    r = router(False, host=host)
    r.hosts.offer(other, "llm.complete", {"client": {"name": "other"}})
    assert r.hosts.current() is other  # the newest offer
    other.closed = True
    assert r.hosts.current() is host
    r.hosts.withdraw(host)
    assert r.choose().route is None


async def test_the_host_route_sends_the_prompt_and_reads_the_answer() -> None:
    host = Host({"text": "entries", "provider": "openai", "model": "gpt-x",
                 "usage": {"inputTokens": 9}})
    done = await router(False, host=host, maxTokens=1000).complete("PROMPT", purpose="briefing")
    assert (done.text, done.route, done.model, done.usage) == (
        "entries", "host", "openai/gpt-x", {"inputTokens": 9})
    assert host.asked == [{"messages": [{"role": "user", "content": "PROMPT"}],
                           "maxTokens": 1000, "purpose": "briefing", "timeoutMs": 120000}]


@pytest.mark.parametrize(("answer", "kind", "reason"), [
    (PeerGone("closed"), ModelWaiting, "the host went away during the call (closed)"),
    (HostModelUnavailableError("not authorized"), ModelWaiting,
     "the host's model cannot be asked now: not authorized"),
    (HostModelFailedError("HTTP 500"), ModelFailed, "the host's model failed: HTTP 500"),
    (ZettelclawError("odd"), ModelWaiting, "the host answered llm.complete with error -32603"),
    ({"text": "  "}, ModelFailed, "the host's model replied with no text"),
    ({"words": "x"}, ModelFailed, "the host's reply to llm.complete is malformed"),
    ("hang", ModelFailed, "the host's model did not answer within 0.05 s"),
])
async def test_the_host_routes_failures(answer: Any, kind: type[Exception], reason: str) -> None:
    r = router(False, host=Host(answer), timeoutSeconds=0.05)
    with pytest.raises(kind) as info:
        await r.complete("p", purpose="extraction")
    assert str(info.value).startswith(reason)
    assert isinstance(info.value, ModelWaiting | ModelFailed)
    assert info.value.route == "host"


async def test_no_route_waits_and_names_the_setting() -> None:
    with pytest.raises(ModelWaiting) as info:
        await router(False, "host").complete("p", purpose="extraction")
    assert (info.value.reason, info.value.route) == (f"{NO_HOST} (route host)", "host")


async def test_model_calls_are_bounded_for_the_whole_process() -> None:
    """Every agent's memory shares the one router: extraction.concurrency bounds them all."""
    fake = FakeAnthropic().start()
    fake.default = Reply(text='{"type":"handoff","content":"x"}', hold=True)
    config = ExtractionConfig(api_key="k", base_url=fake.url, concurrency=2)
    router = Router(config, HostModels())
    done: list[str] = []

    async def call(n: int) -> None:
        done.append((await router.complete(f"prompt {n}", purpose="extraction")).text)

    try:
        async with trio.open_nursery() as nursery:
            for n in range(5):
                nursery.start_soon(call, n)
            with trio.fail_after(scaled(20)):
                while router.calls.statistics().tasks_waiting != 3:  # noqa: ASYNC110
                    await trio.sleep(0.01)
            assert router.calls.borrowed_tokens == 2
            await trio.to_thread.run_sync(fake.release)
    finally:
        fake.stop()
    assert len(done) == 5
    assert len(fake.requests) == 5
