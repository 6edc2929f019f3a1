"""index/weights.py: type weights, recency, and hybrid fusion, all in [0, 1]; the SQL version
of the score agrees with the Python one."""

from __future__ import annotations

import pytest

from zettelclaw.search import weights

NOW = 1_800_000_000.0
DAY = 86_400.0


def test_decisions_open_loops_and_open_tasks_count_more_than_facts_and_handoffs() -> None:
    w = weights.type_weight
    assert w("decision", None) > w("fact", None) > w("handoff", None)
    assert w("question", None) > w("fact", None)
    assert w("task", "open") > w("fact", None) > w("task", "done")


def test_recency_decays_gently_to_its_floor() -> None:
    fresh = weights.recency_weight(NOW, NOW)
    half = weights.recency_weight(NOW - weights.HALF_LIFE_DAYS * DAY, NOW)
    ancient = weights.recency_weight(NOW - 20 * 365 * DAY, NOW)
    assert fresh == pytest.approx(1.0)
    assert half == pytest.approx(weights.RECENCY_FLOOR + (1 - weights.RECENCY_FLOOR) / 2)
    assert weights.RECENCY_FLOOR <= ancient < half < fresh
    assert weights.recency_weight(NOW + DAY, NOW) == pytest.approx(1.0)  # clocks disagree


def test_a_decision_ages_more_slowly_than_the_rest() -> None:
    """A decision holds until a later one replaces it: a year on it keeps more of its weight
    than a fact, and still less than a new decision (the newer of two alike comes first)."""
    year = NOW - 365 * DAY
    score = weights.entry_score
    assert score(1.0, "decision", None, year, NOW) / score(1.0, "decision", None, NOW, NOW) > 0.9
    assert score(1.0, "fact", None, year, NOW) / score(1.0, "fact", None, NOW, NOW) < 0.7
    assert score(1.0, "decision", None, year, NOW) < score(1.0, "decision", None, NOW - DAY, NOW)
    for kind, status in (("fact", None), ("question", None), ("task", "open"), ("handoff", None)):
        aged = score(1.0, kind, status, year, NOW) / score(1.0, kind, status, NOW, NOW)
        assert aged == pytest.approx(weights.recency_weight(year, NOW))


def test_a_text_of_few_words_is_less_close_than_its_cosine_says() -> None:
    """Mean pooling over a few word pieces gives a vector that is mostly the one name it holds:
    "Joanna: See ya Nate!" (3 words that are not stopwords) had cosine 0.67 with a question
    about what Joanna and Nate appreciate."""
    floor, full = weights.SIMILARITY_FLOOR, weights.FULL_WORDS
    assert weights.damped_similarity(0.67, full) == 0.67
    assert weights.damped_similarity(0.67, 3) == pytest.approx(floor + 0.47 * 3 / full)
    assert weights.damped_similarity(0.67, 3) < weights.damped_similarity(0.5, full)
    assert weights.damped_similarity(0.1, 1) == 0.1  # below the floor: unrelated either way


def test_a_sentence_is_damped_as_a_whole_text_is() -> None:
    np = pytest.importorskip("numpy")
    sims = np.array([0.67, 0.67, 0.1, 0.5, 0.9, 0.21], dtype=np.float32)
    words = np.array([8, 3, 1, 12, 0, 4], dtype=np.float32)
    for floor in (weights.SIMILARITY_FLOOR, 0.75):
        at_once = weights.damped_similarities(sims, words, floor)
        assert at_once.dtype == np.float32
        assert list(at_once) == pytest.approx(
            [weights.damped_similarity(float(s), int(w), floor) for s, w in zip(sims, words,
                                                                                strict=True)])


