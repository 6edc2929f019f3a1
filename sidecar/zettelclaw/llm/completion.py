"""A model's reply as every route gives it back (the Anthropic API, the host, a local server)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zettelclaw.llm.speed import Timings


@dataclass(frozen=True)
class Completion:
    text: str
    route: str  # "anthropic", "host" or "local"
    model: str  # as the route named it: "claude-sonnet-4-6", "openai/gpt-5" (the host's)
    usage: dict[str, Any] | None = None
    # the reply stopped at its token limit (stop reason max_tokens, finish reason length), after
    # ``continued`` calls that asked the model to go on from where it stopped
    cut: bool = False
    continued: int = 0
    looping: bool = False  # cut while repeating itself: not asked to go on (llm/route.py)
    timings: Timings | None = None  # what the server said the call took (llama.cpp's)
