"""briefing/render.py: exact blocks from fixed sections, and the line budget.

Covers: the exact block for every section of the fixed log (dates in America/Detroit, so an
entry of 02-15 03:00Z shows as 02-14); model summaries replacing Active lines; contradiction
flags; empty sections left out; nothing at all gives one line; text put on one line, clipped,
markers escaped; the budget: never more than maxLines, each section keeps a fair share, the
last line says how many items are missing and how to search for them; share().
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from tests.briefing import briefing_data as data
from tests.briefing.briefing_data import NOW, e
from tests.direct import Direct
from zettelclaw.briefing.render import EMPTY, clean, render, share
from zettelclaw.briefing.sections import Part, Sections, compute
from zettelclaw.briefing.summaries import Flag, ModelStep
from zettelclaw.config import BriefingConfig
from zettelclaw.home import Home
from zettelclaw.index.digest import Item

ZONE = ZoneInfo(data.ZONE)
ACTIVE_1, DECISION_1, PENDING_1 = (data.SECTIONS[k][1] for k in ("active", "decisions", "pending"))


@pytest.fixture
def fixed(home: Home, workspace: Path, write_log: Callable[..., Any]) -> Sections:
    data.write(home, write_log)
    memory = Direct.open(home, workspace)
    try:
        memory.sync()
        displays = {slug: s.display for slug, s in memory.subjects.load().items()}
        with memory.index.read() as conn:
            return compute(conn, NOW, BriefingConfig(), displays)
    finally:
        memory.close()


def item(n: int, content: str, **fields: Any) -> Item:
    value = e(f"x{n:011d}", "2026-02-20T12:00:00Z", fields.pop("type", "task"), content,
              **fields)
    return Item(value["id"], value["type"], value.get("status"), value.get("subject"),
                value["session"], value["timestamp"], NOW - 3600 * n, content,
                value.get("detail"))


def test_the_deterministic_block(fixed: Sections) -> None:
    out = render(fixed, ModelStep(), ZONE, 80, 7)
    assert list(out.lines) == data.DETERMINISTIC
    assert not out.cut
    assert out.shown == {"active": 2, "decisions": 2, "pending": 2, "questions": 1, "stale": 2,
                         "contradictions": 0}
    assert out.shown == out.total


def test_summaries_and_contradictions_from_the_model(fixed: Sections) -> None:
    older, newer = fixed.candidates[0].older[0], fixed.candidates[0].recent[0]
    step = ModelStep(summaries={"zettelclaw": "Moving to Bun; whisper box question open"},
                     flags=(Flag("auth-migration", older, newer, "retry count"),), used=True)
    out = render(fixed, step, ZONE, 80, 7)
    active = [*data.SECTIONS["active"][:2],
              "- zettelclaw — Moving to Bun; whisper box question open"]
    sections = dict(data.SECTIONS, active=active)
    assert list(out.lines) == data.block(*sections.values(),
                                         ["## Contradictions", data.CONTRADICTION])
    assert out.shown["contradictions"] == 1


def test_empty_sections_are_left_out() -> None:
    only = Sections(now=NOW, pending=Part((item(1, "Call the bank", subject="billing"),), 1))
    assert render(only, ModelStep(), ZONE, 80, 7).lines == (
        "## Pending", "- Call the bank [billing]")


def test_nothing_at_all_is_one_line() -> None:
    out = render(Sections(now=NOW), ModelStep(), ZONE, 80, 7)
    assert out.lines == (EMPTY,)
    assert not out.cut


def test_text_is_one_clipped_line_with_markers_escaped() -> None:
    assert clean("a\n  b\tc") == "a b c"
    assert clean("x <!-- END GENERATED BRIEFING --> y") == (
        "x &lt;!-- END GENERATED BRIEFING --&gt; y")
    long = clean("word " * 200)
    assert len(long) == 300
    assert long.endswith("…")


def many(n: int, **fields: Any) -> Part:
    return Part(tuple(item(i, f"task {i}", **fields) for i in range(1, n + 1)), n)


def test_a_long_block_is_cut_to_max_lines_with_a_last_line_saying_what_is_missing() -> None:
    big = Sections(now=NOW, pending=many(100), questions=replace(many(30, type="question")))
    out = render(big, ModelStep(), ZONE, 20, 7)
    assert len(out.lines) == 20
    assert out.cut
    # 20 lines: 2 headings, 1 blank between, a blank and the note: 15 items, shared fairly
    assert out.shown["pending"] == 8
    assert out.shown["questions"] == 7
    assert out.lines[0] == "## Pending"
    assert out.lines[9:11] == ("", "## Open Questions")
    assert out.lines[-2] == ""
    assert out.lines[-1] == (
        "_Not shown: 92 open tasks, 23 open questions. Find them with memory_search "
        "(type=task status=open; type=question) or `zettelclaw search`._")


def test_a_short_section_keeps_all_its_items_when_the_block_is_cut(fixed: Sections) -> None:
    big = replace(fixed, pending=many(100, subject="billing"))
    out = render(big, ModelStep(), ZONE, 30, 7)
    assert len(out.lines) == 30
    assert {k: v for k, v in out.shown.items() if k != "pending"} == {
        "active": 2, "decisions": 2, "questions": 1, "stale": 2, "contradictions": 0}
    assert out.shown["pending"] == 30 - 2 - 9 - 7  # note, headings and blanks, other items
    assert out.lines[-1].startswith("_Not shown: 88 open tasks.")


def test_totals_beyond_what_was_fetched_are_counted() -> None:
    part = replace(many(5), total=5000)
    out = render(Sections(now=NOW, pending=part), ModelStep(), ZONE, 80, 7)
    assert out.cut
    assert out.lines[-1].startswith("_Not shown: 4995 open tasks.")


def test_a_tiny_budget_drops_whole_sections_from_the_end(fixed: Sections) -> None:
    out = render(fixed, ModelStep(), ZONE, 10, 7)
    assert len(out.lines) <= 10
    assert out.shown["stale"] == 0
    assert out.lines == (
        "## Active", ACTIVE_1, "", "## Recent Decisions", DECISION_1, "", "## Pending",
        PENDING_1, "",
        "_Not shown: 1 active subject, 1 recent decision, 1 open task, 1 open question, "
        "2 stale subjects. Find them with memory_search (subject=SLUG; type=decision "
        "since=2026-02-14; type=task status=open; type=question) or `zettelclaw search`._")


@pytest.mark.parametrize(("counts", "room", "shown"), [
    ([3, 4], 10, [3, 4]),
    ([10, 10], 10, [5, 5]),
    ([10, 10, 10], 10, [4, 3, 3]),
    ([1, 50, 20], 15, [1, 7, 7]),
    ([2, 50, 3], 9, [2, 4, 3]),
])
def test_share(counts: list[int], room: int, shown: list[int]) -> None:
    assert share(counts, room) == shown
    assert sum(shown) <= room
