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


def test_fusion_weighs_keywords_and_meaning() -> None:
    assert ranking.fuse(0.8, None) == 0.8
    assert ranking.fuse(0.0, 0.9) == pytest.approx((1 - ranking.KEYWORD_SHARE) * 0.9)
    assert ranking.fuse(1.0, 1.0) == pytest.approx(1.0)
    assert ranking.fuse(0.5, -0.4) == pytest.approx(ranking.KEYWORD_SHARE * 0.5)


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
