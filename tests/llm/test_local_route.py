"""The local-model route (``extraction.localUrl``): extraction through an OpenAI-compatible
server, for a user with no Anthropic key and no host model. The real sidecar (hooks over its
socket, the worker, the router) against a fake ``/v1/chat/completions`` on 127.0.0.1 (the
one the OpenClaw end-to-end test runs); and the token limit each route's measured speed sets.
"""

from __future__ import annotations

import json
import re
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.extraction.test_worker import MAIN, STRETCH_1, log_entries, msg, settled, start
from tests.fakes.openai_api import FakeModel
from zettelclaw.config import Config, load_config
from zettelclaw.extraction import details
from zettelclaw.home import Home
from zettelclaw.llm import local_client
from zettelclaw.llm.failures import ModelFailed, ModelWaiting
from zettelclaw.llm.speed import FLOOR, FLOOR_SECONDS, MARGIN, SLOWER, Speeds, Timings

__all__ = ["start"]  # a fixture, shared with test_worker

FACT = {"type": "fact", "content": "Billing runs on Postgres", "subject": "billing"}
TASK = {"type": "task", "content": "Provision the billing database", "status": "open"}
HANDOFF = {"type": "handoff", "content": "Billing database chosen; provisioning next"}


@pytest.fixture
def model() -> Iterator[FakeModel]:
    server = FakeModel(None).start()
    yield server
    server.stop()


def local(home: Home, model: FakeModel) -> Config:
    return load_config(home, env={}, overrides=[
        f"extraction.localUrl={model.url}", "extraction.localModel=qwen2.5-coder-1.5b",
        "extraction.retryWaitSeconds=0.05"])


@pytest.mark.slow
async def test_extraction_through_a_local_openai_compatible_server(
        start: Any, model: FakeModel, home: Home) -> None:
    model.extraction_replies.append(("\n".join(json.dumps(o) for o in (FACT, TASK, HANDOFF)),
                                     "stop"))
    _, client = await start(local(home, model))
    status = await client.call("status")
    route = status["extraction"]["route"]
    assert (route["active"], route["localModel"]) == ("local", "qwen2.5-coder-1.5b")
    assert "extraction.localUrl is set" in route["reason"]
    await client.call("hook.sessionEnd", {"sessionId": "s-local", "sessionKey": MAIN,
                                          "messages": STRETCH_1})
    listing = await settled(client)
    assert [e["content"] for e in log_entries(home)] == [FACT["content"], TASK["content"],
                                                         HANDOFF["content"]]
    (request,) = model.extraction_requests
    assert request["model"] == "qwen2.5-coder-1.5b"
    assert request["stream"] is False
    # the loops a small model falls into at temperature 0 (bench/README.md#extraction)
    assert request["repeat_penalty"] == request["repetition_penalty"] == 1.1
    assert request["messages"][0]["content"].startswith("You are the memory extraction agent")
    assert listing["extraction"]["recent"][-1]["route"] == "local"


async def test_a_repeat_penalty_of_one_is_not_sent(home: Home, model: FakeModel) -> None:
    model.extraction_replies.append((json.dumps(FACT), "stop"))
    config = load_config(home, env={}, overrides=[f"extraction.localUrl={model.url}",
                                                  "extraction.localRepeatPenalty=1.0"])
    await local_client.complete(config.extraction, "You are the memory extraction agent.")
    (request,) = model.requests
    assert "repeat_penalty" not in request
    assert "repetition_penalty" not in request


@pytest.mark.slow
async def test_a_local_reply_cut_at_its_length_is_continued(
        start: Any, model: FakeModel, home: Home) -> None:
    whole = "\n".join(json.dumps(o) for o in (FACT, TASK, HANDOFF))
    at = whole.index("Provision")
    model.extraction_replies += [(whole[:at], "length"), (whole[at:], "stop")]
    _, client = await start(local(home, model))
    await client.call("hook.sessionEnd", {"sessionId": "s-cut", "sessionKey": MAIN,
                                          "messages": STRETCH_1})
    listing = await settled(client)
    assert [e["type"] for e in log_entries(home)] == ["fact", "task", "handoff"]
    again = model.extraction_requests[1]["messages"]
    assert [m["role"] for m in again] == ["user", "assistant"]
    assert again[1]["content"] == whole[:at]
    assert listing["extraction"]["recent"][-1]["continued"] == 1


