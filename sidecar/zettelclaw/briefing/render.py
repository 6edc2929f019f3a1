"""The block's lines: the sections as Markdown, within a line budget.

Sections in docs/05-recall.md's order (Active, Recent Decisions, Pending, Open Questions, Stale,
Contradictions), a ``## `` heading each, a blank line between them; empty sections are left out.
Every item is one line: text is put on one line, clipped, and a marker-like ``<!--``/``-->`` in
it is escaped so no entry can end the block early.

When everything does not fit, every section keeps an equal share of the room (a short section
keeps all of it, the rest goes to the longer ones, earlier sections first), and the last line
says how many items were left out and how to find them. Dates are days in the briefing's zone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo

from zettelclaw.briefing.sections import DAY, Sections
from zettelclaw.briefing.summaries import Flag, ModelStep
from zettelclaw.index.digest import Item
from zettelclaw.scrub import scrub

ORDER = ("active", "decisions", "pending", "questions", "stale", "contradictions")
TITLES = {"active": "Active", "decisions": "Recent Decisions", "pending": "Pending",
          "questions": "Open Questions", "stale": "Stale", "contradictions": "Contradictions"}
LABELS = {"active": "active subject", "decisions": "recent decision", "pending": "open task",
          "questions": "open question", "stale": "stale subject",
          "contradictions": "possible contradiction"}  # singular: "s" is added for more
ITEM_CHARS = 300
QUOTE_CHARS = 140
EMPTY = "Nothing recent in the log, and no open tasks or questions."


@dataclass(frozen=True)
class Rendered:
    lines: tuple[str, ...]
    cut: bool
    shown: dict[str, int]  # items shown per section
    total: dict[str, int]  # items per section in all


def clean(text: str, limit: int = ITEM_CHARS) -> str:
    text = " ".join(text.split()).replace("<!--", "&lt;!--").replace("-->", "--&gt;")
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def day(ts: float, zone: tzinfo) -> str:
    return datetime.fromtimestamp(ts, zone).date().isoformat()


def _about(item: Item) -> str:
    return f" [{item.subject}]" if item.subject else ""


def _flag(flag: Flag, zone: tzinfo) -> str:
    return (f'- {flag.slug}: "{clean(flag.older.content, QUOTE_CHARS)}" '
            f"({day(flag.older.ts, zone)}, {flag.older.id}) may conflict with "
            f'"{clean(flag.newer.content, QUOTE_CHARS)}" ({day(flag.newer.ts, zone)}, '
            f"{flag.newer.id})")


def _fork(shown: Item, other: Item, zone: tzinfo) -> str:
    return (f'- corrected twice while apart: "{clean(shown.content, QUOTE_CHARS)}" '
            f"({day(shown.ts, zone)}, {shown.id}, shown) and "
            f'"{clean(other.content, QUOTE_CHARS)}" ({day(other.ts, zone)}, {other.id}); '
            "replace it to settle which holds")


def items(sections: Sections, step: ModelStep, zone: tzinfo
          ) -> dict[str, tuple[list[str], int]]:
    """Each section's item lines (as many as were fetched) and its total count."""
    return {
        "active": ([f"- {a.slug} — {clean(step.summaries.get(a.slug) or a.latest.content)}"
                    for a in sections.active], len(sections.active)),
        "decisions": ([f"- {day(d.ts, zone)}: {clean(d.content)}{_about(d)}"
                       for d in sections.decisions.items], sections.decisions.total),
        "pending": ([f"- {clean(t.content)}{_about(t)}" for t in sections.pending.items],
                    sections.pending.total),
        "questions": ([f"- {clean(q.content)}{_about(q)}" for q in sections.questions.items],
                      sections.questions.total),
        "stale": ([f"- {s.slug} — last entry {day(s.last.ts, zone)}, mentioned again "
                   f"{day(s.mention.ts, zone)}" for s in sections.stale], len(sections.stale)),
        "contradictions": ([*(_fork(shown, other, zone) for shown, other in sections.forks),
                            *(_flag(f, zone) for f in step.flags)],
                           len(sections.forks) + len(step.flags)),
    }


def render(sections: Sections, step: ModelStep, zone: tzinfo, budget: int,
           decision_days: int) -> Rendered:
    """The block's lines, at most ``budget`` of them."""
    found = items(sections, step, zone)
    total = {key: found[key][1] for key in ORDER}
    keys = [key for key in ORDER if found[key][0]]
    if not keys:
        return Rendered((EMPTY,), False, dict.fromkeys(ORDER, 0), total)
    counts = [len(found[key][0]) for key in keys]
    full = sum(counts) + 2 * len(keys) - 1
    untold = any(total[key] > len(found[key][0]) for key in keys)
    if full <= budget and not untold:
        shown = dict(zip(keys, counts, strict=True))
    else:
        # the note takes two lines (a blank one, then itself); each section a heading and a
        # blank line after the one before; drop whole sections from the end if even one item
        # each would not fit
        while keys and budget - 2 - (2 * len(keys) - 1) < len(keys):
            keys.pop()
        room = budget - 2 - (2 * len(keys) - 1)
        shown = dict(zip(keys, share([len(found[k][0]) for k in keys], room), strict=True))
    lines: list[str] = []
    for key in keys:
        if lines:
            lines.append("")
        lines.append(f"## {TITLES[key]}")
        lines += found[key][0][: shown[key]]
    shown = {key: shown.get(key, 0) for key in ORDER}
    cut = any(shown[key] < total[key] for key in ORDER)
    if cut:
        lines += ["", left_out(shown, total, day(sections.now - decision_days * DAY, zone))]
    # a line quotes an entry or a model's summary of several: whatever reached them (a line
    # written into the log by hand, a summary echoing one) no secret reaches MEMORY.md
    return Rendered(tuple(scrub(line) for line in lines), cut, shown, total)


def share(counts: Sequence[int], room: int) -> list[int]:
    """Split ``room`` lines among sections of ``counts`` items: an equal level for all, a
    section under it keeps all its items, the lines left over go to the earliest sections."""
    if sum(counts) <= room:
        return list(counts)
    level = 0
    while sum(min(c, level + 1) for c in counts) <= room:
        level += 1
    shown = [min(c, level) for c in counts]
    spare = room - sum(shown)
    for i, count in enumerate(counts):
        if spare and count > shown[i]:
            shown[i] += 1
            spare -= 1
    return shown


def left_out(shown: dict[str, int], total: dict[str, int], decisions_since: str) -> str:
    """The last line of a cut block: how much is missing and how to search for it."""
    parts, hints = [], []
    for key in ORDER:
        missing = total[key] - shown[key]
        if missing <= 0:
            continue
        parts.append(f"{missing} {LABELS[key]}{'' if missing == 1 else 's'}")
        hint = {"active": "subject=SLUG", "stale": "subject=SLUG",
                "decisions": f"type=decision since={decisions_since}",
                "pending": "type=task status=open", "questions": "type=question",
                "contradictions": None}[key]
        if hint and hint not in hints:
            hints.append(hint)
    text = f"_Not shown: {', '.join(parts)}."
    if hints:
        text += f" Find them with memory_search ({'; '.join(hints)}) or `zettelclaw search`."
    return text + "_"
