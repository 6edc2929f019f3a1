"""search/host_embeddings.py: vectors from the host's embedding provider (``embeddings.embed``,
offered with ``host.offer``), through a real sidecar on a real Unix socket, with a fake host
(``tests/fakes/host_client.py``) that embeds as a bag of words: hybrid search by meaning with
no local model; keyword answers, saying why, with no host, a host gone, its errors, a timeout,
and answers that are not one vector per text; another provider or model makes new vectors."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
import trio

from tests.conftest import entry
from tests.fakes.host_client import FakeHost
from tests.timing import scaled
from zettelclaw.client import AsyncClient
from zettelclaw.config import SearchConfig, load_config
from zettelclaw.llm.host import EMBED_CAPABILITY, HostModels
from zettelclaw.protocol.outgoing import Reply
from zettelclaw.protocol.peer import Peer
from zettelclaw.search.host_embeddings import NO_HOST, HostEmbedder, _vectors
from zettelclaw.search.http_embeddings import EmbeddingError
from zettelclaw.search.semantic import missing_extra
from zettelclaw.serve import Ready, ServerConfig, serve

ENTRIES = [("decision", "We went with Postgres for the books"),
           ("fact", "The dog is called Rex"),
           ("task", "Water the tomatoes on Sunday")]
MEANING = "which database did we pick for the ledger"  # no word in common with the decision


def test_host_needs_no_local_model() -> None:
    assert missing_extra(SearchConfig(embeddings="host")) is None


def test_no_host_no_embedder() -> None:
    with pytest.raises(EmbeddingError, match=r"no connected host offers embeddings\.embed"):
        HostEmbedder(HostModels(), SearchConfig(embeddings="host"))


@pytest.mark.parametrize(("answer", "why"), [
    ({"vectors": []}, "answered 0 vectors for 2"),
    ({"text": "no"}, "answered no vectors for 2"),
    ({"vectors": [[1.0], ["x"]]}, r"vectors\[1\] is not a list of numbers"),
    ({"vectors": [[1.0], [True]]}, r"vectors\[1\] is not a list of numbers"),
    ({"vectors": [[1.0], []]}, r"vectors\[1\] is not a list of numbers"),
    ({"vectors": [[1.0], [1.0, 2.0]]}, r"different lengths: \[1, 2\]"),
])
def test_a_malformed_answer_is_refused(answer: Any, why: str) -> None:
    with pytest.raises(EmbeddingError, match=why):
        _vectors(answer, 2)


class Sidecar:
    """A sidecar serving in this process (search.embeddings = host), and a client of it."""

    def __init__(self, ready: Ready, client: AsyncClient) -> None:
        self.ready, self.client = ready, client
        self.hosts: list[FakeHost] = []

    async def host(self, **kwargs: Any) -> FakeHost:
        """A fake host that offers llm.complete and embeddings.embed (connects from a thread:
        the sidecar answers on this one)."""
        made = FakeHost(self.ready.socket, "", **kwargs)
        self.hosts.append(made)
        await trio.to_thread.run_sync(made.start, ("llm.complete", "embeddings.embed"))
        return made

    async def semantic(self) -> dict[str, Any]:
        status: dict[str, Any] = (await self.client.call("status"))["search"]["semantic"]
        return status

    async def until(self, test: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
        with trio.fail_after(scaled(20)):
            while True:
                semantic = await self.semantic()
                if test(semantic):
                    return semantic
                await trio.sleep(0.02)
        raise AssertionError(what)  # pragma: no cover - fail_after raises first

    async def search(self, query: str) -> dict[str, Any]:
        found: dict[str, Any] = await self.client.call("memory.search", {"query": query})
        return found


def covered(model: str) -> Callable[[dict[str, Any]], bool]:
    return lambda s: (s["on"] and s.get("model") == model
                      and s.get("coveredThroughLine") == len(ENTRIES))


@pytest.fixture
async def sidecar(server_config: ServerConfig, write_log: Any) -> AsyncIterator[Sidecar]:
    write_log(*[entry(kind, text) for kind, text in ENTRIES])
    settings = load_config(server_config.home, env={}, overrides=[
        "search.semantic=auto", "search.embeddings=host",
        "search.embeddingTimeoutSeconds=1"])
    async with trio.open_nursery() as nursery:
        ready: Ready = await nursery.start(serve, replace(server_config, settings=settings))
        async with await AsyncClient.connect(ready.socket) as client:
            car = Sidecar(ready, client)
            try:
                yield car
            finally:
                for host in car.hosts:
                    host.release()
                    await trio.to_thread.run_sync(host.stop)
        nursery.cancel_scope.cancel()


async def test_the_sidecar_searches_by_meaning_through_the_hosts_embeddings(
        sidecar: Sidecar) -> None:
    # (until the vectorizer has looked for a host: "not loaded" before, under load)
    before = await sidecar.until(lambda s: (s.get("reason") or "").startswith(NO_HOST),
                                 "the wait for a host")
    assert (before["on"], before["embeddings"], before["hosts"]) == (False, "host", [])
    waiting = await sidecar.search("tomatoes")
    assert waiting["mode"] == "keyword"
    assert waiting["fallback"]["reason"].startswith(NO_HOST)
    assert waiting["results"][0]["snippet"] == ENTRIES[2][1], "keywords answer meanwhile"

    host = await sidecar.host()  # the vectorizer is woken by the offer: no 30 s wait
    ready = await sidecar.until(covered("host:fake/bag-of-words"), "the host's vectors")
    assert ready["hosts"] == [{"client": {"name": "fake-host", "version": "0"},
                               "provider": "fake", "model": "bag-of-words"}]
    started = time.perf_counter()
    found = await sidecar.search(MEANING)
    took = time.perf_counter() - started
    assert found["mode"] == "hybrid", found.get("fallback")
    assert found["results"][0]["snippet"] == ENTRIES[0][1]
    background = [r["params"] for r in host.embed_requests if r["params"]["purpose"] == "document"]
    assert sorted(t for p in background for t in p["texts"]) == sorted(t for _, t in ENTRIES)
    query = host.embed_requests[-1]["params"]
    assert (query["texts"], query["purpose"], query["timeoutMs"]) == ([MEANING], "query", 1000)
    print(f"a hybrid search through the host's embeddings: {took * 1000:.1f} ms")

    await trio.to_thread.run_sync(host.stop)  # the gateway goes away
    gone = await sidecar.search(MEANING)
    assert gone["mode"] == "keyword"
    assert "no connected host offers embeddings.embed" in gone["fallback"]["reason"]
    assert (await sidecar.semantic())["hosts"] == []


async def test_the_hosts_failures_answer_in_keyword_mode_saying_why(
        sidecar: Sidecar, monkeypatch: pytest.MonkeyPatch) -> None:
    from zettelclaw.search import semantic as semantic_module

    # each failure asked at once (searches otherwise leave a failing service alone a while:
    # tests/search/test_http_embeddings.py)
    monkeypatch.setattr(semantic_module, "QUERY_RETRY_SECONDS", 0.0)
    host = await sidecar.host()
    await sidecar.until(covered("host:fake/bag-of-words"), "the host's vectors")

    async def why() -> str:
        answer = await sidecar.search("tomatoes")
        assert answer["mode"] == "keyword"
        assert answer["results"][0]["snippet"] == ENTRIES[2][1], "keywords still answer"
        reason: str = answer["fallback"]["reason"]
        return reason

    host.embed_answer = lambda texts: {"vectors": [[1.0, 0.0]] * (len(texts) + 1)}
    assert "the host answered 2 vectors for 1 text(s)" in await why()
    host.embed_answer = lambda texts: {"vectors": [[1.0, 0.0, 0.0]] * len(texts)}
    assert "the host's vectors have 3 dimensions, its earlier ones 64" in await why()
    host.embed_answer = None
    host.mode, host.error = "error", (-32013, "no API key found for provider openai")
    assert ("the host's embedding provider failed (-32013): no API key found for provider "
            "openai") in await why()
    host.mode = "hold"  # never answers within search.embeddingTimeoutSeconds
    assert "the host did not embed 1 text(s) within 1 s" in await why()
    host.release()
    host.mode = "drop"  # the gateway goes away mid-call
    assert "the host went away during the call" in await why()


async def test_another_model_makes_new_vectors(sidecar: Sidecar) -> None:
    host = await sidecar.host()
    await sidecar.until(covered("host:fake/bag-of-words"), "the host's vectors")
    asked = len(host.embed_requests)
    host.embedding = ("fake", "bigger")
    await trio.to_thread.run_sync(host.offer_again, ("llm.complete", "embeddings.embed"))
    await sidecar.until(covered("host:fake/bigger"), "the new model's vectors")
    again = [r["params"] for r in host.embed_requests[asked:]
             if r["params"]["purpose"] == "document"]
    assert sorted(t for p in again for t in p["texts"]) == sorted(t for _, t in ENTRIES)
    found = await sidecar.search(MEANING)
    assert found["mode"] == "hybrid"
    assert found["results"][0]["snippet"] == ENTRIES[0][1]


async def test_an_offer_of_embeddings_names_its_model(sidecar: Sidecar) -> None:
    from zettelclaw.errors import InvalidParamsError

    with pytest.raises(InvalidParamsError, match=r"embeddings\.embed needs embeddings"):
        await sidecar.client.call("host.offer", {"capabilities": ["embeddings.embed"]})


async def test_a_worker_thread_gets_unit_vectors_from_the_host_on_the_loop() -> None:
    """The embedder is called from worker threads: it crosses into trio for the request (the
    real ``Peer``, its transport a function that answers at once)."""
    hosts = HostModels()
    sent: list[dict[str, Any]] = []

    async def send(line: bytes) -> None:
        request = json.loads(line)
        sent.append(request)
        peer.deliver(Reply(request["id"], result={"vectors": [[3.0, 4.0], [0.0, 2.0]]}))

    peer = Peer(send)
    hosts.offer(peer, EMBED_CAPABILITY, {"client": {"name": "t"}, "provider": "openai",
                                         "model": "text-embedding-3-small"})
    embedder = await trio.to_thread.run_sync(HostEmbedder, hosts, SearchConfig(embeddings="host"))
    assert embedder.name == "host:openai/text-embedding-3-small"
    rows = await trio.to_thread.run_sync(embedder.embed_background, ["a", "b"])
    assert np.allclose(rows, [[0.6, 0.8], [0.0, 1.0]])
    assert sent[0]["method"] == "embeddings.embed"
    assert sent[0]["params"] == {"texts": ["a", "b"], "purpose": "document", "timeoutMs": 30000}
    with pytest.raises(EmbeddingError, match="cannot be asked from here"):
        embedder.embed(["on the loop itself"])  # a bug: said, not a hang
