"""How fast each model route writes (output tokens a second, as measured), remembered per
route in ``HOME/speeds.json``, and the token limit that speed allows within a timeout.

One constant limit does not fit every route: 4,096 tokens are seconds for an API and about
17 minutes for a 1.5B model on two CPU cores (bench/README.md). So once the local route has
answered, its calls ask for no more tokens than it writes in ``SHARE`` of its timeout (never
fewer than ``FLOOR``); a reply cut there is asked to go on (llm/route.py) instead of timing out
whole.
The speed is a moving average (``WEIGHT`` for the newest call), measured over the whole call,
prompt reading included, so it errs on the slow side.
"""

from __future__ import annotations

import threading
from pathlib import Path

from zettelclaw.files import atomic_write_json, read_json_object

SHARE = 0.6
FLOOR = 256
WEIGHT = 0.3
MIN_TOKENS = 128  # a shorter reply says little about the speed (latency, the prompt's reading)
# Only the local route is limited by its speed: an API's replies of a few hundred tokens measure
# mostly its latency, and a lower limit there would cost a second call, the prompt paid again.
SIZED = ("local",)


class Speeds:
    def __init__(self, path: Path | None) -> None:
        """``path``: ``HOME/speeds.json``; None keeps them in memory only (tests)."""
        self.path = path
        self._lock = threading.Lock()
        self._known: dict[str, float] | None = None

    def known(self) -> dict[str, float]:
        with self._lock:
            if self._known is None:
                self._known = self._read()
            return dict(self._known)

    def _read(self) -> dict[str, float]:
        try:
            raw = read_json_object(self.path) if self.path is not None else None
        except ValueError:  # torn by hand: measured again
            raw = None
        return {str(k): float(v) for k, v in (raw or {}).items()
                if isinstance(v, int | float) and not isinstance(v, bool) and v > 0}

    def record(self, route: str, output_tokens: int, seconds: float) -> None:
        if output_tokens < MIN_TOKENS or seconds <= 0:
            return
        measured = output_tokens / seconds
        known = self.known()
        before = known.get(route)
        known[route] = round(measured if before is None
                             else before * (1 - WEIGHT) + measured * WEIGHT, 3)
        with self._lock:
            self._known = known
            if self.path is not None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                atomic_write_json(self.path, known)

    def token_limit(self, route: str, timeout: float, ceiling: int) -> int:
        """The most tokens a call on ``route`` should ask for (``ceiling``: the configured
        limit, ``extraction.maxTokens``)."""
        speed = self.known().get(route) if route in SIZED else None
        if speed is None:
            return ceiling
        return max(FLOOR, min(ceiling, int(speed * timeout * SHARE)))
