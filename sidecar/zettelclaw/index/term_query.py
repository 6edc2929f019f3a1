"""One query of the term index, as each shard is asked it: BM25 as one index would give it.

Each shard's BM25 would weigh a word by the shard's own document frequency; the query boosts
each word in each shard by the ratio of the whole index's IDF to the shard's (``boosts``), so
scores are those of one index (but for each shard's average length, which a split by line keeps
all but equal). A single word with no filter is asked as a bare term, which tantivy prunes
(block-max WAND) where a boolean query of one clause is scored in full
(bench/README.md#search-at-a-million-entries); its boost is then a factor of every score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import tantivy
from tantivy import Occur, Query

from zettelclaw.index.fts import idf

Hits = list[tuple[float, Any]]  # tantivy's (score, address), best first
Clauses = list[tuple[Occur, Query]]


@dataclass(frozen=True)
class ShardQuery:
    schema: tantivy.Schema
    tokens: Sequence[str]
    boosts: Sequence[float]  # this shard's, by token
    every: bool  # every token, or any of them
    others: Clauses  # the filters' clauses

    def best(self, searcher: tantivy.Searcher, limit: int) -> Hits:
        """The shard's ``limit`` best, best first."""
        if len(self.tokens) == 1 and not self.others:  # a bare term: pruned, score scaled
            bare = Query.term_query(self.schema, "text", self.tokens[0])
            return [(score * self.boosts[0], address) for score, address
                    in searcher.search(bare, limit, count=False).hits]
        occur = Occur.Must if self.every else Occur.Should
        words = [(occur, Query.boost_query(Query.term_query(self.schema, "text", token), boost))
                 for token, boost in zip(self.tokens, self.boosts, strict=True)]
        if not self.every and len(words) > 1:  # Should beside Must filters: one word at least
            words = [(Occur.Must, Query.boolean_query(words))]
        return searcher.search(Query.boolean_query([*words, *self.others]), limit,
                               count=False).hits


def boosts(documents: Sequence[int], frequencies: Sequence[Sequence[int]]) -> list[list[float]]:
    """For each shard and word, what makes the shard's BM25 the whole index's: the ratio of
    the word's IDF over all shards to its IDF in the shard (1 where the shard lacks it).
    ``documents`` are each shard's, its marker included, as tantivy counts them (but for
    deleted documents not yet merged away, which tantivy counts and the bindings do not tell):
    the whole is counted as one index with one marker."""
    total = sum(documents) - (len(documents) - 1)
    overall = [sum(counts) for counts in zip(*frequencies, strict=True)]
    return [[idf(whole, total) / idf(mine, own) if mine else 1.0
             for whole, mine in zip(overall, counts, strict=True)]
            for own, counts in zip(documents, frequencies, strict=True)]
