"""index/ranking.py: type weights, recency, and hybrid fusion, all in [0, 1]; the SQL version
of the score agrees with the Python one."""

from __future__ import annotations

import pytest

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


def test_a_text_of_few_words_is_less_close_than_its_cosine_says() -> None:
    """Mean pooling over a few word pieces gives a vector that is mostly the one name it holds:
    "Joanna: See ya Nate!" (3 words that are not stopwords) had cosine 0.67 with a question
    about what Joanna and Nate appreciate."""
    floor, full = ranking.SIMILARITY_FLOOR, ranking.FULL_WORDS
    assert ranking.damped_similarity(0.67, full) == 0.67
    assert ranking.damped_similarity(0.67, 3) == pytest.approx(floor + 0.47 * 3 / full)
    assert ranking.damped_similarity(0.67, 3) < ranking.damped_similarity(0.5, full)
    assert ranking.damped_similarity(0.1, 1) == 0.1  # below the floor: unrelated either way
