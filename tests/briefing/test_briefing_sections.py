"""briefing/sections.py: every section from a fixed log and a fixed clock, with no model.

Covers: Active (subjects of the last activeWindow days, most recent first, each with its newest
current entry, a handoff included; replaced entries never count); Recent Decisions (the
decisionWindow, newest first, replaced ones left out); Pending (open tasks of any age, done ones
left out); Open Questions (current questions only: one answered by a replacement is gone);
Stale (old subjects named, by slug or display name, in the text of another recent entry; not
those named nowhere, not a subject's own entries, not partial words); contradiction candidates
(older and recent decisions/facts of active subjects only); the windows follow the config; a
section of more than 5000 items is still read newest first; a registered subject that is named
but has no entry, or whose last entry is recent, is not stale.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.briefing import briefing_data as data
from tests.briefing.briefing_data import NOW, e
from zettelclaw.briefing.sections import DAY, Sections, _names_pattern
from zettelclaw.config import BriefingConfig
from zettelclaw.home import Home


@pytest.fixture
def sections_of(home: Home, workspace: Path, write_log: Callable[..., Any]
                ) -> Callable[..., Sections]:
    def make(log: list[dict[str, Any]] = data.LOG, now: float = NOW,
             config: BriefingConfig | None = None) -> Sections:
        return data.compute_sections(home, workspace, write_log, log=log, now=now,
                                     config=config)

    return make


def ids(items: Any) -> list[str]:
    return [item.id for item in items]


def test_every_section_of_the_fixed_log(sections_of: Callable[..., Sections]) -> None:
    found = sections_of()
    assert [(a.slug, a.display, a.latest.id, a.entries) for a in found.active] == [
        ("auth-migration", "Auth Migration", "h00000000001", 6),
        ("zettelclaw", "Zettelclaw", "f00mention01", 2),
    ]
    assert ids(found.active[0].recent) == ["h00000000001", "q000000burst", "t000backfill",
                                           "t0000rotate1", "d000000queue", "d00000000go1"]
    assert ids(found.decisions.items) == ["d000000bun01", "d000000queue"]
    assert found.decisions.total == 2
    assert ids(found.pending.items) == ["t000backfill", "t0000000tls1"]
    assert ids(found.questions.items) == ["q000000burst"]  # q000000queue was answered
    assert [(s.slug, s.last.id, s.mention.id) for s in found.stale] == [
        ("max", "f00000000max", "f00mention01"),
        ("whisper-stt", "f0000whisper", "f00mention01"),
    ]
    assert [(c.slug, ids(c.older), ids(c.recent)) for c in found.candidates] == [
        ("auth-migration", ["d0000000sync"], ["d000000queue", "d00000000go1"]),
    ]


def test_replaced_entries_never_appear(sections_of: Callable[..., Sections]) -> None:
    found = sections_of()
    everything = [*ids(found.decisions.items), *ids(found.pending.items),
                  *ids(found.questions.items), *(a.latest.id for a in found.active),
                  *(i.id for a in found.active for i in a.recent),
                  *(i.id for c in found.candidates for i in (*c.older, *c.recent))]
    assert "d0000000yarn" not in everything
    assert "q000000queue" not in everything


def test_a_subject_whose_only_recent_entry_was_replaced_is_not_active(
        sections_of: Callable[..., Sections]) -> None:
    log = [e("f00000000001", "2026-02-20T10:00:00Z", "fact", "old wording", subject="billing"),
           e("f00000000002", "2026-02-20T11:00:00Z", "fact", "new wording",
             replaces="f00000000001")]
    found = sections_of(log)
    assert found.active == ()


def test_windows_follow_the_config(sections_of: Callable[..., Sections]) -> None:
    config = BriefingConfig(active_window=1, decision_window=30, stale_threshold=60)
    found = sections_of(config=config)
    assert [a.slug for a in found.active] == ["auth-migration"]  # only 02-20 entries
    assert ids(found.decisions.items) == ["d000000bun01", "d000000queue", "d00000000go1",
                                          "d0000000sync"]
    assert [s.slug for s in found.stale] == ["max"]  # whisper-stt's entry is only 44 days old


def test_nothing_in_the_windows(sections_of: Callable[..., Sections]) -> None:
    found = sections_of(now=NOW + 365 * DAY)
    assert found.active == ()
    assert found.decisions.total == 0
    assert found.stale == ()  # nothing recent mentions anything
    assert ids(found.pending.items) == ["t000backfill", "t0000000tls1"]  # no time limit
    assert ids(found.questions.items) == ["q000000burst"]


def test_a_stale_subject_is_not_referenced_by_its_own_entries(
        sections_of: Callable[..., Sections]) -> None:
    log = [e("f00000000001", "2026-01-01T10:00:00Z", "fact", "Billing uses Stripe",
             subject="billing"),
           e("f00000000002", "2026-02-20T10:00:00Z", "fact", "The maximum billing-cycle is 30d",
             subject="zettelclaw")]
    found = sections_of(log, config=BriefingConfig(stale_threshold=10))
    assert found.stale == ()  # "billing-cycle" is another word; "maximum" is not "max"


@pytest.mark.parametrize(("text", "named"), [
    ("Whisper STT is slow", True),
    ("the whisper-stt box", True),
    ("whisper   stt again", True),
    ("(whisper-stt)", True),
    ("whisper-stt-2 is another one", False),
    ("whisperstt", False),
    ("Whisper", False),
])
def test_names_match_whole_words_any_case(text: str, named: bool) -> None:
    pattern = _names_pattern("whisper-stt", "Whisper STT")
    assert pattern is not None
    assert bool(pattern.search(text.lower())) is named


def test_too_short_names_never_match() -> None:
    assert _names_pattern("ai", "AI") is None


def test_a_long_section_is_read_newest_first(sections_of: Callable[..., Sections]) -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    log = [e(f"t{i:011d}", (start + timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%SZ"),
             "task", f"task {i}") for i in range(5100)]  # more than SORT_AT_MOST
    found = sections_of(log)
    assert found.pending.total == 5100
    assert ids(found.pending.items) == [f"t{i:011d}" for i in range(5099, 4899, -1)]


def test_stale_needs_an_old_last_entry_and_a_registered_name(
        sections_of: Callable[..., Sections]) -> None:
    log = [e("f00000000001", "2026-01-30T10:00:00Z", "fact", "Billing moved to Stripe",
             subject="billing"),  # 22 days old: not active, not stale either
           e("f00000000002", "2026-02-20T10:00:00Z", "fact",
             "Billing and Max and whisper-stt came up", subject="zettelclaw")]
    found = sections_of(log)  # max and whisper-stt are registered but have no entry
    assert found.stale == ()
