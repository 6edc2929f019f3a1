"""extraction/parts.py: a long conversation cut at message boundaries into parts a model
handles; and extraction/relative_dates.py: relative dates resolved against the conversation's
own day."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zettelclaw.extraction.parts import earlier_lines, split
from zettelclaw.extraction.relative_dates import conversation_date, dated, resolve
from zettelclaw.extraction.transcript import Message, line


def messages(lengths: list[int]) -> list[Message]:
    return [Message(f"k{i}", "user", "x" * n, None) for i, n in enumerate(lengths)]


@given(st.lists(st.integers(1, 3000), max_size=30), st.integers(1000, 5000))
def test_parts_keep_every_message_in_order_within_their_size(lengths: list[int],
                                                             part_chars: int) -> None:
    talk = messages(lengths)
    parts, left_out = split(talk, part_chars, 200_000)
    assert left_out == 0
    assert [m for part in parts for m in part] == talk
    for part in parts:  # a part over the size is one long message alone
        assert sum(len(line(m)) + 2 for m in part) <= part_chars or len(part) == 1


def test_the_earliest_messages_are_left_out_past_the_whole_limit() -> None:
    parts, left_out = split(messages([500] * 10), 1100, 2000)
    assert left_out == 7
    assert [len(p) for p in parts] == [2, 1]
    assert split(messages([5000]), 1000, 2000) == ([messages([5000])], 0)


def test_the_earlier_parts_entries_as_the_next_prompt_lists_them() -> None:
    replies = ['{"type": "fact", "content": "A", "subject": "s"}\n{"type": "handoff", '
               '"content": "H"}', '{"type": "fact", "content": "A", "subject": "s"}\nprose']
    assert earlier_lines(replies) == ["- from an earlier part of this conversation · fact (s): A"]


ON = date(2023, 5, 7)  # a Sunday


@pytest.mark.parametrize(("text", "resolved"), [
    ("went climbing yesterday", "went climbing yesterday (2023-05-06)"),
    ("moved last month", "moved last month (2023-04)"),
    ("left two weeks ago", "left two weeks ago (around 2023-04-23)"),
    ("3 days ago", "3 days ago (2023-05-04)"),
    ("next Friday", "next Friday (2023-05-12)"),
    ("last Sunday", "last Sunday (2023-04-30)"),
    ("a year ago", "a year ago (2022)"),
    ("the trip last week", "the trip last week (the week of 2023-04-24)"),
    ("yesterday (2023-05-06)", "yesterday (2023-05-06)"),  # already resolved
    ("recently, a while ago", "recently, a while ago"),  # nothing unambiguous
])
def test_relative_dates_get_the_date_they_mean(text: str, resolved: str) -> None:
    assert resolve(text, ON) == resolved


def test_the_conversations_day_and_an_entry_kept_valid() -> None:
    assert conversation_date([None, "2023-05-07T10:00:00Z"], None) == ON
    assert conversation_date([], "2023-05-07T10:00:00Z") == ON
    long = {"id": "aaaaaaaaaaa1", "timestamp": "2023-05-07T10:00:00Z", "session": "s",
            "type": "fact", "content": "y" * 1990 + " yesterday"}
    entry = {**long, "content": "went yesterday"}
    assert dated(entry, ON)["content"] == "went yesterday (2023-05-06)"
    assert dated(long, ON) in (long, {**long, "content": long["content"] + " (2023-05-06)"})
