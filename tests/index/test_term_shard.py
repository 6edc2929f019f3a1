"""index/term_shard.py: one tantivy index of the term index.

Covers: a new shard has no marker, so it follows no epoch and was fed nothing; its marker, once
committed, is what ``reach`` reads back; an unreadable directory is rebuilt empty; the directory
is private; a searcher reloads only when a commit replaced meta.json.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tantivy import Query

from zettelclaw.index import term_documents
from zettelclaw.index.term_documents import marker
from zettelclaw.index.term_shard import Shard


def _shard(path: Path) -> Shard:
    return Shard(path, term_documents.schema(), term_documents.analyzer())


def _marked(path: Path, epoch: str, fed: int) -> Shard:
    """A shard whose committed marker says it follows ``epoch`` and was fed up to ``fed``."""
    shard = _shard(path)
    writer = shard.writer(20_000_000, 1)
    writer.add_json(marker(epoch, fed))
    writer.commit()
    writer.wait_merging_threads()
    return shard


def test_a_new_shard_follows_nothing(tmp_path: Path) -> None:
    assert _shard(tmp_path / "0").reach() == (None, 0)


def test_reach_is_what_the_marker_says(tmp_path: Path) -> None:
    shard = _marked(tmp_path / "0", "e-1", 40)
    assert shard.reach() == ("e-1", 40)


def test_an_unreadable_shard_is_rebuilt_empty(tmp_path: Path) -> None:
    shard = _marked(tmp_path / "0", "e-1", 40)
    (shard.path / "meta.json").write_text("{not json")
    again = _shard(tmp_path / "0")
    assert again.reach() == (None, 0)
    assert again.path.stat().st_mode & 0o777 == 0o700


def test_a_searcher_is_reloaded_only_after_a_commit(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    shard = _shard(tmp_path / "0")
    shard.searcher()
    reloads: list[int] = []
    real = shard.index

    class Counting:  # the tantivy index, its reloads counted (its own methods are read-only)
        def reload(self) -> None:
            reloads.append(1)
            real.reload()

        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

    monkeypatch.setattr(shard, "index", Counting())
    shard.searcher()
    assert reloads == [], "no commit since: the same meta.json"
    writer = real.writer(heap_size=20_000_000, num_threads=1)
    writer.add_json(marker("e-2", 3))
    writer.commit()
    writer.wait_merging_threads()
    searcher = shard.searcher()
    assert reloads == [1]
    assert searcher.search(Query.term_query(shard.schema, "line", 0), 1, count=False).hits
