"""What the briefing says, computed from the index with no model (docs/05-recall.md).

Only current entries count: a replaced entry never appears, and never makes a subject active.
Windows are measured back from ``now`` in whole days of 24 hours:

- **Active**: subjects with entries in the last ``activeWindow`` days, most recently active
  first, each with its newest entry (a handoff's content when that is the newest).
- **Recent Decisions**: decisions of the last ``decisionWindow`` days, newest first.
- **Pending**: open tasks, newest first, however old.
- **Open Questions**: questions, newest first, however old (a question that was answered has
  been replaced, so it is not current).
- **Stale**: registered subjects whose newest entry is older than ``staleThreshold`` days but
  whose slug or display name appears in the text (content or detail) of an entry of the last 7
  days about something else.
- **Forks** (Contradictions, no model needed): an entry corrected twice while apart (two
  machines, docs/14-sync.md): the correction shown and the one it won over, until the shown
  one is replaced.
- **Contradiction candidates** (for the model): per active subject (the 30 most recently active),
  its older decisions and facts (before the active window) and its recent ones.

The entries are read through ``index/digest.py``; nothing here knows the index's SQL.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass

from zettelclaw.config import BriefingConfig
from zettelclaw.index import digest
from zettelclaw.index.digest import Item

DAY = 86_400.0
REFERENCE_DAYS = 7  # Stale: "referenced in the last 7 days" (docs/05-recall.md)
MAX_ITEMS = 200  # more than any block can show (maxLines is at most 190)
MODEL_SUBJECTS = 30  # active subjects shown to the model (the most recently active)
MAX_RECENT_PER_SUBJECT = 12  # entries of an active subject shown to the model
MAX_CANDIDATES = 12  # older and recent decisions/facts per subject, for the contradiction check
MAX_REFERENCE_ENTRIES = 5000
MIN_NAME_CHARS = 3  # shorter slugs and names match too much ordinary text to mean a reference

@dataclass(frozen=True)
class Active:
    slug: str
    display: str
    latest: Item
    entries: int  # current entries in the window
    recent: tuple[Item, ...]  # its newest entries in the window, newest first


@dataclass(frozen=True)
class Stale:
    slug: str
    last: Item  # its newest entry
    mention: Item  # the newest recent entry that names it


@dataclass(frozen=True)
class Candidates:
    slug: str
    older: tuple[Item, ...]  # decisions and facts before the active window, newest first
    recent: tuple[Item, ...]  # decisions and facts in the active window, newest first


@dataclass(frozen=True)
class Part:
    """A section's items (at most MAX_ITEMS) and how many there are in all."""

    items: tuple[Item, ...] = ()
    total: int = 0


@dataclass(frozen=True)
class Sections:
    now: float
    active: tuple[Active, ...] = ()
    decisions: Part = Part()
    pending: Part = Part()
    questions: Part = Part()
    stale: tuple[Stale, ...] = ()
    candidates: tuple[Candidates, ...] = ()
    #: corrections of one entry made apart (two machines): (the one shown, the other)
    forks: tuple[tuple[Item, Item], ...] = ()


def compute(conn: sqlite3.Connection, now: float, config: BriefingConfig,
            displays: Mapping[str, str], candidates: bool = True) -> Sections:
    """Every section as of ``now`` (Unix seconds). ``displays``: the registry's subjects, slug
    -> display name. ``candidates``: also those for the contradiction check (only the model
    uses them)."""
    active_since = now - config.active_window * DAY
    active = _active(conn, active_since, displays)
    return Sections(
        now=now,
        active=active,
        decisions=_part(conn, "decision", since=now - config.decision_window * DAY),
        pending=_part(conn, "task", status="open"),
        questions=_part(conn, "question"),
        stale=_stale(conn, now, now - config.stale_threshold * DAY, displays,
                     {a.slug for a in active}),
        candidates=tuple(c for c in (_candidates(conn, a.slug, active_since)
                                     for a in active[:MODEL_SUBJECTS] if candidates)
                         if c.older and c.recent),
        forks=digest.forks(conn, MAX_ITEMS),
    )


def _part(conn: sqlite3.Connection, kind: str, *, since: float | None = None,
          status: str | None = None) -> Part:
    """Current entries of type ``kind``, newest first: at most MAX_ITEMS, and the total."""
    items, total = digest.of_type(conn, kind, MAX_ITEMS, since=since, status=status)
    return Part(items, total)


def _active(conn: sqlite3.Connection, since: float,
            displays: Mapping[str, str]) -> tuple[Active, ...]:
    by_subject: dict[str, list[Item]] = {}
    for item in digest.with_subject_since(conn, since):  # newest first: a subject's first
        assert item.subject is not None                  # item is its latest entry
        by_subject.setdefault(item.subject, []).append(item)
    return tuple(
        Active(slug, displays.get(slug, slug), items[0], len(items),
               tuple(items[:MAX_RECENT_PER_SUBJECT]))
        for slug, items in by_subject.items())


def _stale(conn: sqlite3.Connection, now: float, before: float, displays: Mapping[str, str],
           active: set[str]) -> tuple[Stale, ...]:
    """Registered subjects named in recent text whose newest entry is old. Read from the time
    index: the entries of the last days are few, where every subject's newest entry is not."""
    recent = digest.since(conn, now - REFERENCE_DAYS * DAY, MAX_REFERENCE_ENTRIES)
    texts = [(item, f"{item.content}\n{item.detail or ''}".lower()) for item in recent]
    everything = "\n".join(text for _, text in texts)
    fresh = digest.subjects_since(conn, before)
    found = []
    for slug, display in displays.items():
        if slug in active or slug in fresh:
            continue
        pattern = _names_pattern(slug, display)
        if pattern is None or not pattern.search(everything):
            continue
        mention = next((item for item, text in texts
                        if item.subject != slug and pattern.search(text)), None)
        last = digest.newest_of_subject(conn, slug)
        if mention is not None and last is not None:  # None: registered, never used
            found.append(Stale(slug, last, mention))
    found.sort(key=lambda s: (-s.mention.ts, s.slug))
    return tuple(found)


def _names_pattern(slug: str, display: str | None) -> re.Pattern[str] | None:
    """The slug or the display name as whole words, any case ("whisper-stt", "Whisper STT")."""
    names = {n.lower() for n in (slug, slug.replace("-", " "), display or "")
             if len(n.strip()) >= MIN_NAME_CHARS}
    if not names:
        return None
    alternatives = "|".join(r"\s+".join(map(re.escape, n.split())) for n in sorted(names))
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])")


def _candidates(conn: sqlite3.Connection, slug: str, since: float) -> Candidates:
    return Candidates(slug,
                      older=digest.decisions_and_facts(conn, slug, before=since,
                                                       limit=MAX_CANDIDATES),
                      recent=digest.decisions_and_facts(conn, slug, since=since,
                                                        limit=MAX_CANDIDATES))
