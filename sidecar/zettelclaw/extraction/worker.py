"""The extraction loop: take due jobs from the spool and run them, a few at a time.

Jobs of one session run in order (a later stretch may correct an earlier one, and its
``replaces`` needs the earlier entries in the log); different sessions run concurrently, up to
``extraction.concurrency``. A hook wakes the loop; so does a job that finished; otherwise it
sleeps until the next waiting job is due.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import replace
from functools import partial
from typing import Any

import trio

from zettelclaw import failpoints
from zettelclaw.extraction import details, retention
from zettelclaw.extraction.outcomes import UnreadReply, unread_outcome
from zettelclaw.extraction.service import Extraction
from zettelclaw.extraction.spool import Job
from zettelclaw.llm.anthropic_client import preload
from zettelclaw.llm.completion import Completion
from zettelclaw.llm.failures import ModelFailed, ModelWaiting

logger = logging.getLogger(__name__)


# A hook or a retry means the spool must be listed again; listings come at most this often, so
# that a burst of hooks (a sweep after an outage) does not make the loop list for each one.
LIST_INTERVAL = 0.2


class Worker:
    def __init__(self, extraction: Extraction, preload_after: trio.Event | None = None) -> None:
        """``preload_after``: the SDK is imported once it is set (the index's first catch-up:
        the import holds the GIL, and beside a cold build it lengthened the build by its own
        time; bench/README.md)."""
        self.extraction = extraction
        self._preload_after = preload_after
        self._wake = trio.Event()
        self._running: dict[str, str] = {}  # job id -> its session
        self._sdk_ready = trio.Event()
        self._stale = True  # the spool changed in a way only a listing tells (a hook, a retry)
        self._finished: set[str] = set()  # jobs done since the last listing (their files gone)
        self._jobs: list[Job] = []

    def notify(self) -> None:
        """New or changed jobs in the spool (a hook, a retry): list it again."""
        self._stale = True
        self._wake.set()

    def busy(self) -> bool:
        """A job is being run (its model call, or its entries being appended)."""
        return bool(self._running)

    async def route_available(self) -> None:
        """A model route became usable (a host offered llm.complete): the jobs that waited for
        one are due now, not at the end of their wait."""
        waiting = await trio.to_thread.run_sync(self.extraction.resume)
        if waiting:
            logger.info("a model route is available: %d waiting job(s) go now", waiting)
        self.notify()

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> None:
        await trio.to_thread.run_sync(self.extraction.recover)
        task_status.started()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._preload)
            nursery.start_soon(self._retention)
            listed_at = -math.inf
            while True:
                self._wake = trio.Event()
                if self._stale:
                    await trio.sleep_until(listed_at + LIST_INTERVAL)
                    self._stale = False
                    try:
                        self._jobs = await trio.to_thread.run_sync(self.extraction.spool.jobs)
                    except OSError:  # a spool unreadable for a moment must not stop the sidecar
                        logger.exception("cannot list the extraction spool; trying again")
                        self._stale = True
                        await trio.sleep(self.extraction.config.retry_wait_seconds)
                        continue
                    listed_at = trio.current_time()
                    self._finished.clear()
                elif self._finished:  # a job done: the listing, less it, is still right
                    self._jobs = [j for j in self._jobs if j.job_id not in self._finished]
                    self._finished.clear()
                for job in self._due(self._jobs):
                    self._running[job.job_id] = job.session_id
                    nursery.start_soon(self._run, job)
                # At capacity, a finishing job is what wakes the loop: no need to look for the
                # next due time in a backlog of thousands after every job.
                full = len(self._running) >= self.extraction.config.concurrency
                with trio.move_on_at(math.inf if full else self._next_due(self._jobs)):
                    await self._wake.wait()

    async def _preload(self) -> None:
        # Abandoned on cancel: an import half done in a thread holds nothing a shutdown needs.
        # It can fail (out of file descriptors right after start): tried again, never fatal.
        if not self.extraction.router.may_use_anthropic():
            # Only the Anthropic route needs the SDK. Without a key (the OpenClaw plugin's host
            # model) its import would cost CPU, memory and a stall of the event loop: the import
            # holds the GIL for long stretches, and a hook soon after start waited behind it
            # (bench/README.md#search-at-a-million-entries).
            return
        if self._preload_after is not None:
            await self._preload_after.wait()
        wait = 1.0
        while True:
            try:
                await trio.to_thread.run_sync(preload, abandon_on_cancel=True)
            except Exception as exc:
                logger.warning("loading the Anthropic SDK failed (%s: %s); trying again in "
                               "%g s", type(exc).__name__, exc, wait)
                await trio.sleep(wait)
                wait = min(wait * 2, 60.0)
            else:
                self._sdk_ready.set()
                return

    async def _retention(self) -> None:
        """Prune the transcripts past their time now (the memory just opened), then hourly."""
        while True:
            try:
                await trio.to_thread.run_sync(self.extraction.prune_transcripts)
            except OSError:  # a full disk or a file that would not go: try again next time
                logger.exception("pruning old transcripts failed; trying again in %g s",
                                 retention.INTERVAL_SECONDS)
            await trio.sleep(retention.INTERVAL_SECONDS)

    def _due(self, jobs: list[Job]) -> list[Job]:
        """Jobs to start now: due, not running, the first of their session, within capacity.

        The scan stops once capacity is filled, so a backlog costs a few steps, not a pass."""
        free = self.extraction.config.concurrency - len(self._running)
        now = time.time()
        if free <= 0 or self.extraction.pause.active():
            return []
        busy_sessions = set(self._running.values())
        due: list[Job] = []
        for job in jobs:  # oldest first
            if job.state == "failed":
                continue
            if job.session_id in busy_sessions:
                continue
            busy_sessions.add(job.session_id)  # later jobs of this session wait for this one
            if job.job_id not in self._running and (job.not_before or 0) <= now:
                due.append(job)
                if len(due) == free:
                    break
        return due

    def _next_due(self, jobs: list[Job]) -> float:
        times = [max(j.not_before or 0.0, self.extraction.pause.until) for j in jobs
                 if j.state != "failed" and j.job_id not in self._running]
        times = [t for t in times if t > 0]
        if not times:
            return math.inf
        return trio.current_time() + max(min(times) - time.time(), 0.0)

    async def _run(self, listed: Job) -> None:
        try:
            # The listing may be stale: the job may have finished, or saved its result, since.
            # The file on disk is the truth; a job that is gone is done.
            job = await trio.to_thread.run_sync(self.extraction.spool.load, listed.job_id)
            done = job is None or await self._attempt(job)
        except Exception:
            logger.exception("extraction job %s crashed; it stays in the spool", listed.job_id)
            done = False
        finally:
            self._running.pop(listed.job_id, None)
        if done:  # its file is gone: no need to list the spool again for that
            self._finished.add(listed.job_id)
            self._wake.set()
        else:  # it waits or failed: its new state is on disk
            self.notify()

    async def _attempt(self, job: Job) -> bool:
        """Run the job as far as it goes; True when it is done (its entries in the log)."""
        extraction = self.extraction
        failpoints.reach("before-model")
        if job.result is None:
            asked = await self._ask(job)
            if asked is None:
                return False  # it waits, or the attempt failed: its new state is saved
            reply, set_aside = asked
            try:
                result = await trio.to_thread.run_sync(partial(
                    extraction.result, job, reply.text, cut=reply.cut,
                    continued=reply.continued, looping=reply.looping, set_aside=set_aside))
            except UnreadReply as exc:
                logger.warning("extraction of %s: %s", job.job_id, exc.reason)
                await trio.to_thread.run_sync(partial(
                    extraction.fail, job, exc.reason, reply.route,
                    unread_outcome(job, exc, reply.route)))
                return False
            result["model"] = {"route": reply.route, "model": reply.model,
                               **({"usage": reply.usage} if reply.usage else {})}
            job.result, job.route = result, reply.route
            job.state, job.last_error, job.not_before = "pending", None, None
            if not await trio.to_thread.run_sync(extraction.keep_result, job):
                logger.info("job %s was removed while the model answered (a purge or an "
                            "import's rollback): its result is dropped", job.job_id)
                return True
            failpoints.reach("after-result")
        await trio.to_thread.run_sync(extraction.finish, job)  # it logs what became of it
        return True

    async def _ask(self, job: Job) -> tuple[Completion, int] | None:
        """The model's reply for the job: one call, or one per part of a long conversation
        (extraction/parts.py), each part told the entries the earlier ones gave; on the local
        route, then one per message for its details (extraction/details.py); read as one
        reply, with the count of details set aside. None: the model cannot be asked now, or
        the call failed (the job says so)."""
        extraction = self.extraction
        cut_up, _ = await trio.to_thread.run_sync(extraction.parts, job)
        if len(cut_up) > 1:
            logger.info("job %s: a long conversation, sent in %d parts", job.job_id, len(cut_up))
        replies: list[Completion] = []
        aside = 0
        for part in range(len(cut_up)):
            prompt = await trio.to_thread.run_sync(
                extraction.prompt, job, part, [r.text for r in replies])
            if extraction.router.choose().route == "anthropic":
                await self._sdk_ready.wait()  # so that complete()'s import never blocks the loop
            if (reply := await self._call(job, prompt)) is None:
                return None
            replies.append(reply)
        if extraction.config.local_details and extraction.router.choose().route == "local":
            asked = details.to_ask([m for part in cut_up for m in part])
            facts = 0
            for one in asked:
                reply = await self._call(job, details.prompt(one), details.MAX_TOKENS)
                if reply is None:
                    return None
                lines, dropped = details.kept(reply.text, one)
                facts, aside = facts + len(lines), aside + dropped
                replies.append(replace(reply, text="\n".join(lines)))
            logger.info("job %s: %d messages read alone for their details: %d facts, %d set "
                        "aside (not the speaker's, or of the talk)", job.job_id, len(asked),
                        facts, aside)
        last = replies[-1]
        return replace(last, text="\n".join(r.text for r in replies if r.text),
                       cut=any(r.cut for r in replies),
                       continued=sum(r.continued for r in replies),
                       looping=any(r.looping for r in replies),
                       usage=_summed([r.usage for r in replies])), aside

    async def _call(self, job: Job, prompt: str, max_tokens: int | None = None
                    ) -> Completion | None:
        """One call for the job; None when the model cannot be asked now or the call failed
        (the job is saved as waiting or failed)."""
        extraction = self.extraction
        try:
            reply = await extraction.router.complete(
                prompt, purpose="extraction", max_tokens=max_tokens,
                counted_as="import" if job.imported else "extraction")
        except ModelWaiting as exc:
            extraction.pause.waiting(exc.reason, max(exc.retry_after or 0.0,
                                                     extraction.config.retry_wait_seconds))
            await trio.to_thread.run_sync(extraction.wait, job, exc.reason, exc.retry_after,
                                          exc.route)
            return None
        except ModelFailed as exc:
            extraction.pause.answered()
            logger.warning("extraction of %s failed: %s", job.job_id, exc.reason)
            await trio.to_thread.run_sync(extraction.fail, job, exc.reason, exc.route)
            return None
        extraction.pause.answered()
        return reply


def _summed(counts: list[dict[str, Any] | None]) -> dict[str, Any] | None:
    known = [c for c in counts if c]
    if len(known) <= 1:
        return known[0] if known else None
    keys = {k for c in known for k, v in c.items() if isinstance(v, int)}
    return {k: sum(int(c.get(k) or 0) for c in known) for k in keys}
