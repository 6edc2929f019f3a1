"""search/local_model.py's ``shared``: one embedding model per process, whatever the number of
memories. Each memory kept its own session and background thread before:
~120-145 MB and ~6 threads per agent. Each memory keeps its own vectors."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from zettelclaw.config import SearchConfig
from zettelclaw.index.database import Index
from zettelclaw.search.semantic import Semantic


def _embedding_threads() -> int:
    return sum(t.name == "zettelclaw-embedding" for t in threading.enumerate())


def test_memories_share_one_model_and_keep_their_own_vectors(tmp_path: Path) -> None:
    before = _embedding_threads()
    indexes = [Index(tmp_path / f"m{i}.sqlite") for i in range(3)]
    semantics = [Semantic(index, SearchConfig()) for index in indexes]
    try:
        for semantic in semantics:
            semantic.load()
        assert _embedding_threads() - before == 1, "one session, one background thread"
        models = {id(getattr(s.embedder, "model", s.embedder)) for s in semantics}
        assert len(models) == 1, "one model object serves every memory"
        semantics[0].close()  # a memory closes: the others go on embedding
        vector = semantics[1].query_vector("the garden shed")
        assert vector.shape == (384,)
        assert np.isclose(np.linalg.norm(vector), 1.0, atol=1e-5)
        assert _embedding_threads() - before == 1
    finally:
        for semantic in semantics[1:]:
            semantic.close()
        for index in indexes:
            index.close()
    assert _embedding_threads() == before, "the last memory to close lets the model go"
