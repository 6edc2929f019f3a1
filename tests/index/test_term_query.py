"""index/term_query.py: a query as each shard is asked it.

Covers: boosts are the whole index's IDF over the shard's, 1 where the shard lacks the word; a
single word with no filter is asked as a bare term and its scores scaled by the boost (the same
scores as the boolean query); replaced entries are found only when asked for. Scores equal to
one index's: tests/index/test_terms.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from tantivy import Occur, Query

from tests.conftest import entry
from zettelclaw.home import Home
from zettelclaw.index import term_query
from zettelclaw.index.database import Index
from zettelclaw.index.entries import Filters
from zettelclaw.index.fts import idf
from zettelclaw.index.ingest import Ingester
from zettelclaw.index.terms import TermIndex

Write = Callable[..., list[dict[str, Any]]]


def test_boosts_are_the_ratio_of_idfs() -> None:
    # two shards of 101 documents each (a marker in each): the whole is 201
    weights = term_query.boosts([101, 101], [[3, 0], [1, 5]])
    assert weights[0] == [pytest.approx(idf(4, 201) / idf(3, 101)), 1.0]
    assert weights[1] == [pytest.approx(idf(4, 201) / idf(1, 101)),
                          pytest.approx(idf(5, 201) / idf(5, 101))]
    assert weights[0][0] > 1 > weights[1][0]  # a shard that has it more often would weigh it less


def test_a_bare_word_scores_as_the_boolean_query(index: Index, home: Home,
                                                 write_log: Write) -> None:
    old = write_log(*[entry(content=" ".join(["kayak"] * (1 + n % 4) + ["trip"] * (n % 3)))
                      for n in range(30)])
    write_log(entry(content="moved", replaces=old[1]["id"]))  # line 2, in shard 0
    terms = TermIndex(home.terms)
    Ingester(index, home.log).catch_up()
    with terms.updating(index):
        pass
    searcher = terms.shards[0].searcher()
    bare = term_query.ShardQuery(terms.schema, ("kayak",), (1.3,), True, [])
    boolean = term_query.ShardQuery(terms.schema, ("kayak",), (1.3,), True, [
        (Occur.Must, Query.const_score_query(Query.all_query(), 0.0))])
    scores = [score for score, _ in bare.best(searcher, 50)]
    assert scores == pytest.approx([score for score, _ in boolean.best(searcher, 50)])
    assert len(scores) == 14  # the even lines of the thirty but the replaced one
    hits = terms.search(("kayak",), every=True, filters=Filters(), limit=50)
    assert sorted(hit.line for hit in hits) == [1, *range(3, 31)]
    hits = terms.search(("kayak",), every=True, filters=Filters(include_replaced=True),
                        limit=50)
    assert sorted(hit.line for hit in hits) == list(range(1, 31))  # from its own shard
