"""Embeddings from a server over HTTP: any OpenAI-compatible ``POST {url}/embeddings``.

Ollama (``http://127.0.0.1:11434/v1``), llama.cpp's server, vLLM, LM Studio and OpenAI itself
answer it: ``{"model": M, "input": [texts]}`` -> ``{"data": [{"index": i, "embedding": [...]}]}``.
Chosen with ``search.embeddings = http`` and ``search.embeddingUrl`` / ``search.embeddingModel``
(``search.embeddingApiKey`` when the server wants a bearer token). The vectors are normalized
here (servers differ), and stored like the local model's, under ``http:<model>``: another model
means new vectors, the same model at another address does not.

An asymmetric model (e5, nomic-embed-text, Voyage's) embeds a search's text and a stored text
differently: ``search.embeddingQueryPrefix`` / ``search.embeddingDocumentPrefix`` go before
each, and with ``search.embeddingInputType`` the request says ``input_type`` ("query" or
"document"). Either makes other vectors, so the name says them (``http:<model>|<sides>``).

An ``httpx2`` client (installed with the Anthropic SDK) called from a worker thread (the
vectorizer's, or a search's): one request per batch, its connections kept alive between batches
and shared by the threads. A server that does not answer, or answers something else, is an
``EmbeddingError`` saying so: the vectorizer tries again later, and a search answers in keyword
mode with that reason instead of failing.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from zettelclaw.config import SearchConfig

if TYPE_CHECKING:
    import httpx2

    from zettelclaw.search.matrix import Matrix

MAX_ERROR_BODY = 300


class EmbeddingError(Exception):
    """The embedding service could not give vectors; ``str()`` says why, for a person."""

    # whether it says the service is failing (searches then leave it alone for a while:
    # ``Semantic.query_vector``); not so for a host that changed models
    service_failing = True


class HttpEmbedder:
    def __init__(self, config: SearchConfig) -> None:
        if not config.embedding_url or not config.embedding_model:
            raise EmbeddingError("search.embeddings is http: set search.embeddingUrl (e.g. "
                                 "http://127.0.0.1:11434/v1) and search.embeddingModel")
        self.url = config.embedding_url.rstrip("/") + "/embeddings"
        self.model = config.embedding_model
        self.api_key = config.embedding_api_key
        self.timeout = config.embedding_timeout_seconds
        self._lock = threading.Lock()
        self._client: httpx2.Client | None = None  # made on first use (its import is ~0.1 s)
        self._closer: weakref.finalize[[], HttpEmbedder] | None = None
        self.sides = {"query": config.embedding_query_prefix,
                      "document": config.embedding_document_prefix}
        self.input_type = config.embedding_input_type
        self.name = f"http:{self.model}"
        if any(self.sides.values()) or self.input_type:
            typed = "input_type," if self.input_type else ""
            self.name += f"|{typed}{self.sides['query']!r},{self.sides['document']!r}"

    def embed(self, texts: Sequence[str]) -> Matrix:
        """A search's text."""
        return self._embed(texts, "query")

    def embed_background(self, texts: Sequence[str]) -> Matrix:
        """Texts to store (the server decides what comes first)."""
        return self._embed(texts, "document")

    def close(self) -> None:
        """The kept-alive connections closed (a later call opens new ones)."""
        with self._lock:
            if self._closer is not None:
                self._closer()
            self._client, self._closer = None, None

    def _http(self) -> httpx2.Client:
        with self._lock:
            if self._client is None:
                import httpx2

                headers = {"accept": "application/json"}
                if self.api_key:
                    headers["authorization"] = f"Bearer {self.api_key}"
                self._client = httpx2.Client(headers=headers, timeout=self.timeout)
                # closed with the embedder when nobody calls close(): no socket left open
                self._closer = weakref.finalize(self, self._client.close)
            return self._client

    def _embed(self, texts: Sequence[str], side: str) -> Matrix:
        import numpy as np

        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        body: dict[str, Any] = {"model": self.model,
                                "input": [self.sides[side] + text for text in texts]}
        if self.input_type:
            body["input_type"] = side
        return unit_rows(_vectors(self._post(body), len(texts)), self.url)

    def _post(self, body: dict[str, Any]) -> Any:
        import httpx2

        try:
            response = self._http().post(self.url, json=body)
        except httpx2.HTTPError as exc:  # the transport's: refused, timed out, reset, bad URL
            raise EmbeddingError(f"{self.url} cannot be reached: {exc or type(exc).__name__}"
                                 ) from None
        if not response.is_success:  # redirects are not followed: a POST's would lose its body
            text = response.content[:MAX_ERROR_BODY].decode(errors="replace")
            raise EmbeddingError(f"{self.url} answered {response.status_code}: {text}")
        try:
            return response.json()
        except ValueError:
            raise EmbeddingError(f"{self.url} answered something that is not JSON") from None


def unit_rows(vectors: list[list[float]], source: str) -> Matrix:
    """A service's vectors (checked to be one length) as a matrix of unit rows, as they are
    stored and compared (services differ in whether they normalize); a vector that is not
    finite (JSON's NaN and Infinity parse) or is zero is the ``source``'s fault, said so."""
    import numpy as np

    matrix = np.asarray(vectors, dtype=np.float32)
    if not np.all(np.isfinite(matrix)):
        raise EmbeddingError(f"{source} answered a vector that is not finite")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    if not np.all(norms > 0):
        raise EmbeddingError(f"{source} answered a zero vector")
    result: Matrix = matrix / norms
    return result


def _vectors(answer: Any, count: int) -> list[list[float]]:
    """The embeddings of an OpenAI-shaped answer, in input order, checked."""
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list) or len(data) != count:
        raise EmbeddingError(f"expected {count} embeddings in data[], got "
                             f"{len(data) if isinstance(data, list) else 'none'}")
    ordered: list[list[float] | None] = [None] * count
    for position, item in enumerate(data):
        index = item.get("index", position) if isinstance(item, dict) else None
        vector = item.get("embedding") if isinstance(item, dict) else None
        if (not isinstance(index, int) or not 0 <= index < count or ordered[index] is not None
                or not isinstance(vector, list) or not vector
                or not all(isinstance(x, int | float) for x in vector)):
            raise EmbeddingError(f"data[{position}] is not an embedding of this request")
        ordered[index] = vector
    dims = {len(v) for v in ordered if v is not None}
    if len(dims) != 1:
        raise EmbeddingError(f"the embeddings have different lengths: {sorted(dims)}")
    return [v for v in ordered if v is not None]
