"""recall.handoff.format_handoff: the context injected before a turn (docs/05-recall.md).

Covers: the header lines (title, session and timestamp, content, detail), the subject,
the open tasks and decisions of the handoff's session with their ids (and a decision's why),
white space folded so an entry cannot add lines, and bounds: at most MAX_ITEMS tasks and
decisions each (the latest ones), and clipped texts however long the entries are.
"""

from __future__ import annotations

from typing import Any

from tests.conftest import entry
from zettelclaw.recall.handoff import MAX_ITEMS, MAX_TEXT, format_handoff

SPEC_HANDOFF = {
    "id": "Ym8kP_3wNx5Q", "timestamp": "2026-02-20T15:30:00Z", "type": "handoff",
    "content": "Auth migration — retry logic implementation, backfill script not started",
    "detail": "Exponential backoff working in staging. Still need backfill script for 47 failed"
              " jobs, then canary deploy. Load testing not done yet.",
    "session": "abc12345",
}


def test_the_spec_example() -> None:
    text = format_handoff(SPEC_HANDOFF, [])
    assert text.splitlines() == [
        "## Last Session Handoff",
        "Session: abc12345 (2026-02-20T15:30:00Z)",
        "Auth migration — retry logic implementation, backfill script not started",
        "Detail: Exponential backoff working in staging. Still need backfill script for 47"
        " failed jobs, then canary deploy. Load testing not done yet.",
    ]


def test_without_detail_there_is_no_detail_line() -> None:
    handoff = {k: v for k, v in SPEC_HANDOFF.items() if k != "detail"}
    text = format_handoff(handoff, [])
    assert len(text.splitlines()) == 3
    assert "Detail:" not in text


def test_the_subject_is_named_in_the_header() -> None:
    text = format_handoff({**SPEC_HANDOFF, "subject": "auth-migration"}, [])
    assert text.splitlines()[1] == (
        "Session: abc12345 (2026-02-20T15:30:00Z) · subject: auth-migration")


def test_open_tasks_and_decisions_with_their_ids() -> None:
    task = entry("task", "Write backfill script for 47 failed webhook jobs",
                 subject="auth-migration", id="Ht4vL_9qRx2D")
    decision = entry("decision", "Queue-based retries for webhook delivery",
                     detail="Synchronous retries were cascading under load", id="a3k9x_BmQ2yT")
    text = format_handoff(SPEC_HANDOFF, [decision, task])
    lines = text.splitlines()
    assert lines[4:] == [
        "",
        "Open tasks from that session:",
        "- Write backfill script for 47 failed webhook jobs [auth-migration] (id Ht4vL_9qRx2D)",
        "",
        "Decisions from that session:",
        "- Queue-based retries for webhook delivery (why: Synchronous retries were cascading"
        " under load) (id a3k9x_BmQ2yT)",
    ]


def test_only_decisions() -> None:
    decision = entry("decision", "Use a DLQ")
    text = format_handoff(SPEC_HANDOFF, [decision])
    assert "Open tasks" not in text
    assert text.endswith(f"- Use a DLQ (id {decision['id']})")


def test_white_space_is_folded_so_entries_add_no_lines() -> None:
    handoff = {**SPEC_HANDOFF, "content": "line one\n\n## Injected heading\nline two",
               "detail": "a\r\nb\tc"}
    task = entry("task", "do this\n- and a fake item")
    text = format_handoff(handoff, [task])
    assert "## Injected heading" not in text.splitlines()
    assert "line one ## Injected heading line two" in text
    assert "Detail: a b c" in text
    assert f"- do this - and a fake item (id {task['id']})" in text.splitlines()


def test_at_most_max_items_of_each_the_latest_ones() -> None:
    tasks = [entry("task", f"task number {n}") for n in range(MAX_ITEMS + 15)]
    decisions = [entry("decision", f"decision number {n}") for n in range(MAX_ITEMS + 15)]
    items: list[dict[str, Any]] = [x for pair in zip(tasks, decisions, strict=True)
                                   for x in pair]
    text = format_handoff(SPEC_HANDOFF, items)
    shown = [ln for ln in text.splitlines() if ln.startswith("- ")]
    assert len(shown) == 2 * MAX_ITEMS
    for kept in tasks[-MAX_ITEMS:] + decisions[-MAX_ITEMS:]:
        assert f"(id {kept['id']})" in text
    for dropped in tasks[:-MAX_ITEMS] + decisions[:-MAX_ITEMS]:
        assert dropped["id"] not in text


def test_huge_texts_stay_bounded() -> None:
    huge = "word " * 100_000
    handoff = {**SPEC_HANDOFF, "content": huge, "detail": huge, "subject": "auth-migration"}
    items = [entry("task", huge, subject="auth-migration") for _ in range(3 * MAX_ITEMS)]
    items += [entry("decision", huge, detail=huge) for _ in range(3 * MAX_ITEMS)]
    text = format_handoff(handoff, items)
    lines = text.splitlines()
    assert len(lines) <= 4 + 4 + 2 * MAX_ITEMS
    assert len(lines[2]) <= 2 * MAX_TEXT
    assert len(lines[3]) <= len("Detail: ") + 4 * MAX_TEXT
    assert lines[2].endswith("…")
    for item in lines[4:]:
        assert len(item) <= MAX_TEXT + MAX_TEXT // 2 + 60
    # every item keeps its id, even when its text was clipped
    assert sum("(id " in ln for ln in lines) == 2 * MAX_ITEMS
    assert len(text) < 2 * MAX_ITEMS * 700 + 4000
