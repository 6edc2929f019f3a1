"""How fast each model route reads a prompt and writes a reply (tokens a second, as measured),
remembered per route in ``HOME/speeds.json``; the token limit and the per-call timeout those
speeds allow (docs/11-configuration.md, ``extraction.localTimeoutSeconds``).

One constant limit does not fit every route: 4,096 tokens are seconds for an API and about
17 minutes for a 1.5B model on two CPU cores (bench/README.md). So once the local route has
answered, its calls ask for no more tokens than it writes in ``SHARE`` of its configured timeout
(after reading the prompt; never fewer than ``FLOOR``), and each call's timeout is the time the
call should take at the measured speeds, ``MARGIN`` times over, between ``FLOOR_SECONDS`` and
the configured timeout: a server that stalls is given up on in minutes, not at the ceiling.

Measured how: a llama.cpp server reports its own ``timings`` (prompt and output tokens, and
the milliseconds each took): both speeds are taken from them. Other servers give only the
token counts (``usage.prompt_tokens``, ``completion_tokens``) and the call's time, which is
fitted as reading plus writing (``seconds = prompt / read + output / write``, least squares over
the recent calls); until the calls differ enough to tell the two apart, the whole call counts as
writing (output tokens over the call's time: it errs on the slow side). Moving averages, the
newest call weighing ``WEIGHT``. A call that timed out lowers the speeds (``timed_out``): the
next is asked for fewer tokens, and given the time they take at the lower speed.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zettelclaw.files import atomic_write_json, read_json_object

SHARE = 0.6
FLOOR = 256
WEIGHT = 0.3
MIN_TOKENS = 128  # a shorter reply says little about the speed (latency, the prompt's reading)
# a call's timeout: the time it should take, this many times over (a shared machine's load
# makes a small model's speed vary several times over from one call to the next)
MARGIN = 3.0
FLOOR_SECONDS = 60.0  # ... and never less (a busy machine, a cold start of the model)
SLOWER = 0.5  # a timed-out call: the speeds are taken as this share of what they were
SEPARABLE = 0.05  # the calls' prompt/output mixes differ enough to fit the two speeds apart
# Only the local route is limited by its speed: an API's replies of a few hundred tokens measure
# mostly its latency, and a lower limit there would cost a second call, the prompt paid again.
SIZED = ("local",)


@dataclass(frozen=True, slots=True)
class Timings:
    """What a server said its call took (llama.cpp's ``timings``): tokens and seconds each."""

    prompt_tokens: int
    prompt_seconds: float
    output_tokens: int
    output_seconds: float


class Speeds:
    def __init__(self, path: Path | None) -> None:
        """``path``: ``HOME/speeds.json``; None keeps them in memory only (tests)."""
        self.path = path
        self._lock = threading.Lock()
        self._state: dict[str, Any] | None = None

    def known(self) -> dict[str, float]:
        """Output tokens a second, by route (``status``'s ``extraction.route.speeds``)."""
        return dict(self._load()["write"])

    def reading(self) -> dict[str, float]:
        """Prompt tokens a second, by route, where measured."""
        return dict(self._load()["read"])

    def _load(self) -> dict[str, Any]:
        with self._lock:
            if self._state is None:
                self._state = self._read()
            return self._state

    def _read(self) -> dict[str, Any]:
        try:
            raw = read_json_object(self.path) if self.path is not None else None
        except ValueError:  # torn by hand: measured again
            raw = None
        raw = raw or {}
        reading, fits = (found if isinstance(found := raw.get(k), dict) else {}
                         for k in ("reading", "fits"))
        return {"write": _speeds(raw), "read": _speeds(reading),
                "fits": {str(k): [float(x) for x in v] for k, v in fits.items()
                         if isinstance(v, list) and len(v) == 5
                         and all(isinstance(x, int | float) for x in v)}}

    def _save(self, state: dict[str, Any]) -> None:
        with self._lock:
            self._state = state
            if self.path is not None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                # the output speeds at the top level, as earlier versions read them
                atomic_write_json(self.path, {**state["write"], "reading": state["read"],
                                              "fits": state["fits"]})

    def record(self, route: str, output_tokens: int, seconds: float, *,
               prompt_tokens: int = 0, timings: Timings | None = None) -> None:
        state = self._copy()
        write, read, fits = state["write"], state["read"], state["fits"]
        if timings is not None:
            if timings.output_tokens >= MIN_TOKENS and timings.output_seconds > 0:
                _average(write, route, timings.output_tokens / timings.output_seconds)
            if timings.prompt_tokens >= MIN_TOKENS and timings.prompt_seconds > 0:
                _average(read, route, timings.prompt_tokens / timings.prompt_seconds)
        elif output_tokens >= MIN_TOKENS and seconds > 0:
            fitted = _fit(fits, route, prompt_tokens, output_tokens, seconds)
            if fitted is None:
                _average(write, route, output_tokens / seconds)
            else:
                read[route], write[route] = (round(v, 3) for v in fitted)
        else:
            return
        self._save(state)

    def timed_out(self, route: str, asked_tokens: int, seconds: float) -> None:
        """A call on ``route`` asked for ``asked_tokens`` and did not answer in ``seconds``:
        it is slower than measured (unmeasured: than ``asked_tokens`` in ``seconds``)."""
        if route not in SIZED or seconds <= 0:
            return
        state = self._copy()
        write, read = state["write"], state["read"]
        write[route] = round(write.get(route, asked_tokens / seconds) * SLOWER, 3)
        if route in read:
            read[route] = round(read[route] * SLOWER, 3)
        state["fits"].pop(route, None)  # its calls so far were faster than this one
        self._save(state)

    def _copy(self) -> dict[str, Any]:
        state = self._load()
        return {"write": dict(state["write"]), "read": dict(state["read"]),
                "fits": dict(state["fits"])}

    def token_limit(self, route: str, timeout: float, ceiling: int,
                    prompt_tokens: int = 0) -> int:
        """The most tokens a call on ``route`` should ask for (``ceiling``: the configured
        limit, ``extraction.maxTokens``; ``timeout``: the configured one)."""
        speed = self.known().get(route) if route in SIZED else None
        if speed is None:
            return ceiling
        left = timeout * SHARE - self._reading_seconds(route, prompt_tokens)
        return max(FLOOR, min(ceiling, int(speed * left)))

    def timeout(self, route: str, prompt_tokens: int, asked_tokens: int,
                ceiling: float) -> float:
        """The seconds a call on ``route`` is given: reading ``prompt_tokens`` and writing
        ``asked_tokens`` at the measured speeds, ``MARGIN`` times over, between
        ``FLOOR_SECONDS`` and ``ceiling`` (the configured timeout, also the one before any
        measurement). Without a reading speed, the writing speed counted the reading in."""
        write = self.known().get(route) if route in SIZED else None
        if write is None:
            return ceiling
        needed = self._reading_seconds(route, prompt_tokens) + asked_tokens / write
        return max(min(FLOOR_SECONDS, ceiling), min(ceiling, round(MARGIN * needed, 1)))

    def _reading_seconds(self, route: str, prompt_tokens: int) -> float:
        """The time reading the prompt takes at the measured speed; 0 unmeasured (the writing
        speed, measured over whole calls, counted it in)."""
        read = self.reading().get(route)
        return prompt_tokens / read if read else 0.0


def _speeds(raw: dict[str, Any]) -> dict[str, float]:
    return {str(k): float(v) for k, v in raw.items()
            if isinstance(v, int | float) and not isinstance(v, bool) and v > 0}


def _average(speeds: dict[str, float], route: str, measured: float) -> None:
    before = speeds.get(route)
    speeds[route] = round(measured if before is None
                          else before * (1 - WEIGHT) + measured * WEIGHT, 3)


def _fit(fits: dict[str, list[float]], route: str, prompt: int, output: int,
         seconds: float) -> tuple[float, float] | None:
    """Add the call to the route's fit of ``seconds = a * prompt + b * output`` (sums of the
    least squares, older calls weighing less), and give (1/a, 1/b): the reading and writing
    speeds; None while the calls cannot tell the two apart, or when the fit makes no sense (a
    prompt cache makes reading cost less than its length says)."""
    pp, po, oo, pt, ot = (x * (1 - WEIGHT) for x in fits.get(route, [0.0] * 5))
    pp, po, oo = pp + prompt * prompt, po + prompt * output, oo + output * output
    pt, ot = pt + prompt * seconds, ot + output * seconds
    fits[route] = [pp, po, oo, pt, ot]
    det = pp * oo - po * po
    if pp <= 0 or det <= SEPARABLE * pp * oo:
        return None
    a, b = (pt * oo - ot * po) / det, (ot * pp - pt * po) / det
    return (1 / a, 1 / b) if a > 0 and b > 0 else None