def test_an_entry_that_asks_is_less_close_unless_it_is_a_question() -> None:
    floor = weights.SIMILARITY_FLOOR
    asked = weights.asking_similarity(0.6, "fact")
    assert asked == pytest.approx(floor + (0.6 - floor) * weights.ASKING)
    assert floor < asked < 0.6
    for kind in ("fact", "decision", "task", "handoff"):
        assert weights.asking_similarity(0.6, kind) == asked
    assert weights.asking_similarity(0.6, "question") == 0.6, "an open loop, kept to be found"
    assert weights.asking_similarity(0.15, "fact") == 0.15, "nothing above the floor to damp"
    assert weights.asking_similarity(0.8, "fact", floor=0.75) == pytest.approx(
        0.75 + 0.05 * weights.ASKING), "another model's floor"


def test_words_weigh_more_when_the_best_keyword_match_holds_most_of_the_query() -> None:
    """The keyword share rises with how much of the query its best keyword match holds: from
    KEYWORD_SHARE at KEYWORD_TRUSTED_FROM (and below: a paraphrase's best keyword match holds
    0.12-0.35 of it) to KEYWORD_SHARE_MOST for a match of every word. Among entries that hold
    the question's words, a slightly closer meaning then passes a better keyword match less
    often (LoCoMo's tuning half: MRR 0.492 -> 0.508; tests/quality unchanged)."""
    share = weights.keyword_share
    assert share(0.0) == share(0.3) == share(weights.KEYWORD_TRUSTED_FROM) == weights.KEYWORD_SHARE
    assert share(1.0) == pytest.approx(weights.KEYWORD_SHARE_MOST)
    assert weights.KEYWORD_SHARE < share(0.75) < weights.KEYWORD_SHARE_MOST
    # the answer holds every word (1.0) and is less close (0.49) than a turn with fewer (0.8)
    answer, other = (1.0, 0.49), (0.8, 0.56)
    best = 0.56
    for keyword_best, answer_first in ((0.3, False), (1.0, True)):
        s = share(keyword_best)
        assert (weights.fuse(*answer, best, s) > weights.fuse(*other, best, s)) is answer_first
    # unchanged: a paraphrase (weak best keyword match), and the floor under the keyword part
    assert weights.fuse(0.3, 0.5, 0.5) == weights.fuse(0.3, 0.5, 0.5, share(0.3))
    assert weights.fuse(1.0, 0.1, 0.5, share(1.0)) >= weights.KEYWORD_ALONE


def test_another_models_similarities_are_read_from_its_own_floor() -> None:
    """A model whose cosines sit high (multilingual-e5-small: ~0.75 for an unrelated text) was
    read on the shipped model's scale, where everything above 0.2 is close: every text a
    perfect match. On a scale from the query's own floor, an affine change of a model's
    similarities (another model, the same order) changes no fused score."""
    shipped = weights.SHIPPED_SCALE
    assert weights.relative_similarity(0.78, 0.84) > 0.9  # the old reading of e5's cosines
    for a, b in ((0.0, 1.0), (0.7, 0.3), (0.5, 0.45)):  # cosine' = a + b x cosine
        def moved(cosine: float, a: float = a, b: float = b) -> float:
            return a + b * cosine
        scale = weights.SimilarityScale(moved(0.1), candidate=moved(0.1), least_span=0.0)
        for keyword, cosine in ((0.0, 0.55), (0.4, 0.3), (1.0, 0.1), (0.2, 0.05)):
            assert weights.fuse(keyword, moved(cosine), moved(0.6), 0.3, scale) == pytest.approx(
                weights.fuse(keyword, cosine, 0.6, 0.3, weights.SimilarityScale(
                    0.1, candidate=0.1, least_span=0.0)))
    assert weights.relative_similarity(0.5, 0.5, floor=0.5, least_span=0.0) == 0.0  # no span
    assert weights.damped_similarity(0.8, 2, floor=0.75) == pytest.approx(
        0.75 + 0.05 * 2 / weights.FULL_WORDS)
    # the shipped model's scale is the measured one
    assert (shipped.floor, shipped.least_span) == (weights.SIMILARITY_FLOOR,
                                                   weights.SIMILARITY_LEAST_SPAN)
    assert weights.fuse(0.3, 0.5, 0.5, 0.3) == weights.fuse(0.3, 0.5, 0.5, 0.3, shipped)
