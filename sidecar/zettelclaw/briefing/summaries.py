"""The briefing's model step: a summary line per active subject, and contradiction flags.

Two calls on extraction's model route (``llm/route.py``: ``prompts/briefing.md``, then
``prompts/contradiction.md``); on the Anthropic route with ``briefing.model`` or else the
extraction model, on the host route with the host's (``extraction.hostModel``). Replies are
read defensively: one JSON object per line (a JSON array, code fences and bullets are tolerated);
a summary must name a subject that was asked about; a flag must name an older and a recent
current entry of the same subject, as listed in the prompt; at most 3 flags are kept. Anything
else is dropped. With no route (no key, no host) nothing is called; a failed call leaves its
part to the deterministic block.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import Any

from zettelclaw import prompts_loader
from zettelclaw.briefing.sections import (
    DAY,
    MODEL_SUBJECTS,
    Active,
    Candidates,
    Sections,
)
from zettelclaw.config import Config
from zettelclaw.index.digest import Item
from zettelclaw.llm.failures import ModelFailed, ModelWaiting
from zettelclaw.llm.json_objects import scan
from zettelclaw.llm.route import NO_ROUTE_AUTO, Router
from zettelclaw.state import ModelRun

logger = logging.getLogger(__name__)

LOG_ALONE = " (the block is made from the log alone)"
NO_KEY = NO_ROUTE_AUTO + LOG_ALONE  # what a run says with the default route and neither model

MAX_FLAGS = 3
CONTENT_CHARS = 400
DETAIL_CHARS = 300


@dataclass(frozen=True)
class Flag:
    slug: str
    older: Item
    newer: Item
    reason: str


@dataclass(frozen=True, slots=True)
class ModelReport:
    """Whether the model answered, how many summaries and flags it gave, why it was not asked
    (``skipped``) or what failed (``error``)."""

    used: bool
    summaries: int
    contradictions: int
    error: str | None = None
    skipped: str | None = None


@dataclass(frozen=True)
class ModelStep:
    summaries: dict[str, str] = field(default_factory=dict)
    flags: tuple[Flag, ...] = ()
    used: bool = False  # the model answered at least one call
    error: str | None = None
    skipped: str | None = None

    def report(self) -> ModelReport:
        return ModelReport(used=self.used, summaries=len(self.summaries),
                           contradictions=len(self.flags), error=self.error,
                           skipped=self.skipped)

    def record(self) -> ModelRun:
        """As state.json keeps it."""
        return ModelRun(used=self.used, summaries=len(self.summaries),
                        contradictions=len(self.flags), error=self.error, skipped=self.skipped)


def model_name(config: Config) -> str:
    return config.briefing.model or config.extraction.model


async def run(sections: Sections, config: Config, zone: tzinfo, router: Router) -> ModelStep:
    """Ask the model for what it adds, on the route extraction uses (``llm/route.py``);
    never raises for a model problem."""
    choice = router.choose()
    if choice.route is None:
        return ModelStep(skipped=choice.reason + LOG_ALONE)
    model = model_name(config)
    summaries: dict[str, str] = {}
    flags: tuple[Flag, ...] = ()
    errors: list[str] = []
    used = False
    asked = sections.active[:MODEL_SUBJECTS]
    steps: list[tuple[str, str | None]] = [
        ("summaries", summary_prompt(sections, zone, asked, config.briefing.active_window)),
        ("contradictions", contradiction_prompt(sections, zone, config.briefing.active_window)),
    ]
    for name, prompt in steps:
        if prompt is None:
            continue
        try:
            reply = await _ask(router, prompt, model)
        except ModelWaiting as exc:  # no point in a second call now
            errors.append(f"{name}: {exc.reason}")
            break
        except ModelFailed as exc:
            errors.append(f"{name}: {exc.reason}")
            continue
        used = True
        if name == "summaries":
            summaries = parse_summaries(reply, {a.slug for a in asked})
            if not summaries:
                errors.append("summaries: the model's reply had no usable line")
        else:
            try:
                flags = parse_flags(reply, sections.candidates)
            except ValueError as exc:
                errors.append(f"contradictions: {exc}")
    if errors:
        logger.warning("briefing model step: %s", "; ".join(errors))
    return ModelStep(summaries, flags, used, "; ".join(errors) or None)


async def _ask(router: Router, prompt: str, model: str) -> str:
    try:
        return (await router.complete(prompt, purpose="briefing", anthropic_model=model)).text
    except (ModelWaiting, ModelFailed):
        raise
    except Exception as exc:  # an SDK surprise must not break the briefing
        logger.exception("briefing: the model call failed unexpectedly")
        raise ModelFailed(f"unexpected error: {type(exc).__name__}: {exc}") from None


# -- prompts ---------------------------------------------------------------------------------


def _day(item: Item, zone: tzinfo) -> str:
    return datetime.fromtimestamp(item.ts, zone).date().isoformat()


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def entry_line(item: Item, zone: tzinfo) -> str:
    kind = item.type + (f" [{item.status}]" if item.status else "")
    line = f"- id {item.id} · {_day(item, zone)} · {kind}: {_clip(item.content, CONTENT_CHARS)}"
    if item.detail:
        line += f" (detail: {_clip(item.detail, DETAIL_CHARS)})"
    return line


def summary_prompt(sections: Sections, zone: tzinfo, asked: Sequence[Active],
                   days: int) -> str | None:
    if not asked:
        return None
    blocks = []
    for subject in asked:
        lines = [f"### {subject.slug} ({subject.display})"]
        lines += [entry_line(item, zone) for item in subject.recent]
        blocks.append("\n".join(lines))
    return prompts_loader.fill(prompts_loader.load("briefing"), {
        "date": datetime.fromtimestamp(sections.now, zone).date().isoformat(),
        "days": str(days),
        "subjects": "\n\n".join(blocks),
    })


def contradiction_prompt(sections: Sections, zone: tzinfo, days: int) -> str | None:
    if not sections.candidates:
        return None
    since = sections.now - days * DAY
    blocks = []
    for group in sections.candidates:
        lines = [f"### {group.slug}", "Older:"]
        lines += [entry_line(item, zone) for item in group.older]
        lines.append("Recent:")
        lines += [entry_line(item, zone) for item in group.recent]
        blocks.append("\n".join(lines))
    return prompts_loader.fill(prompts_loader.load("contradiction"), {
        "since": datetime.fromtimestamp(since, zone).date().isoformat(),
        "subjects": "\n\n".join(blocks),
    })


# -- replies ---------------------------------------------------------------------------------


def objects(reply: str) -> list[dict[str, Any]]:
    """The JSON objects in a reply (``llm/json_objects.py``)."""
    return scan(reply).objects


def parse_summaries(reply: str, asked: Iterable[str]) -> dict[str, str]:
    wanted = set(asked)
    summaries: dict[str, str] = {}
    for value in objects(reply):
        slug, summary = value.get("subject"), value.get("summary")
        if (isinstance(slug, str) and slug in wanted and slug not in summaries
                and isinstance(summary, str) and summary.strip()):
            summaries[slug] = " ".join(summary.split())
    return summaries


def parse_flags(reply: str, candidates: Sequence[Candidates]) -> tuple[Flag, ...]:
    """Valid flags, at most 3; ValueError when the reply is neither flags nor NONE."""
    found = objects(reply)
    if not found:
        if reply.strip().strip(".`").upper() in ("NONE", "", "[]"):
            return ()
        raise ValueError("the model's reply had no usable line")
    older = {item.id: (group.slug, item) for group in candidates for item in group.older}
    recent = {item.id: (group.slug, item) for group in candidates for item in group.recent}
    flags: list[Flag] = []
    dropped = 0
    for value in found:
        old_id, new_id = value.get("older"), value.get("newer")
        if not (isinstance(old_id, str) and isinstance(new_id, str)
                and old_id in older and new_id in recent
                and older[old_id][0] == recent[new_id][0]
                and all(f.older.id != old_id for f in flags)):
            dropped += 1
            continue
        if len(flags) < MAX_FLAGS:
            reason = value.get("reason")
            flags.append(Flag(older[old_id][0], older[old_id][1], recent[new_id][1],
                              " ".join(reason.split()) if isinstance(reason, str) else ""))
        else:
            dropped += 1
    if dropped:
        logger.info("briefing: %d contradiction flag(s) dropped (unknown ids, mismatched "
                    "subjects, repeats, or over %d)", dropped, MAX_FLAGS)
    return tuple(flags)
