"""What the ``import.*`` methods answer: a plan (what an apply would do and cost), an apply's
progress, an import as the list shows it."""

from __future__ import annotations

from dataclasses import dataclass

from zettelclaw.importing.items import Problem

PRICES_SOURCE = ("Anthropic's list prices (platform.claude.com/docs/about-claude/pricing, "
                 "Nov 2026); the host's model (OpenClaw's) is priced by its provider")


@dataclass(frozen=True, slots=True)
class Cost:
    model: str
    usd: float | None  # None: no known price for it


@dataclass(frozen=True, slots=True)
class Estimated:
    """The model tokens an import's conversations would take, and their price per model."""

    input_tokens: int
    output_tokens: int
    tokens: int
    route: str | None  # the route extraction would take now
    model: str | None  # the Anthropic route's model; None on the host's
    costs: list[Cost]
    prices: str  # where the prices come from


@dataclass(frozen=True, slots=True)
class Plan:
    """What ``apply`` would do, and what it would cost (``import.plan``'s answer)."""

    kind: str
    path: str
    agent: str
    conversations: int
    messages: int
    notes: int
    total: int  # items in the source, in the date range
    already_imported: int
    # conversations of the host's own sessions whose every message the sidecar already has
    # (its live extraction took them)
    already_remembered: int
    out_of_range: int
    # conversations the scope rules or the admission policy refuse, and those the intake
    # would take nothing of (someone other than the owner speaks; no user message)
    out_of_scope: int
    problems: list[Problem]
    estimate: Estimated
    budget: int  # tokens; 0: no limit
    fits: bool  # the estimate is within the budget
    resumes: str | None  # the unfinished import an apply goes on with


@dataclass(frozen=True, slots=True)
class Progress:
    """How far an apply got (``import.apply``'s answer)."""

    import_id: str | None  # None: nothing new to import, so no import was made
    state: str
    stop_reason: str | None
    total: int
    done: int
    notes: int
    conversations: int
    skipped: int
    spooled_tokens: int
    budget: int
    problems: list[Problem]


@dataclass(frozen=True, slots=True)
class Row:
    """An import as ``import.list`` shows it."""

    import_id: str
    kind: str
    path: str
    agent: str
    state: str
    created_at: str
    updated_at: str
    notes: int
    conversations: int
    spooled_tokens: int
    budget: int
