"""search/gather.py: a question that asks for someone's many things gets its first results from
across sessions, not near-copies from one; other questions keep their order."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import entry
from tests.direct import Direct
from zettelclaw.config import SearchConfig
from zettelclaw.home import Home
from zettelclaw.protocol.params import SearchParams
from zettelclaw.search import gather


@pytest.mark.parametrize("query", [
    "What activities does Melanie partake in?",
    "What books has Melanie read?",
    "Which new hobbies did Jon pick up?",
    "What kinds of art does Caroline make?",
    "What kind of interests do Joanna and Nate share?",
    "What are Jon's hobbies?",
    "What were some of Paola's favourite places?",
    "Where has Caroline traveled?",
    "In what ways does John help his community?",
])
def test_a_question_for_many_things_gathers(query: str) -> None:
    assert gather.asks_many(query)


@pytest.mark.parametrize("query", [
    "What motivates Caroline to paint?",  # a verb in -s, no plural noun
    "What does Melanie do on weekends?",
    "When did Caroline go to the support group?",
    "What is Jon's favourite book?",
    "What kind of picture did Tim share?",
    "Where did Melanie go on Sunday?",
    "deploy script postgres",
    "What was the address Mrs Jones gave us?",
])
def test_a_question_for_one_thing_does_not(query: str) -> None:
    assert not gather.asks_many(query)


def test_spread_keeps_a_far_weaker_entry_below() -> None:
    texts = {1: "Paola likes hiking in the Alps", 2: "Paola likes hiking in the Alps!",
             3: "Paola collects vintage cameras"}
    scored = [(1.0, 1), (0.99, 2), (0.4, 3)]
    out = gather.spread(scored, lambda s: gather.Said(gather.words(texts[s[1]])),
                        lambda s: s[0], limit=3)
    assert out == scored


def test_spread_moves_a_near_copy_below_another_thing() -> None:
    """The same fact extracted in three sessions: one copy is enough in the first results."""
    texts = {1: "Paola likes hiking in the Alps", 2: "Paola likes hiking in the Alps!",
             3: "Paola likes hiking, in the Alps", 4: "Paola collects vintage cameras"}
    scored = [(1.0, 1), (0.99, 2), (0.98, 3), (0.8, 4)]
    out = gather.spread(scored, lambda s: gather.Said(gather.words(texts[s[1]])),
                        lambda s: s[0], limit=2)
    assert [s[1] for s in out] == [1, 4, 2, 3]
    assert gather.spread(scored, lambda s: gather.Said(gather.words(texts[s[1]])),
                         lambda s: s[0], limit=1) == scored, "only WINDOW * limit take part"


def test_spread_puts_the_named_subjects_entries_first() -> None:
    scored = [(1.0, "sam"), (0.9, "paola"), (0.85, "paola"), (0.5, "paola")]
    out = gather.spread(scored, lambda s: gather.Said(named=s[1] == "paola"), lambda s: s[0],
                        limit=3)
    assert [s[0] for s in out] == [0.9, 0.85, 1.0, 0.5]
    # a memory file's chunk has no subject: not weighed by it
    chunk = gather.spread(scored, lambda s: gather.Said(named=None if s[1] == "sam" else True),
                          lambda s: s[0], limit=3)
    assert chunk == scored
    unnamed = gather.spread(scored, lambda s: gather.Said(), lambda s: s[0], limit=3)
    assert unnamed == scored, "no subject named: the order stands"


@pytest.mark.parametrize(("query", "name", "named"), [
    ("What are Paola's interests?", "Paola", True),
    ("What interests does paola have?", "Paola", True),
    ("Which bugs has the Billing Service had?", "Billing Service", True),
    ("Which bugs has billing had?", "Billing Service", False),
    ("What are Paola's interests?", None, False),
])
def test_a_question_names_a_subject_by_its_display_name(query: str, name: str | None,
                                                        named: bool) -> None:
    assert gather.names(query, name) is named


def test_a_long_list_is_spread_in_its_first_results_only(memory: Direct, write_log: Any) -> None:
    copies = [entry("fact", f"Melanie's activities: pottery class{'!' * i}") for i in range(30)]
    write_log(*copies)
    memory.sync()
    results = memory.search(SearchParams.model_validate(
        {"query": "What activities does Melanie partake in?", "maxResults": 50}))["results"]
    assert len(results) == 30
    assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)


def test_near_copy_is_most_words_shared() -> None:
    assert gather.near_copy(gather.words("I love the Alps and hiking"),
                            gather.words("hiking the Alps, love it"))
    assert not gather.near_copy(gather.words("hiking in the Alps"),
                                gather.words("vintage cameras from the Alps"))
    assert not gather.near_copy(frozenset(), frozenset())


@pytest.fixture
def memory(home: Home, workspace: Path) -> Iterator[Direct]:
    m = Direct.open(home, workspace, SearchConfig(semantic="off", candidate_window=50))
    yield m
    m.close()


def _search(memory: Direct, query: str) -> list[dict[str, Any]]:
    memory.sync()
    results: list[dict[str, Any]] = memory.search(SearchParams.model_validate(
        {"query": query, "maxResults": 5}))["results"]
    return results


def test_a_list_question_gets_one_copy_of_a_fact_and_the_other_things(
        memory: Direct, write_log: Any) -> None:
    """The same fact of Melanie's, extracted in six sessions, filled the first five; her other
    activities, one each in other sessions, came after them."""
    copies = [entry("fact", f"Melanie's activities: pottery class, pottery{'!' * i}",
                    session=f"s-pottery-{i}") for i in range(6)]
    others = [entry("fact", f"Melanie's activities: {thing}", session=f"s-{i}")
              for i, thing in enumerate(["camping with the kids", "running by the river",
                                         "violin in the evening"])]
    write_log(*copies, *others)
    results = _search(memory, "What activities does Melanie partake in?")
    assert {r["id"] for r in results} >= {e["id"] for e in others}
    assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)
    # asked for one thing, the copies lead as their words say
    one = _search(memory, "Melanie pottery class activities")
    assert {r["id"] for r in one} <= {e["id"] for e in copies}


def test_a_list_question_that_names_a_subject_gets_its_entries(
        memory: Direct, write_log: Any, home: Home) -> None:
    """"What interests does Paola have?": Sam's chatter holds "interesting" (one stem with
    "interests") and Paola's name; Paola's own entries, her subject's, hold fewer of the words."""
    home.subjects.write_text('{"paola": {"display": "Paola", "type": "person"}}')
    chatter = [entry("fact", f"Sam: Paola, {text}", session=f"chat-{i}") for i, text in enumerate([
        "that's so interesting, tell me more!", "interesting, I never thought of it that way.",
        "what an interesting day at work.", "the museum tour was interesting.",
        "interesting book, I'll lend it to you.", "that documentary was really interesting."])]
    hers = [entry("fact", f"Paola got interested in {thing}", subject="paola", session=f"s-{i}")
            for i, thing in enumerate(["collecting vintage cameras from flea markets",
                                       "birdwatching on Sunday mornings by the lake",
                                       "playing jazz piano at the club downtown"])]
    write_log(*chatter, *hers)
    results = _search(memory, "What interests does Paola have?")
    assert {r["id"] for r in results[:3]} == {e["id"] for e in hers}
