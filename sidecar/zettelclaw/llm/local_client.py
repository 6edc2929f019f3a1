"""One call to an OpenAI-compatible chat server (``extraction.localUrl``): Ollama, llama.cpp's
server, vLLM, LM Studio all answer ``POST {localUrl}/chat/completions``.

httpx2 (the Anthropic SDK's HTTP client, as the HTTP embeddings use it) in a worker thread:
one request per call, no retries of its own (the spool's policy is the only one). Failures are
sorted as the other routes sort them (``llm/failures.py``): a server that cannot be reached or
says it is busy (429, 503) makes the job wait; a timeout, an error status or a reply with no
text is a failed attempt. ``prefill`` is the reply so far: sent as a last assistant message,
which these servers continue (``finish_reason: "length"`` says a reply stopped at its token
limit).
"""

from __future__ import annotations

from typing import Any

import trio

from zettelclaw.config import ExtractionConfig
from zettelclaw.llm.completion import Completion
from zettelclaw.llm.failures import ModelFailed, ModelWaiting
from zettelclaw.llm.speed import Timings

NO_URL = "no local model: set extraction.localUrl (an OpenAI-compatible server's /v1 URL)"


def endpoint(config: ExtractionConfig) -> str:
    assert config.local_url is not None
    return config.local_url.rstrip("/") + "/chat/completions"


async def complete(config: ExtractionConfig, prompt: str, *, prefill: str = "",
                   max_tokens: int | None = None, seconds: float | None = None) -> Completion:
    """``seconds``: the call's timeout, sized from the route's speed (llm/speed.py); None:
    ``extraction.localTimeoutSeconds``."""
    if not config.local_url:
        raise ModelWaiting(NO_URL)
    messages = [{"role": "user", "content": prompt}]
    if prefill.strip():
        messages.append({"role": "assistant", "content": prefill})
    body = {"messages": messages, "max_tokens": max_tokens or config.max_tokens,
            "stream": False, "temperature": 0}
    if config.local_repeat_penalty != 1.0:  # both names: servers ignore a field they don't know
        body["repeat_penalty"] = body["repetition_penalty"] = config.local_repeat_penalty
    if config.local_model:
        body["model"] = config.local_model
    answer = await trio.to_thread.run_sync(_post, config, body,
                                           seconds or config.local_timeout_seconds,
                                           abandon_on_cancel=True)
    try:
        choice = answer["choices"][0]
        text = choice["message"].get("content") or ""
    except (KeyError, IndexError, TypeError, AttributeError):
        raise ModelFailed("the local model's reply is not a chat completion") from None
    if not isinstance(text, str) or (not text.strip() and not prefill.strip()):
        raise ModelFailed(f"the local model's reply had no text (finish reason "
                          f"{choice.get('finish_reason')})")
    usage = answer.get("usage") if isinstance(answer.get("usage"), dict) else None
    counts = ({"input_tokens": usage.get("prompt_tokens"),
               "output_tokens": usage.get("completion_tokens")} if usage else None)
    model = str(answer.get("model") or config.local_model or "the local server's")
    return Completion(text, "local", model, counts, cut=choice.get("finish_reason") == "length",
                      timings=_timings(answer.get("timings")))


def _timings(value: Any) -> Timings | None:
    """llama.cpp's own account of the call: prompt tokens read and output tokens written, and
    the milliseconds each took (other servers send none)."""
    if not isinstance(value, dict):
        return None
    try:
        found = Timings(int(value["prompt_n"]), float(value["prompt_ms"]) / 1000,
                        int(value["predicted_n"]), float(value["predicted_ms"]) / 1000)
    except (KeyError, TypeError, ValueError):
        return None
    return found if min(found.prompt_seconds, found.output_seconds) >= 0 else None


def _post(config: ExtractionConfig, body: dict[str, Any], timeout: float) -> dict[str, Any]:
    import httpx2  # here: its import is ~0.1 s, for a route most sidecars never take

    url = endpoint(config)
    headers = {"authorization": f"Bearer {config.local_api_key}"} if config.local_api_key else {}
    try:
        response = httpx2.post(url, json=body, headers=headers, timeout=timeout)
    except httpx2.TimeoutException:
        raise ModelFailed(f"the local model did not answer within {timeout:g} s",
                          timed_out=True) from None
    except httpx2.HTTPError as exc:  # refused, reset, a bad address
        raise ModelWaiting(f"cannot reach the local model at {url}: "
                           f"{exc or type(exc).__name__}") from None
    code = response.status_code
    if code in (429, 503):
        raise ModelWaiting(f"the local model at {url} is busy ({code})")
    if code in (401, 403):
        raise ModelWaiting(f"the local model at {url} refused the key ({code}); set "
                           "extraction.localApiKey")
    if not response.is_success:
        detail = response.content[:300].decode("utf-8", "replace")
        raise ModelFailed(f"the local model at {url} answered {code}: {detail}")
    try:
        value = response.json()
    except ValueError:
        raise ModelFailed(f"the local model at {url} answered something not JSON") from None
    if not isinstance(value, dict):
        raise ModelFailed(f"the local model at {url} answered something not a JSON object")
    return value
