"""index/ranking.py: type weights, recency, and hybrid fusion, all in [0, 1]; the SQL version
of the score agrees with the Python one."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zettelclaw.index import ranking

NOW = 1_800_000_000.0
DAY = 86_400.0


def test_decisions_open_loops_and_open_tasks_count_more_than_facts_and_handoffs() -> None:
    w = ranking.type_weight
    assert w("decision", None) > w("fact", None) > w("handoff", None)
    assert w("question", None) > w("fact", None)
    assert w("task", "open") > w("fact", None) > w("task", "done")


def test_recency_decays_gently_to_its_floor() -> None:
    fresh = ranking.recency_weight(NOW, NOW)
    half = ranking.recency_weight(NOW - ranking.HALF_LIFE_DAYS * DAY, NOW)
    ancient = ranking.recency_weight(NOW - 20 * 365 * DAY, NOW)
    assert fresh == pytest.approx(1.0)
    assert half == pytest.approx(ranking.RECENCY_FLOOR + (1 - ranking.RECENCY_FLOOR) / 2)
    assert ranking.RECENCY_FLOOR <= ancient < half < fresh
    assert ranking.recency_weight(NOW + DAY, NOW) == pytest.approx(1.0)  # clocks disagree


@given(st.floats(0, 1), st.sampled_from(["task", "fact", "decision", "question", "handoff"]),
       st.sampled_from([None, "open", "done"]), st.floats(0, 2 * NOW))
def test_scores_stay_in_the_unit_interval(match: float, kind: str, status: str | None,
                                          ts: float) -> None:
    assert 0.0 <= ranking.entry_score(match, kind, status, ts, NOW) <= 1.0


def test_fusion_weighs_keywords_and_meaning_relative_to_the_closest_text() -> None:
    best, floor, share = 0.45, ranking.SIMILARITY_FLOOR, ranking.KEYWORD_SHARE
    assert ranking.fuse(0.8, None, best) == 0.8  # no vector (yet): keywords alone
    assert ranking.fuse(0.0, best, best) == pytest.approx(1 - share)  # the closest meaning
    assert ranking.fuse(1.0, best, best) == pytest.approx(1.0)
    assert ranking.fuse(0.0, (floor + best) / 2, best) == pytest.approx((1 - share) / 2)
    # unrelated in meaning: the words alone, a little less than without semantic search
    assert ranking.fuse(0.5, floor, best) == pytest.approx(ranking.KEYWORD_ALONE * 0.5)
    assert ranking.fuse(0.5, -0.4, best) == pytest.approx(ranking.KEYWORD_ALONE * 0.5)


def test_the_entry_with_the_words_outranks_a_short_text_close_only_in_meaning() -> None:
    """LoCoMo: "Joanna: Later, take care!" has cosine ~0.63 with any question naming Joanna
    and no word of it; the turn that answers has the best keyword match and cosine 0.43. With
    the similarity relative to the best and 0.7 of the weight on it, the answer fell from 1st
    to 58th (bench/README.md)."""
    answer = ranking.fuse(1.0, 0.43, best=0.63)
    short_text = ranking.fuse(0.0, 0.63, best=0.63)
    assert answer > short_text
    assert answer >= ranking.KEYWORD_ALONE


def test_a_paraphrase_still_beats_an_entry_sharing_one_of_its_words() -> None:
    """tests/quality: the best keyword match of a paraphrase covers 0.12-0.35 of its words;
    the floor must not lift it over the closest meaning."""
    assert ranking.fuse(0.0, 0.47, best=0.47) > ranking.fuse(0.35, 0.30, best=0.47)


def test_a_question_worded_unlike_its_answer_weighs_its_closest_meaning_fully() -> None:
    """Raw cosines of the right answer run from ~0.3 to ~0.7 with how it is worded: relative to
    the query's best, the closest text counts as much as a perfect keyword match would."""
    close_in_meaning = ranking.fuse(0.0, 0.34, best=0.34)
    shares_a_word = ranking.fuse(0.4, 0.25, best=0.34)
    assert close_in_meaning > shares_a_word


def test_when_nothing_is_close_nothing_counts_as_a_perfect_match() -> None:
    best = ranking.SIMILARITY_FLOOR + 0.05
    assert ranking.relative_similarity(best, best) == pytest.approx(
        0.05 / ranking.SIMILARITY_LEAST_SPAN)


@given(st.floats(-1, 1), st.floats(-1, 1), st.floats(-1, 1))
def test_relative_similarity_is_in_the_unit_interval_and_keeps_the_order(
        a: float, b: float, best: float) -> None:
    low, high = sorted((a, b))
    assert 0.0 <= ranking.relative_similarity(low, best) <= ranking.relative_similarity(
        high, best) <= 1.0


@given(st.floats(0, 1), st.sampled_from(["task", "fact", "decision", "question", "handoff"]),
       st.sampled_from([None, "open", "done"]), st.floats(0, 2 * NOW))
def test_the_sql_score_is_the_python_score(match: float, kind: str, status: str | None,
                                            ts: float) -> None:
    import sqlite3

    conn = sqlite3.connect(":memory:")
    names = {"match": match, "kind": kind, "status": status, "ts": ts, "now": NOW}
    sql = ranking.entry_score_sql(":match", kind=":kind", status=":status", ts=":ts",
                                  now=":now")
    (value,) = conn.execute(f"SELECT {sql}", names).fetchone()
    conn.close()
    expected = ranking.entry_score(match, kind, status, ts, NOW)
    assert value == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_a_text_of_few_words_is_less_close_than_its_cosine_says() -> None:
    """Mean pooling over a few word pieces gives a vector that is mostly the one name it holds:
    "Joanna: See ya Nate!" (3 words that are not stopwords) had cosine 0.67 with a question
    about what Joanna and Nate appreciate."""
    floor, full = ranking.SIMILARITY_FLOOR, ranking.FULL_WORDS
    assert ranking.damped_similarity(0.67, full) == 0.67
    assert ranking.damped_similarity(0.67, 3) == pytest.approx(floor + 0.47 * 3 / full)
    assert ranking.damped_similarity(0.67, 3) < ranking.damped_similarity(0.5, full)
    assert ranking.damped_similarity(0.1, 1) == 0.1  # below the floor: unrelated either way
