"""llm/anthropic_client.py: one Messages API call through the real SDK, against FakeAnthropic.

Runs under trio. Covers complete(): a text reply, and the request it sent (model without the
"anthropic/" prefix, max_tokens, the prompt as the one user message, the API key); no API key ->
ModelWaiting without a request; 429 with retry-after -> ModelWaiting carrying retry_after; 529 and
503 -> ModelWaiting; 401 and 403 -> ModelWaiting; 500 and 400 -> ModelFailed; a reply slower than
timeoutSeconds -> ModelFailed (timeout); a closed port -> ModelWaiting; a reply without text ->
ModelFailed; and exactly one HTTP request per call, whatever the outcome (the SDK's retries are
off); the TLS context all calls share still verifies the server.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Iterator

import pytest

from tests.fakes.anthropic_api import FakeAnthropic, Reply
from zettelclaw.config import ExtractionConfig
from zettelclaw.llm.anthropic_client import (
    NO_KEY,
    ModelFailed,
    ModelWaiting,
    complete,
    tls_context,
)

TIMEOUT = 0.3


@pytest.fixture(scope="module")
def fake_server() -> Iterator[FakeAnthropic]:
    server = FakeAnthropic().start()  # one per module: stopping one takes half a second
    yield server
    server.stop()


@pytest.fixture
def fake(fake_server: FakeAnthropic) -> FakeAnthropic:
    """The shared fake with an empty script and no requests recorded."""
    with fake_server._lock:
        fake_server.replies.clear()
        fake_server.requests.clear()
    return fake_server


def config_for(fake: FakeAnthropic, **fields: object) -> ExtractionConfig:
    values: dict[str, object] = {"apiKey": "sk-ant-test", "baseUrl": fake.url,
                                 "timeoutSeconds": TIMEOUT}
    values.update(fields)
    return ExtractionConfig.model_validate(values)


async def test_a_text_reply(fake: FakeAnthropic) -> None:
    fake.add(Reply(text='{"type":"handoff","content":"done"}'))
    config = config_for(fake, model="anthropic/claude-sonnet-4-6", maxTokens=2048)
    assert await complete(config, "the prompt") == '{"type":"handoff","content":"done"}'
    [request] = fake.requests
    assert request["model"] == "claude-sonnet-4-6"
    assert request["max_tokens"] == 2048
    assert request["messages"] == [{"role": "user", "content": "the prompt"}]


async def test_the_model_argument_overrides_the_config(fake: FakeAnthropic) -> None:
    fake.add(Reply(text="ok"))
    assert await complete(config_for(fake), "p", model="anthropic/claude-haiku-4") == "ok"
    assert fake.requests[0]["model"] == "claude-haiku-4"


async def test_no_key_waits_without_a_request(fake: FakeAnthropic) -> None:
    config = ExtractionConfig(base_url=fake.url, timeout_seconds=TIMEOUT)
    with pytest.raises(ModelWaiting) as info:
        await complete(config, "p")
    assert info.value.reason == NO_KEY
    assert info.value.retry_after is None
    assert fake.requests == []


async def test_rate_limited_waits_with_retry_after(fake: FakeAnthropic) -> None:
    fake.add(Reply(status=429, error_type="rate_limit_error", headers={"retry-after": "17"}))
    with pytest.raises(ModelWaiting) as info:
        await complete(config_for(fake), "p")
    assert "429" in info.value.reason
    assert info.value.retry_after == 17.0
    assert len(fake.requests) == 1


async def test_rate_limited_without_a_usable_retry_after(fake: FakeAnthropic) -> None:
    fake.add(Reply(status=429, error_type="rate_limit_error",
                   headers={"retry-after": "Wed, 21 Oct 2026 07:28:00 GMT"}))
    with pytest.raises(ModelWaiting) as info:
        await complete(config_for(fake), "p")
    assert info.value.retry_after is None


@pytest.mark.parametrize("status", [529, 503])
async def test_overloaded_waits(fake: FakeAnthropic, status: int) -> None:
    fake.add(Reply(status=status, error_type="overloaded_error", headers={"retry-after": "3"}))
    with pytest.raises(ModelWaiting) as info:
        await complete(config_for(fake), "p")
    assert str(status) in info.value.reason
    assert info.value.retry_after == 3.0
    assert len(fake.requests) == 1


@pytest.mark.parametrize(("status", "error_type"), [(401, "authentication_error"),
                                                    (403, "permission_error")])
async def test_a_refused_key_waits(fake: FakeAnthropic, status: int, error_type: str) -> None:
    fake.add(Reply(status=status, error_type=error_type))
    with pytest.raises(ModelWaiting) as info:
        await complete(config_for(fake), "p")
    assert str(status) in info.value.reason
    assert len(fake.requests) == 1


@pytest.mark.parametrize(("status", "error_type"), [(500, "api_error"),
                                                    (400, "invalid_request_error")])
async def test_a_server_or_request_error_fails(fake: FakeAnthropic, status: int,
                                               error_type: str) -> None:
    fake.add(Reply(status=status, error_type=error_type))
    with pytest.raises(ModelFailed) as info:
        await complete(config_for(fake), "p")
    assert str(status) in info.value.reason
    assert len(fake.requests) == 1


async def test_a_500_twice_is_exactly_two_requests(fake: FakeAnthropic) -> None:
    fake.add(Reply(status=500), Reply(status=500))
    for _ in range(2):
        with pytest.raises(ModelFailed):
            await complete(config_for(fake), "p")
    assert len(fake.requests) == 2


async def test_a_slow_reply_times_out(fake: FakeAnthropic) -> None:
    fake.add(Reply(text="too late", delay=TIMEOUT * 10))
    with pytest.raises(ModelFailed) as info:
        await complete(config_for(fake), "p")
    assert "did not answer within 0.3 s" in info.value.reason
    assert len(fake.requests) == 1


async def test_a_closed_port_waits() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = ExtractionConfig(api_key="k", base_url=f"http://127.0.0.1:{port}",
                              timeout_seconds=TIMEOUT)
    with pytest.raises(ModelWaiting) as info:
        await complete(config, "p")
    assert f"127.0.0.1:{port}" in info.value.reason


@pytest.mark.parametrize("text", ["", "   \n"])
async def test_a_reply_without_text_fails(fake: FakeAnthropic, text: str) -> None:
    fake.add(Reply(text=text))
    with pytest.raises(ModelFailed) as info:
        await complete(config_for(fake), "p")
    assert "no text" in info.value.reason
    assert len(fake.requests) == 1


async def test_one_request_per_call(fake: FakeAnthropic) -> None:
    fake.add(Reply(text="a"), Reply(status=529), Reply(text="b"), Reply(status=500),
             Reply(status=429))
    outcomes: list[str] = []
    for _ in range(5):
        try:
            outcomes.append(await complete(config_for(fake), f"prompt {len(outcomes)}"))
        except (ModelWaiting, ModelFailed) as exc:
            outcomes.append(type(exc).__name__)
    assert outcomes == ["a", "ModelWaiting", "b", "ModelFailed", "ModelWaiting"]
    assert fake.prompts() == [f"prompt {i}" for i in range(5)]


def test_the_shared_tls_context_still_verifies_the_server() -> None:
    """Calls share one TLS context (built once, not per job); sharing must not weaken it."""
    context = tls_context()
    assert context is tls_context()
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname
    assert context.minimum_version >= ssl.TLSVersion.TLSv1_2
