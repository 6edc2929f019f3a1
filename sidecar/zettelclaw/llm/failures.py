"""The two ways a model call fails, whichever route made it (the Anthropic API or the host).

- ``ModelWaiting``: nothing is wrong with the job; the model cannot be asked right now (no
  route, no key, an endpoint or host unreachable, rate limited, not authorized, the host gone
  mid-call). The job waits and is tried again later, and never uses up its retry.
- ``ModelFailed``: the model was asked and the call failed (a 5xx, a timeout, an empty reply).
  That counts as an attempt: a job is retried once, then marked failed.
"""

from __future__ import annotations


class ModelWaiting(Exception):  # a state of the world, not a failure of the job
    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        self.route: str | None = None  # the route it waits for (set by llm/route.py)


class ModelFailed(Exception):
    def __init__(self, reason: str, *, timed_out: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.timed_out = timed_out  # no answer within the call's timeout (llm/speed.py)
        self.route: str | None = None  # the route that failed (set by llm/route.py)