@pytest.mark.slow
async def test_a_long_conversation_goes_in_parts_each_told_the_earlier_entries(
        start: Any, model: FakeModel, home: Home) -> None:
    talk = [msg("user" if i % 2 == 0 else "assistant", f"message {i}: " + "words " * 120,
                1_795_000_000_000 + i * 1000) for i in range(6)]
    fact_2 = {"type": "fact", "content": "Invoices go out on the first Monday"}
    model.extraction_replies += [
        (json.dumps(FACT) + "\n" + json.dumps({**HANDOFF, "content": "part one"}), "stop"),
        (json.dumps(FACT) + "\n" + json.dumps(fact_2), "stop"),  # FACT again: written once
        (json.dumps(HANDOFF), "stop")]
    config = load_config(home, env={}, overrides=[
        f"extraction.localUrl={model.url}", "extraction.localPartChars=1600",
        "extraction.retryWaitSeconds=0.05"])
    _, client = await start(config)
    await client.call("hook.sessionEnd", {"sessionId": "s-long", "sessionKey": MAIN,
                                          "messages": talk})
    listing = await settled(client)
    prompts = [r["messages"][0]["content"] for r in model.extraction_requests]
    assert len(prompts) == 3
    assert "message 0:" in prompts[0]
    assert "message 2:" not in prompts[0]
    assert "message 2:" in prompts[1]
    assert "Part 2 of 3 of this conversation" in prompts[1]
    assert f"from an earlier part of this conversation · fact (billing): {FACT['content']}" \
        in prompts[1]
    assert fact_2["content"] in prompts[2]
    assert [e["content"] for e in log_entries(home)] == [
        FACT["content"], fact_2["content"], HANDOFF["content"]]
    assert listing["extraction"]["recent"][-1]["duplicates"] == 1


@pytest.mark.slow
async def test_each_message_is_then_read_alone_for_its_details(
        start: Any, model: FakeModel, home: Home) -> None:
    """After the parts, the local route asks about each person's message alone; the facts
    about its speaker join the parts' entries, once (extraction/details.py)."""
    talk = [msg("user", "Ana: I adopted a beagle named Max last week!", 1_795_000_000_000),
            msg("user", "Ben: Congrats! I bake croissants and tarts on weekends.",
                1_795_000_001_000)]
    max_fact = {"type": "fact", "content": "Ana adopted a beagle named Max.", "subject": "ana"}
    model.extraction_replies.append((json.dumps(max_fact) + "\n" + json.dumps(HANDOFF), "stop"))
    model.details_replies += [
        json.dumps(max_fact),  # the parts gave it already: written once
        json.dumps({"type": "fact", "content": "Ben bakes croissants and tarts on weekends.",
                    "subject": "ben"}) + "\n"
        # Ben's message does not say so: set aside
        + json.dumps({"type": "fact", "content": "Ana adopted a beagle.", "subject": "ana"})]
    _, client = await start(local(home, model))
    await client.call("hook.sessionEnd", {"sessionId": "s-details", "sessionKey": MAIN,
                                          "messages": talk})
    listing = await settled(client)
    requests = [r for r in model.requests if r not in model.extraction_requests]
    assert all(r["max_tokens"] <= details.MAX_TOKENS for r in requests)
    asked = [r["messages"][0]["content"] for r in requests]
    assert [a.rstrip().splitlines()[-2] for a in asked] == [
        "Ana: I adopted a beagle named Max last week!",
        "Ben: Congrats! I bake croissants and tarts on weekends."]
    assert [e["content"] for e in log_entries(home)] == [
        max_fact["content"], "Ben bakes croissants and tarts on weekends.", HANDOFF["content"]]
    outcome = listing["extraction"]["recent"][-1]
    assert (outcome["duplicates"], outcome["setAside"]) == (1, 1)
    assert "1 fact(s) of a message read alone set aside" in outcome["note"]


@pytest.mark.slow
async def test_the_details_are_not_asked_for_when_turned_off(
        start: Any, model: FakeModel, home: Home) -> None:
    model.extraction_replies.append((json.dumps(FACT) + "\n" + json.dumps(HANDOFF), "stop"))
    config = load_config(home, env={}, overrides=[
        f"extraction.localUrl={model.url}", "extraction.localDetails=false"])
    _, client = await start(config)
    await client.call("hook.sessionEnd", {"sessionId": "s-plain", "sessionKey": MAIN,
                                          "messages": STRETCH_1})
    await settled(client)
    assert len(model.requests) == len(model.extraction_requests) == 1
    assert [e["content"] for e in log_entries(home)] == [FACT["content"], HANDOFF["content"]]


