"""One call to an OpenAI-compatible chat server (``extraction.localUrl``): Ollama, llama.cpp's
server, vLLM, LM Studio all answer ``POST {localUrl}/chat/completions``.

Plain ``urllib`` in a worker thread (as the HTTP embeddings are): no SDK to import, one request
per call, no retries of its own (the spool's policy is the only one). Failures are sorted as the
other routes sort them (``llm/failures.py``): a server that cannot be reached or says it is busy
(429, 503) makes the job wait; a timeout, an error status or a reply with no text is a failed
attempt. ``prefill`` is the reply so far: sent as a last assistant message, which these servers
continue (``finish_reason: "length"`` says a reply stopped at its token limit).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import trio

from zettelclaw.config import ExtractionConfig
from zettelclaw.llm.completion import Completion
from zettelclaw.llm.failures import ModelFailed, ModelWaiting

NO_URL = "no local model: set extraction.localUrl (an OpenAI-compatible server's /v1 URL)"


def endpoint(config: ExtractionConfig) -> str:
    assert config.local_url is not None
    return config.local_url.rstrip("/") + "/chat/completions"


async def complete(config: ExtractionConfig, prompt: str, *, prefill: str = "",
                   max_tokens: int | None = None) -> Completion:
    if not config.local_url:
        raise ModelWaiting(NO_URL)
    messages = [{"role": "user", "content": prompt}]
    if prefill.strip():
        messages.append({"role": "assistant", "content": prefill})
    body = {"messages": messages, "max_tokens": max_tokens or config.max_tokens,
            "stream": False, "temperature": 0}
    if config.local_model:
        body["model"] = config.local_model
    answer = await trio.to_thread.run_sync(_post, config, body, abandon_on_cancel=True)
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
    return Completion(text, "local", model, counts, cut=choice.get("finish_reason") == "length")


def _post(config: ExtractionConfig, body: dict[str, Any]) -> dict[str, Any]:
    url, timeout = endpoint(config), config.local_timeout_seconds
    headers = {"content-type": "application/json"}
    if config.local_api_key:
        headers["authorization"] = f"Bearer {config.local_api_key}"
    request = urllib.request.Request(url, data=json.dumps(body).encode(),  # noqa: S310
                                     headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            value = json.loads(response.read())
    except urllib.error.HTTPError as exc:
        detail = exc.read()[:300].decode("utf-8", "replace")
        if exc.code in (429, 503):
            raise ModelWaiting(f"the local model at {url} is busy ({exc.code})") from None
        if exc.code in (401, 403):
            raise ModelWaiting(f"the local model at {url} refused the key ({exc.code}); set "
                               "extraction.localApiKey") from None
        raise ModelFailed(f"the local model at {url} answered {exc.code}: {detail}") from None
    except TimeoutError:
        raise ModelFailed(f"the local model did not answer within {timeout:g} s") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError):
            raise ModelFailed(f"the local model did not answer within {timeout:g} s") from None
        raise ModelWaiting(f"cannot reach the local model at {url}: {reason}") from None
    except ValueError:
        raise ModelFailed(f"the local model at {url} answered something not JSON") from None
    if not isinstance(value, dict):
        raise ModelFailed(f"the local model at {url} answered something not a JSON object")
    return value
