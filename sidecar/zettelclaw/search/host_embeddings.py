"""Embeddings from the host: the newest connected client that offers ``embeddings.embed``
(``host.offer``; the OpenClaw plugin embeds with the provider the user configured for OpenClaw,
``memory.search.provider`` / ``model``).

Chosen with ``search.embeddings = host``. The embedder is made when a host offers (until then
the vectorizer waits for one, and searches answer in keyword mode saying so); its ``name`` is
``host:<provider>/<model>`` as that offer said, so another provider or model means new vectors:
when a newer offer names another one, ``HostModelChanged`` tells the vectorizer to make the
embedder again (the old vectors go, ``Semantic.use``).

Called from worker threads (the vectorizer's, a search's), synchronously: the request goes to
the host on the event loop (``trio.from_thread.run`` with the loop's token), with
``search.embeddingTimeoutSeconds`` as its deadline. No host, the host gone mid-call, its
error, a timeout, or an answer that is not one vector per text: ``EmbeddingError`` with the
reason (searches then answer in keyword mode; the vectorizer tries again later).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import trio

from zettelclaw.config import SearchConfig
from zettelclaw.errors import PeerGone, ZettelclawError
from zettelclaw.llm.host import EMBED_CAPABILITY, HostModels
from zettelclaw.search.http_embeddings import EmbeddingError, unit_rows

if TYPE_CHECKING:
    from zettelclaw.search.matrix import Matrix

NO_HOST = (f"no connected host offers {EMBED_CAPABILITY} (search.embeddings = host: the "
           "OpenClaw plugin offers it when OpenClaw's memory.search.provider names a provider)")


class HostModelChanged(EmbeddingError):
    """The host now embeds with another provider or model than the stored vectors'."""

    service_failing = False  # it works: the vectorizer makes the embedder again at once


def offered_name(hosts: HostModels) -> str | None:
    """``host:<provider>/<model>`` of the newest host that embeds, or None when none does."""
    peer = hosts.embedder()
    if peer is None:
        return None
    details = peer.offers[EMBED_CAPABILITY]
    return f"host:{details['provider']}/{details['model']}"


class HostEmbedder:
    def __init__(self, hosts: HostModels, config: SearchConfig) -> None:
        name = offered_name(hosts)
        if name is None:
            raise EmbeddingError(NO_HOST)
        self.hosts = hosts
        self.name = name
        self.timeout = config.embedding_timeout_seconds
        self.dims: int | None = None  # the vectors' length, from the first answer

    def changed(self) -> bool:
        """Whether the newest host now embeds with another provider or model."""
        now = offered_name(self.hosts)
        return now is not None and now != self.name

    def embed(self, texts: Sequence[str]) -> Matrix:
        return self._embed(texts, "query")

    def embed_background(self, texts: Sequence[str]) -> Matrix:
        return self._embed(texts, "document")

    def close(self) -> None:
        """Nothing kept open: the host's connection is the server's."""

    def _embed(self, texts: Sequence[str], purpose: str) -> Matrix:
        import numpy as np

        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        token = self.hosts.token
        if token is None:
            raise EmbeddingError(NO_HOST)
        try:
            raw = trio.from_thread.run(self._ask, list(texts), purpose, trio_token=token)
        except trio.RunFinishedError:
            raise EmbeddingError("the sidecar is stopping") from None
        except RuntimeError as exc:  # called on the event loop itself: a bug, said plainly
            raise EmbeddingError(f"the host's embeddings cannot be asked from here: {exc}"
                                 ) from None
        vectors = _vectors(raw, len(texts))
        dims = len(vectors[0])
        if self.dims is not None and dims != self.dims:  # they could not be compared
            raise EmbeddingError(f"the host's vectors have {dims} dimensions, its "
                                 f"earlier ones {self.dims}")
        result = unit_rows(vectors, "the host")
        self.dims = dims
        return result

    async def _ask(self, texts: list[str], purpose: str) -> Any:
        """On the event loop: one ``embeddings.embed`` request to the newest host."""
        peer = self.hosts.embedder()
        if peer is None:
            raise EmbeddingError(f"{NO_HOST}{f' ({self.hosts.gone})' if self.hosts.gone else ''}")
        now = offered_name(self.hosts)
        if now != self.name:
            raise HostModelChanged(f"the host now embeds with {now}, not {self.name}: the "
                                   "vectors are made again")
        params = {"texts": texts, "purpose": purpose, "timeoutMs": int(self.timeout * 1000)}
        try:
            with trio.fail_after(self.timeout):
                raw = await peer.request(EMBED_CAPABILITY, params)
        except trio.TooSlowError:
            raise EmbeddingError(f"the host did not embed {len(texts)} text(s) within "
                                 f"{self.timeout:g} s (search.embeddingTimeoutSeconds)") from None
        except PeerGone as exc:
            raise EmbeddingError(f"the host went away during the call ({exc})") from None
        except ZettelclawError as exc:
            raise EmbeddingError(f"the host's embedding provider failed ({exc.code}): "
                                 f"{exc.message}") from None
        return raw


def _vectors(answer: Any, count: int) -> list[list[float]]:
    """The host's ``vectors``, one per text in order, checked."""
    vectors = answer.get("vectors") if isinstance(answer, dict) else None
    if not isinstance(vectors, list) or len(vectors) != count:
        got = len(vectors) if isinstance(vectors, list) else "no"
        raise EmbeddingError(f"the host answered {got} vectors for {count} text(s)")
    for position, vector in enumerate(vectors):
        if (not isinstance(vector, list) or not vector
                or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in vector)):
            raise EmbeddingError(f"the host's vectors[{position}] is not a list of numbers")
    dims = {len(v) for v in vectors}
    if len(dims) != 1:
        raise EmbeddingError(f"the host's vectors have different lengths: {sorted(dims)}")
    return vectors