@pytest.mark.slow
async def test_an_unreachable_local_server_makes_jobs_wait_not_fail(
        start: Any, model: FakeModel, home: Home) -> None:
    url = model.url
    model.stop()
    config = load_config(home, env={}, overrides=[f"extraction.localUrl={url}",
                                                  "extraction.retryWaitSeconds=30"])
    _, client = await start(config)
    await client.call("hook.sessionEnd", {"sessionId": "s-down", "sessionKey": MAIN,
                                          "messages": STRETCH_1})
    listing = await settled(client, waiting=1)
    assert "cannot reach the local model" in listing["jobs"][0]["lastError"]
    assert listing["jobs"][0]["attempts"] == 0


def test_a_routes_speed_sizes_its_token_limit(tmp_path: Path) -> None:
    """4,096 tokens at 4 tokens/s is 17 minutes: a slow route asks for what it writes in part
    of its timeout, and a reply cut there is asked to go on."""
    speeds = Speeds(tmp_path / "speeds.json")
    assert speeds.token_limit("local", 900, 4096) == 4096  # not measured yet
    speeds.record("local", 400, 100.0)  # 4 tokens/s
    assert speeds.token_limit("local", 900, 4096) == int(4 * 900 * 0.6)
    assert speeds.token_limit("local", 10, 4096) == FLOOR
    speeds.record("anthropic", 100, 0.1)  # too short a reply to say anything
    assert Speeds(tmp_path / "speeds.json").known() == {"local": 4.0}, "remembered"
    speeds.record("anthropic", 400, 20.0)  # measured, shown, but an API's limit is its own
    assert speeds.token_limit("anthropic", 120, 4096) == 4096
    speeds.record("local", 800, 100.0)  # 8 tokens/s: a moving average
    assert Speeds(tmp_path / "speeds.json").known()["local"] == pytest.approx(5.2)


def test_a_calls_timeout_follows_the_routes_measured_speeds(tmp_path: Path) -> None:
    """The time a call should take (the prompt read, the tokens asked for written, at the
    measured speeds), three times over, between a floor and the configured timeout; the configured
    one before any measurement. A call that timed out makes the route slower."""
    speeds = Speeds(tmp_path / "speeds.json")
    assert speeds.timeout("local", 2000, 400, 900) == 900  # not measured yet
    # llama.cpp's timings: 2,000 prompt tokens in 100 s, 400 written in 100 s
    speeds.record("local", 400, 200.0, prompt_tokens=2000,
                  timings=Timings(2000, 100.0, 400, 100.0))
    assert (speeds.reading(), speeds.known()) == ({"local": 20.0}, {"local": 4.0})
    assert speeds.timeout("local", 2000, 400, 900) == MARGIN * (2000 / 20 + 400 / 4)
    assert speeds.timeout("local", 2000, 4000, 900) == 900, "never above the configured"
    assert speeds.timeout("local", 10, 10, 900) == FLOOR_SECONDS, "never below the floor"
    assert speeds.timeout("anthropic", 2000, 400, 120) == 120, "an API's is its own"
    # the token limit leaves room for reading the prompt: (900 * 0.6 - 100 s) at 4 tokens/s
    assert speeds.token_limit("local", 900, 4096, 2000) == 1760
    speeds.timed_out("local", 400, 400.0)  # given the 400 s it should take, no answer
    assert (speeds.known()["local"], speeds.reading()["local"]) == (2.0, 10.0)
    remembered = Speeds(tmp_path / "speeds.json")
    assert (remembered.known(), remembered.reading()) == ({"local": 2.0}, {"local": 10.0})
    assert remembered.timeout("local", 2000, 400, 1800) == MARGIN * (2000 / 10 + 400 / 2)


def test_without_timings_reading_and_writing_are_fitted_apart() -> None:
    """A server that gives only token counts: each call's time is prompt / read + output /
    write; one call cannot tell the two apart (the whole call counts as writing), two of
    different mixes can."""
    speeds = Speeds(None)
    speeds.record("local", 200, 2000 / 50 + 200 / 5, prompt_tokens=2000)  # 50 read/s, 5 write/s
    assert (speeds.reading(), speeds.known()) == ({}, {"local": 2.5})
    speeds.record("local", 400, 1000 / 50 + 400 / 5, prompt_tokens=1000)
    assert speeds.reading()["local"] == pytest.approx(50, rel=1e-3)
    assert speeds.known()["local"] == pytest.approx(5, rel=1e-3)
    speeds.record("local", 400, 1000 / 50 + 400 / 5, prompt_tokens=1000)  # the same mix again
    assert speeds.known()["local"] == pytest.approx(5, rel=1e-3)


