"""Model tokens used per UTC day, by purpose, against ``budget.dailyTokens``.

Every call of the router (llm/route.py) is counted here once it is answered: the route's own
count when it gives one (the Anthropic API's ``usage``, a host's ``usage``), else the prompt's
and the reply's characters / 4 (``estimate_tokens``, the same rule an import's plan uses).
``HOME/usage.json`` holds today's counts (replaced atomically under its own lock, so the sidecar
and a CLI in files mode add up); a new day starts from zero. Before a call, a spent budget makes
it wait (``ModelWaiting``) until the next UTC day: jobs stay in the spool, nothing is lost.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from zettelclaw import lock
from zettelclaw.files import atomic_write_json, read_json_object

CHARS_PER_TOKEN = 4  # a rough rule for English text and JSON; bench/README.md measures it


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def counted_tokens(usage: dict[str, Any] | None) -> int | None:
    """Input + output tokens from a route's usage (the API's snake_case or a host's camelCase)."""
    if not usage:
        return None
    total = 0
    found = False
    for key in ("input_tokens", "output_tokens", "inputTokens", "outputTokens",
                "cache_creation_input_tokens", "cache_read_input_tokens"):
        value = usage.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            total += value
            found = True
    return total if found else None


def today() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d")


def seconds_to_tomorrow() -> float:
    now = datetime.now(UTC)
    tomorrow = (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return max((tomorrow - now).total_seconds(), 1.0)


@dataclass
class Day:
    day: str
    by_purpose: dict[str, int] = field(default_factory=dict)
    calls: int = 0

    @property
    def tokens(self) -> int:
        return sum(self.by_purpose.values())


class Usage:
    def __init__(self, path: Path | None) -> None:
        """``path``: ``HOME/usage.json``; None keeps the counts in memory only (tests)."""
        self.path = path
        self._memory = Day(today())

    def _lock(self) -> Path:
        assert self.path is not None
        return self.path.with_name("usage.lock")

    def read(self) -> Day:
        if self.path is None:
            if self._memory.day != today():
                self._memory = Day(today())
            return self._memory
        try:
            raw = read_json_object(self.path)
        except ValueError:  # torn by hand: today's count starts again (logged by status)
            raw = None
        if not raw or raw.get("day") != today():
            return Day(today())
        purposes = raw.get("byPurpose")
        return Day(today(), {str(k): int(v) for k, v in (purposes or {}).items()
                             if isinstance(v, int)}, int(raw.get("calls") or 0))

    def charge(self, purpose: str, tokens: int) -> None:
        if self.path is None:
            day = self.read()
            day.by_purpose[purpose] = day.by_purpose.get(purpose, 0) + tokens
            day.calls += 1
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with lock.exclusive(self._lock()):
            day = self.read()
            day.by_purpose[purpose] = day.by_purpose.get(purpose, 0) + tokens
            atomic_write_json(self.path, {"day": day.day, "byPurpose": day.by_purpose,
                                          "calls": day.calls + 1})
