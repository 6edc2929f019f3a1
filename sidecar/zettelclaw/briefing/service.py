"""One briefing run (``briefing.generate``) and the ``briefing`` object of ``status``.

A run: bring the index up to date; compute the sections (no model); ask the model for summaries
and contradiction flags when there is a key; then, under the data lock, read MEMORY.md, render
the block within its budget, and replace the file atomically only when the block changed. A
run that writes (not a dry run) records itself in state.json, failures included.

The block's budget is ``briefing.maxLines``, lowered so that the whole file fits in the 200 lines
OpenClaw loads (never below 10 lines); ``status`` warns when MEMORY.md is longer than 200.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import trio

from zettelclaw import lock, schedule
from zettelclaw.briefing import record, render, sections, summaries
from zettelclaw.config import Config
from zettelclaw.errors import ZettelclawError
from zettelclaw.home import Home
from zettelclaw.index.syncer import INDEX_WAIT_SECONDS, Syncer
from zettelclaw.llm.route import Router
from zettelclaw.state import LastResult
from zettelclaw.workspace import markers, memory_md

logger = logging.getLogger(__name__)

LOADED_LINES = 200  # OpenClaw loads the first 200 lines of MEMORY.md
MIN_BLOCK_LINES = 10


@dataclass(frozen=True)
class Run:
    target: memory_md.Target
    found: sections.Sections
    step: summaries.ModelStep
    dry_run: bool
    trigger: str  # manual, start, schedule
    now: float


@dataclass(frozen=True, slots=True)
class SectionCount:
    shown: int
    total: int


@dataclass(frozen=True, slots=True)
class BriefingRun:
    """What one run did: the block, whether MEMORY.md changed and was written, each section's
    items shown of all, what the model added, the warnings."""

    path: str
    dry_run: bool
    changed: bool
    written: bool
    block: str
    lines: int
    cut: bool
    sections: dict[str, SectionCount]
    model: summaries.ModelReport
    memory_md_lines: int
    warnings: list[str]


@dataclass(frozen=True, slots=True)
class BriefingStatus:
    """``status``'s ``briefing``: the schedule, the last and next runs, MEMORY.md's length."""

    schedule: str
    timezone: str
    last_run: str | None
    last_result: LastResult | None  # as state.json keeps it
    next_run: str | None
    model: str | None
    memory_md: str | None
    memory_md_lines: int | None
    warnings: list[str]


class Briefing:
    def __init__(self, home: Home, workspace: Path, config: Config, syncer: Syncer,
                 router: Router, *, clock: Callable[[], float] = time.time) -> None:
        self.home = home
        self.workspace = workspace
        self.router = router
        self.config = config
        self.syncer = syncer
        self.freshness = syncer.freshness
        self.clock = clock
        self.zone = schedule.zone(config.cron.timezone)
        self.cron = schedule.schedule(config.cron.schedule)
        self._running = trio.Lock()  # one run at a time in this process

    def stamp(self, ts: float) -> str:
        return datetime.fromtimestamp(ts, self.zone).isoformat(timespec="seconds")

    # -- a run ---------------------------------------------------------------------------------

    async def generate(self, workspace_dir: str | None = None, dry_run: bool = False, *,
                       trigger: str = "manual", wait: float = INDEX_WAIT_SECONDS
                       ) -> BriefingRun:
        async with self._running:
            now = self.clock()
            try:
                workspace = memory_md.workspace_dir(workspace_dir, self.workspace)
                target = await trio.to_thread.run_sync(memory_md.target, workspace)
                await self.syncer.fresh(wait)
                found = await trio.to_thread.run_sync(self._sections, now)
                step = await summaries.run(found, self.config, self.zone, self.router)
                run = Run(target, found, step, dry_run, trigger, now)
                return await trio.to_thread.run_sync(self._finish, run)
            except (ZettelclawError, OSError) as exc:
                if not dry_run:
                    message = exc.message if isinstance(exc, ZettelclawError) else str(exc)
                    await trio.to_thread.run_sync(self._record, now, LastResult(
                        ok=False, trigger=trigger, error=message))
                raise

    def _sections(self, now: float) -> sections.Sections:
        displays = {slug: s.display for slug, s in self.freshness.subjects.load().items()}
        with self.freshness.index.read() as conn:
            return sections.compute(conn, now, self.config.briefing, displays,
                                    candidates=bool(self.config.extraction.api_key))

    def budget(self, outside_lines: int) -> int:
        """The block's lines: maxLines, or fewer so that MEMORY.md fits in what is loaded."""
        return min(self.config.briefing.max_lines,
                   max(MIN_BLOCK_LINES, LOADED_LINES - outside_lines))

    def _finish(self, run: Run) -> BriefingRun:
        target, step, dry_run = run.target, run.step, run.dry_run
        with lock.exclusive(self.home.lock):
            current = memory_md.read(target)
            outside = markers.count_lines(markers.splice(current.text, []))
            budget = self.budget(outside)
            block = render.render(run.found, step, self.zone, budget,
                                  self.config.briefing.decision_window)
            text = markers.splice(current.text, block.lines)
            changed = text != current.text
            written = changed and not dry_run
            if written:
                memory_md.write(target, text, current.mode)
            total_lines = markers.count_lines(text)
            warnings = []
            if budget < self.config.briefing.max_lines:
                warnings.append(f"the block was held to {budget} lines (briefing.maxLines is "
                                f"{self.config.briefing.max_lines}) so that MEMORY.md fits in "
                                f"the {LOADED_LINES} lines OpenClaw loads")
            if total_lines > LOADED_LINES:
                warnings.append(too_long(total_lines))
            result = BriefingRun(
                path=str(target.path), dry_run=dry_run, changed=changed, written=written,
                block=markers.block_text(block.lines), lines=len(block.lines), cut=block.cut,
                sections={key: SectionCount(block.shown[key], block.total[key])
                          for key in render.ORDER},
                model=step.report(), memory_md_lines=total_lines, warnings=warnings)
            if not dry_run:
                record.ran_locked(self.home, self.stamp(run.now), LastResult(
                    ok=True, trigger=run.trigger, path=str(target.path), changed=changed,
                    lines=len(block.lines), cut=block.cut, model=step.record()))
        for warning in warnings:
            logger.warning("briefing: %s", warning)
        return result

    def _record(self, now: float, result: LastResult) -> None:
        with lock.exclusive(self.home.lock):
            record.ran_locked(self.home, self.stamp(now), result)

    def record_next(self, when: datetime | None) -> None:
        with lock.exclusive(self.home.lock):
            record.next_locked(self.home, None if when is None else self.stamp(when.timestamp()))

    # -- status --------------------------------------------------------------------------------

    def next_run(self) -> datetime | None:
        if self.cron is None:
            return None
        return self.cron.next_after(datetime.fromtimestamp(self.clock(), UTC), self.zone)

    def status(self) -> BriefingStatus:
        saved = record.load(self.home)
        upcoming = self.next_run()
        lines: int | None = None
        path: str | None = None
        try:
            target = memory_md.target(self.workspace)
            path = str(target.path)
            current = memory_md.read(target)
            lines = markers.count_lines(current.text) if current.exists else None
        except (ZettelclawError, OSError):
            pass
        warnings = []
        if lines is not None and lines > LOADED_LINES:
            warnings.append(too_long(lines))
        last = saved.last_result
        if last is not None and not last.ok:
            warnings.append(f"the last briefing failed: {last.error}")
        return BriefingStatus(
            schedule=self.config.cron.schedule, timezone=schedule.zone_name(self.zone),
            last_run=saved.last_run, last_result=last,
            next_run=None if upcoming is None else self.stamp(upcoming.timestamp()),
            model=self._model(), memory_md=path, memory_md_lines=lines, warnings=warnings)


    def _model(self) -> str | None:
        """The model the next run would ask, or None (the block from the log alone)."""
        route = self.router.choose().route
        if route == "anthropic":
            return summaries.model_name(self.config).removeprefix("anthropic/")
        if route == "host":
            return "host: " + (self.config.extraction.host_model or "the agent's own model")
        if route == "local":
            return "local: " + (self.config.extraction.local_model or "the server's default")
        return None


def too_long(lines: int) -> str:
    return (f"MEMORY.md is {lines} lines; OpenClaw loads only the first {LOADED_LINES}: "
            "shorten the part outside the briefing markers")


async def rewrite_block(workspace: Path, briefing: Briefing) -> bool:
    """Write the MEMORY.md block again when the workspace has one (what it showed may be gone:
    after a hide, an unhide, a struck vault line); True when it was written."""
    def has_block() -> bool:
        try:
            target = memory_md.target(workspace)
            return "BEGIN GENERATED BRIEFING" in target.path.read_text(encoding="utf-8",
                                                                       errors="replace")
        except Exception:
            return False

    if not await trio.to_thread.run_sync(has_block):
        return False
    result = await briefing.generate(trigger="forget")
    return result.written