@pytest.mark.slow  # two real timeouts of under a second
async def test_the_local_routes_timeout_is_sized_and_a_timeout_slows_it(
        model: FakeModel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the real router and HTTP client against the fake server: unmeasured, a call
    gets the configured timeout; measured fast (llama.cpp's timings), a stalled call is given
    up on at the sized one; and after that timeout the route is taken as slower."""
    from zettelclaw.llm import speed
    from zettelclaw.llm.host import HostModels
    from zettelclaw.llm.route import Router

    monkeypatch.setattr(speed, "FLOOR_SECONDS", 0.05)  # the floor under test's timeouts
    config = load_config(Home(tmp_path), env={}, overrides=[
        f"extraction.localUrl={model.url}", "extraction.localTimeoutSeconds=0.5",
        "extraction.maxTokens=256"]).extraction
    router = Router(config, HostModels(), usage_path=tmp_path / "usage.json")
    model.release = threading.Event()  # the server stalls
    with pytest.raises(ModelFailed, match=r"did not answer within 0\.5 s"):
        await router.complete("hello", purpose="extraction")
    assert router.speeds.known() == {"local": 256 / 0.5 * SLOWER}
    model.release.set()
    model.release = None
    model.usage = {"prompt_tokens": 1000, "completion_tokens": 400, "total_tokens": 1400}
    model.timings = {"prompt_n": 1000, "prompt_ms": 10.0, "predicted_n": 400,
                     "predicted_ms": 40.0}  # 100,000 read and 10,000 written a second
    await router.complete("hello", purpose="extraction")
    assert router.speeds.reading() == {"local": 100_000.0}
    written = 256 * 0.7 + 10_000 * 0.3
    assert router.speeds.known() == {"local": pytest.approx(written)}
    model.release = threading.Event()
    try:
        with pytest.raises(ModelFailed, match=r"did not answer within 0\.2 s"):
            await router.complete("hello", purpose="extraction")
    finally:
        model.release.set()
    assert router.speeds.known() == {"local": pytest.approx(written * SLOWER)}
    assert router.speeds.reading() == {"local": 50_000.0}


def test_route_auto_takes_a_key_then_the_local_model_then_the_host(tmp_path: Path) -> None:
    from zettelclaw.config import ExtractionConfig
    from zettelclaw.llm.host import HostModels
    from zettelclaw.llm.route import Router

    def choice(**settings: Any) -> tuple[str | None, str]:
        made = Router(ExtractionConfig(**settings), HostModels()).choose()
        return made.route, made.reason

    assert choice(localUrl="http://127.0.0.1:1/v1", apiKey="k")[0] == "anthropic"
    assert choice(localUrl="http://127.0.0.1:1/v1") == (
        "local", "no Anthropic API key; extraction.localUrl is set (route auto)")
    assert choice(route="local")[0] is None
    assert "extraction.localUrl" in choice(route="local")[1]
    assert choice()[1].startswith("no Anthropic API key and no connected host")


FAILURES = [  # (status, body answered, the failure's kind, what it says)
    (503, None, "ModelWaiting", "is busy (503)"),
    (429, None, "ModelWaiting", "is busy (429)"),
    (401, None, "ModelWaiting", "refused the key (401)"),
    (500, None, "ModelFailed", "answered 500: "),
    (200, b"<html>proxy error</html>", "ModelFailed", "answered something not JSON"),
    (200, b"[1, 2]", "ModelFailed", "not a JSON object"),
    (200, b'{"choices": []}', "ModelFailed", "not a chat completion"),
]


@pytest.mark.parametrize("case", FAILURES, ids=lambda c: c[3])
async def test_a_local_servers_failures_are_sorted_into_wait_or_failed(
        model: FakeModel, tmp_path: Path, case: tuple[int, bytes | None, str, str]) -> None:
    model.status, model.body, kind, said = case
    config = local(Home(tmp_path), model).extraction
    with pytest.raises((ModelWaiting, ModelFailed), match=re.escape(said)) as raised:
        await local_client.complete(config, "hello")
    assert type(raised.value).__name__ == kind


async def test_an_unreachable_or_silent_local_server(tmp_path: Path) -> None:
    with socket.socket() as bound:  # a port nothing listens on: refused
        bound.bind(("127.0.0.1", 0))
        port = bound.getsockname()[1]
        config = load_config(Home(tmp_path), env={}, overrides=[
            f"extraction.localUrl=http://127.0.0.1:{port}/v1"]).extraction
        with pytest.raises(ModelWaiting, match="cannot reach the local model"):
            await local_client.complete(config, "hello")
        bound.listen()  # accepted by the kernel, never answered: a timeout
        silent = config.model_copy(update={"local_timeout_seconds": 0.2})
        with pytest.raises(ModelFailed, match=r"did not answer within 0\.2 s"):
            await local_client.complete(silent, "hello")
