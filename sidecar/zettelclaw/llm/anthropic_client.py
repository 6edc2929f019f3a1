"""One call to the Anthropic Messages API, with failures sorted into two kinds
(``llm/failures.py``; the host route sorts its failures the same way):

- ``ModelWaiting``: nothing is wrong with the job; the model cannot be asked right now (no API
  key, endpoint unreachable, rate limited, overloaded, key refused). The job waits and is tried
  again later; this never uses up its retry. ``status`` shows the reason.
- ``ModelFailed``: the model was asked and the call failed (a 5xx, a timeout, a 400, an empty
  reply). This counts as an attempt: a job is retried once, then marked failed.

The SDK's own retries are off (``max_retries=0``): the spool's retry policy is the only one, so
"a 500 twice" means exactly two calls. ``AsyncAnthropic`` runs on trio through httpx and anyio,
and is always closed by ``async with``.
"""

from __future__ import annotations

import functools
import importlib
import ssl
from typing import TYPE_CHECKING, Any

from zettelclaw import long_lived
from zettelclaw.config import ExtractionConfig
from zettelclaw.llm.completion import Completion
from zettelclaw.llm.failures import ModelFailed, ModelWaiting

__all__ = ["NO_KEY", "ModelFailed", "ModelWaiting", "complete", "preload", "tls_context"]

if TYPE_CHECKING:
    import anthropic


def preload() -> None:
    """Import the SDK (about a second) and load the CA certificates ahead of the first call; run
    it in a worker thread, so that neither start-up nor the event loop waits for them."""
    importlib.import_module("anthropic")
    tls_context()
    long_lived.freeze()  # the SDK's ~120k objects: a full collection would walk them all


@functools.cache
def tls_context() -> ssl.SSLContext:
    """One TLS context for every call. The SDK's default HTTP client builds a new one per client,
    loading the system's CA bundle each time, on the event loop's thread, for every job: a
    visible share of the sidecar's CPU while it drained a backlog (bench/README.md)."""
    return ssl.create_default_context()


NO_KEY = ("no Anthropic API key: set ANTHROPIC_API_KEY in the sidecar's environment or "
          "extraction.apiKey in HOME/config.json")


def _retry_after(exc: anthropic.APIStatusError) -> float | None:
    value = exc.response.headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


async def complete(config: ExtractionConfig, prompt: str, model: str | None = None) -> str:
    """The text of the model's reply to ``prompt`` (a single user message)."""
    return (await complete_with_usage(config, prompt, model)).text


async def complete_with_usage(config: ExtractionConfig, prompt: str, model: str | None = None,
                              *, prefill: str = "", max_tokens: int | None = None
                              ) -> Completion:
    """``complete``, with the API's token counts (``input_tokens``, ``output_tokens``) and
    whether the reply stopped at its token limit. ``prefill``: the reply so far, which the
    model goes on from (an assistant message last: the API continues it)."""
    if not config.api_key:
        raise ModelWaiting(NO_KEY)
    import anthropic  # preloaded in a thread by the worker: see preload()

    where = config.base_url or "api.anthropic.com"
    http = anthropic.DefaultAsyncHttpxClient(verify=tls_context())
    timeout = config.timeout_seconds
    messages: list[Any] = [{"role": "user", "content": prompt}]
    if prefill.strip():  # the API refuses a final assistant turn that ends in white space
        messages.append({"role": "assistant", "content": prefill.rstrip()})
    name = (model or config.model_id).removeprefix("anthropic/")
    async with anthropic.AsyncAnthropic(api_key=config.api_key, base_url=config.base_url,
                                        max_retries=0, timeout=timeout,
                                        http_client=http) as client:
        try:
            message = await client.messages.create(
                model=name, max_tokens=max_tokens or config.max_tokens, messages=messages)
        except anthropic.APITimeoutError:
            raise ModelFailed(f"the model did not answer within {timeout:g} s") from None
        except anthropic.APIConnectionError as exc:
            raise ModelWaiting(f"cannot reach the Anthropic API at {where}: {exc}") from None
        except (anthropic.AuthenticationError, anthropic.PermissionDeniedError) as exc:
            raise ModelWaiting(f"the API key was refused ({exc.status_code}); fix the key"
                               ) from None
        except anthropic.RateLimitError as exc:
            raise ModelWaiting("rate limited by the API (429)", _retry_after(exc)) from None
        except anthropic.APIStatusError as exc:
            if exc.status_code in (503, 529):
                raise ModelWaiting(f"the API is overloaded ({exc.status_code})",
                                   _retry_after(exc)) from None
            raise ModelFailed(f"the API answered {exc.status_code}: {exc.message}") from None
    text = "".join(block.text for block in message.content if block.type == "text")
    if not text.strip() and not prefill.strip():
        raise ModelFailed(f"the model's reply had no text (stop reason {message.stop_reason})")
    usage = getattr(message, "usage", None)
    counts = ({"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}
              if usage is not None else None)
    return Completion(text, "anthropic", name, counts, cut=message.stop_reason == "max_tokens")
