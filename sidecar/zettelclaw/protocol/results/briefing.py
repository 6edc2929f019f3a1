"""``briefing.generate``'s answer, and the briefing's part of ``status``."""

from __future__ import annotations

from zettelclaw.protocol.results.base import Result


class SectionCount(Result):
    shown: int
    total: int


class BriefingModel(Result):
    """Whether the model answered (``used``), what it gave, why it was not asked (``skipped``)
    or what failed (``error``)."""

    used: bool
    summaries: int
    contradictions: int
    error: str | None = None
    skipped: str | None = None


class Briefing(Result):
    path: str
    dry_run: bool
    changed: bool
    written: bool
    block: str
    lines: int
    cut: bool
    sections: dict[str, SectionCount]
    model: BriefingModel
    memory_md_lines: int
    warnings: list[str]


class BriefingLastResult(Result):
    """The last run as state.json keeps it: what it wrote, or (``ok`` false) what failed."""

    ok: bool
    trigger: str | None = None
    path: str | None = None
    changed: bool | None = None
    lines: int | None = None
    cut: bool | None = None
    model: BriefingModel | None = None
    error: str | None = None


class BriefingStatus(Result):
    schedule: str
    timezone: str
    last_run: str | None
    last_result: BriefingLastResult | None
    next_run: str | None
    model: str | None
    memory_md: str | None
    memory_md_lines: int | None
    warnings: list[str]
