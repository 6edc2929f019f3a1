"""search/dates.py: the time a query names, absolute as written, relative to now."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from zettelclaw.search import dates

NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC).timestamp()  # a Thursday


def days(query: str) -> tuple[str, str] | None:
    found = dates.window(query, NOW)
    if found is None:
        return None
    start, end = (datetime.fromtimestamp(t, UTC).date().isoformat() for t in found)
    return start, end


@pytest.mark.parametrize(("query", "expected"), [
    ("What did they paint in July 2023?", ("2023-07-01", "2023-08-01")),
    ("what happened on 23 January, 2022", ("2022-01-23", "2022-01-24")),
    ("the meeting on May 7th, 2023", ("2023-05-07", "2023-05-08")),
    ("How many trips in 2021?", ("2021-01-01", "2022-01-01")),
    ("in December 2024", ("2024-12-01", "2025-01-01")),
    ("on 31 February, 2023", ("2023-02-01", "2023-03-01")),  # no such day: the month
    ("what did I decide yesterday", ("2026-11-25", "2026-11-26")),
    ("the call last Friday", ("2026-11-20", "2026-11-21")),
    ("the call last Thursday", ("2026-11-19", "2026-11-20")),
    ("what we fixed two weeks ago", ("2026-11-05", "2026-11-20")),
    ("the plan from last year", ("2025-01-01", "2026-01-01")),
])
def test_a_named_time_is_a_window(query: str, expected: tuple[str, str]) -> None:
    assert days(query) == expected


@pytest.mark.parametrize("query", [
    "When did Melanie go camping?", "it may rain", "room 2021 is booked",
    "the 4 items"])
def test_no_time_no_window(query: str) -> None:
    assert days(query) is None


@pytest.mark.parametrize(("query", "asks"), [
    ("When did Caroline go to the LGBTQ support group?", True),
    ("when do I next get my teeth looked at?", True),
    ("  When is the dentist?", True),
    ("What time does the nightly ETL finish?", True),
    ("In which month did they move?", True),
    ("which year was the wedding", True),
    ("how long ago did we switch banks?", True),
    ("What did Melanie do when she felt down?", False),  # a conjunction, not a question word
    ("Where did Caroline move from?", False),
    ("whenever you can", False),
])
def test_whether_a_query_asks_for_a_time(query: str, asks: bool) -> None:
    assert dates.asks_when(query) is asks


@pytest.mark.parametrize(("text", "names"), [
    ("I went to a LGBTQ support group yesterday", True),
    ("Dental cleaning moved to Friday March 14 at 9:30", True),
    ("We painted a lake sunrise last year", True),
    ("Three days ago the boiler broke", True),
    ("We moved in 2019", True),
    ("In May we went hiking", True),
    ("the 14th of March suits me", True),
    ("3 pm works for me", True),
    ("Mondays are hard", True),
    ("this summer we go camping", True),
    ("I maybe will go", False),  # "may" inside a word is no month
    ("related by marriage", False),
    ("We decided on Kafka", False),
    ("Thanks, see ya!", False),
    ("Version 2.5 of the app", False),
])
def test_whether_a_text_names_a_time(text: str, names: bool) -> None:
    assert dates.names_time(text) is names
