"""search/semantic.py and search/vectorizer.py with the real all-MiniLM-L6-v2 model (the base
install's int8 ONNX file on onnxruntime, offline): vectors filled in the background, hybrid
search that finds what shares no keyword with the query, vectors reused across rebuilds, and an
honest fallback when semantic search cannot run."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio

from tests.conftest import entry
from tests.direct import Direct, open_app
from tests.timing import scaled
from zettelclaw.client import AsyncClient
from zettelclaw.config import SearchConfig, load_config
from zettelclaw.home import Home
from zettelclaw.index import fts, space, vectors
from zettelclaw.index.database import text_hash
from zettelclaw.methods.memory import request_of
from zettelclaw.protocol.params import SearchParams
from zettelclaw.search import semantic as semantic_module
from zettelclaw.search.local_model import LocalModel
from zettelclaw.search.pieces import sentences
from zettelclaw.search.sources import model_query
from zettelclaw.serve import Ready, ServerConfig, serve

pytestmark = pytest.mark.slow  # loads the real embedding model

ENTRIES = [
    ("decision", "Queue-based retries for webhook delivery instead of synchronous ones"),
    ("fact", "The billing team is three people"),
    ("fact", "Grandma's birthday is on the fourth of March"),
    ("task", "Book a dentist appointment for a cleaning"),
    ("decision", "We host the family photos on a home NAS, not in the cloud"),
]


@pytest.fixture(scope="module")
def embedder() -> Iterator[LocalModel]:
    model = LocalModel(threads=1)
    yield model
    model.close()


class Counting:
    """The real embedder, counting the texts it embeds."""

    def __init__(self, inner: LocalModel) -> None:
        self.inner, self.name, self.texts = inner, inner.name, 0

    def embed(self, texts: Any) -> Any:
        self.texts += len(texts)
        return self.inner.embed(texts)

    def embed_background(self, texts: Any) -> Any:
        self.texts += len(texts)
        return self.inner.embed_background(texts)

    def close(self) -> None:
        """The module's model is closed by its fixture."""


@pytest.fixture
def memory(home: Home, workspace: Path, write_log: Any,
           embedder: LocalModel) -> Iterator[tuple[Direct, Counting]]:
    write_log(*[entry(kind, text) for kind, text in ENTRIES])
    (workspace / "MEMORY.md").write_text("# Preferences\n- Aisle seats on long flights\n")
    m = Direct.open(home, workspace, SearchConfig(semantic="auto"))
    counting = Counting(embedder)
    m.searcher.semantic.use(counting)
    m.sync()
    yield m, counting
    m.close()


def fill(memory: Direct) -> None:
    while memory.searcher.semantic.embed_pending():
        pass


def search(memory: Direct, **params: Any) -> dict[str, Any]:
    return memory.search(SearchParams.model_validate(params))


def test_vectors_cover_every_current_entry_and_chunk(memory: tuple[Direct, Counting]) -> None:
    m, counting = memory
    m.search(SearchParams.model_validate({"query": "x"}))  # index the memory files
    before = counting.texts  # the query itself was embedded
    fill(m)
    # the entries, MEMORY.md's chunk, and its one line long enough to be compared on its own
    assert counting.texts - before == len(ENTRIES) + 2
    assert m.searcher.semantic.coverage() == (len(ENTRIES), len(ENTRIES))
    assert m.status()["search"]["semantic"]["on"] is True


def test_status_says_loading_then_catching_up_then_ready(
        home: Home, workspace: Path, write_log: Any, embedder: LocalModel) -> None:
    """One state at a time, and how much of the log has vectors while it is not ready (the
    first second after start said "not loaded", then "loading", and never "ready")."""
    write_log(*[entry(kind, text) for kind, text in ENTRIES])
    m = Direct(open_app(home, workspace, SearchConfig(semantic="auto"), serving=True))
    try:
        m.sync()

        def state() -> tuple[str, int, int]:
            s = m.status()["search"]["semantic"]
            return s["state"], s["coveredThroughLine"], s["lines"]

        assert state() == ("loading", 0, len(ENTRIES))  # before the vectorizer starts
        m.searcher.semantic.reason = semantic_module.LOADING
        assert state() == ("loading", 0, len(ENTRIES))
        m.searcher.semantic.use(embedder)
        assert state() == ("catching up", 0, len(ENTRIES))
        m.searcher.semantic.embed_pending()
        fill(m)
        assert state() == ("ready", len(ENTRIES), len(ENTRIES))
        m.searcher.semantic.reason = "the embedding model failed to load: boom"
        m.searcher.semantic.embedder = None
        assert state()[0] == "off"
    finally:
        m.close()


CHAT = ["See ya!", "Later, take care!", "Thanks, that means a lot!", "Wow, that's great!",
        "Haha, so true!", "Bye for now!", "Sounds good!", "Talk soon!"]


def chat_log(write_log: Any) -> None:
    """Two people's chat, as LoCoMo's turns: each name in half the entries, many of them
    near-empty; one turn answers the question below."""
    lines = [entry("fact", f"{who}: {CHAT[i % len(CHAT)]}")
             for i, who in enumerate(["Joanna", "Nate"] * 40)]
    lines.insert(37, entry("fact", "Joanna: I spend my weekends painting landscapes and hiking "
                           "with my dog."))
    write_log(*lines)


def test_words_in_much_of_the_log_do_not_steer_the_query_vector(
        home: Home, workspace: Path, write_log: Any) -> None:
    chat_log(write_log)
    m = Direct.open(home, workspace, SearchConfig(semantic="off"))
    try:
        m.sync()
        terms = m.searcher.engine.terms
        query = "What does Joanna do on weekends?"
        assert model_query(terms, query, fts.plan(query)) == "What does do on weekends?"
        only_common = "Joanna and Nate"
        assert model_query(terms, only_common, fts.plan(only_common)) == only_common
    finally:
        m.close()


def test_the_answer_outranks_short_turns_that_only_share_a_name(
        home: Home, workspace: Path, write_log: Any, embedder: LocalModel) -> None:
    chat_log(write_log)
    m = Direct.open(home, workspace, SearchConfig(semantic="auto"))
    try:
        m.searcher.semantic.use(embedder)
        m.sync()
        fill(m)
        answer = search(m, query="What are Joanna's hobbies?")
        assert answer["mode"] == "hybrid"
        assert "painting" in answer["results"][0]["snippet"]
    finally:
        m.searcher.semantic.embedder = None  # the module's model: kept for the other tests
        m.close()


def test_an_emoji_query_does_not_find_another_emoji(
        home: Home, workspace: Path, write_log: Any, embedder: LocalModel) -> None:
    """The model reads every emoji as the same unknown piece: "🍮" was as close to the "🚀"
    entry as to itself. A query with nothing the model knows gets no semantic candidates."""
    write_log(entry("fact", "🚀"), entry("fact", "Shipped the launch page 🚀"),
              entry("fact", "Pudding for dessert"))
    m = Direct.open(home, workspace, SearchConfig(semantic="auto"))
    try:
        m.searcher.semantic.use(embedder)
        m.sync()
        fill(m)
        answer = search(m, query="🍮")
        assert answer["mode"] == "hybrid"
        assert answer["results"] == []
        assert search(m, query="rocket launch")["results"], "words still find it"
    finally:
        m.searcher.semantic.embedder = None  # the module's model: kept for the other tests
        m.close()


def test_hybrid_finds_what_shares_no_keyword(memory: tuple[Direct, Counting]) -> None:
    m, _ = memory
    fill(m)
    query = "where are our pictures stored"
    m.searcher.semantic.reason = "off for a moment"
    keyword = search(m, query=query)
    m.searcher.semantic.reason = None
    answer = search(m, query=query)
    assert answer["mode"] == "hybrid"
    assert "fallback" not in answer
    assert answer["results"][0]["content"].startswith("We host the family photos")
    assert answer["results"][0]["vectorScore"] > 0.3
    assert answer["results"][0]["textScore"] == 0.0
    assert keyword["mode"] == "keyword"
    assert keyword["results"] == [], "no word of the query is in the entry"


def test_a_hybrid_search_is_left_to_a_thread(memory: tuple[Direct, Counting]) -> None:
    """Embedding the query takes milliseconds: never on the event loop (search_now)."""
    m, _ = memory
    fill(m)
    request = request_of(SearchParams.model_validate({"query": "webhook retries"}))
    assert m.searcher.search(request).mode == "hybrid"
    assert m.searcher.search_now(request) is None
    m.searcher.semantic.reason = "off for a moment"
    assert m.searcher.search_now(request) is not None


def test_memory_files_are_found_by_meaning_too(memory: tuple[Direct, Counting]) -> None:
    m, _ = memory
    search(m, query="warm up the file index")
    fill(m)
    results = search(m, query="where do I like to sit on planes")["results"]
    assert results[0]["path"] == "MEMORY.md"
    assert results[0]["citation"] == "MEMORY.md#L1-L2"


def test_the_chunks_matrix_is_kept_while_entries_are_embedded(
        memory: tuple[Direct, Counting], workspace: Path, write_log: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Once every chunk's texts have vectors, the entries' batches cannot change it: rebuilt
    after each of them, it cost a hybrid search 10-13 ms for 365 daily notes."""
    m, counting = memory
    search(m, query="warm up the file index")
    fill(m)
    search(m, query="where do I like to sit on planes")  # made with every vector
    looked: list[str] = []
    real = vectors.vector

    def vector(conn: sqlite3.Connection, model: str, digest: str) -> bytes | None:
        looked.append(digest)
        return real(conn, model, digest)

    monkeypatch.setattr(vectors, "vector", vector)
    write_log(entry("fact", "The shed key hangs by the back door"))
    m.sync()
    fill(m)  # a vector more: for an entry
    assert search(m, query="where do I like to sit on planes")["results"][0]["path"] == "MEMORY.md"
    assert looked == [], "kept"
    (workspace / "MEMORY.md").write_text("# Preferences\n- Window seats on long flights\n")
    m.searcher.files.sync()  # as the vectorizer does before each batch
    fill(m)
    assert search(m, query="where do I like to sit on planes")["results"][0]["path"] == "MEMORY.md"
    assert looked, "a changed chunk: made again"
    looked.clear()
    (workspace / "MEMORY.md").write_text("# Preferences\n- Aisle seats on long flights\n")
    m.searcher.files.sync()  # back as it was: its vectors exist, nothing is embedded
    embedded = counting.texts
    fill(m)
    assert counting.texts == embedded
    search(m, query="where do I like to sit on planes")
    assert looked, "the same chunk id, other text: made again"


def test_nonsense_finds_nothing_rather_than_the_least_unrelated(
        memory: tuple[Direct, Counting]) -> None:
    m, _ = memory
    fill(m)
    assert search(m, query="zeppelin xylophone quasar")["results"] == []


# One sentence of a long entry answers; averaged over the whole text it is less close to the
# question than a short entry about food that does not (0.33 against 0.36 here), and alone it is
# closer than anything (0.43). No word of the question is in any entry.
TRIP = ("The car needs new tyres before the winter, the garage said. We drove up to the lake "
        "on Saturday and the weather held the whole time. The kids swam until dinner and fell "
        "asleep in the car on the way back. I refuse to eat coriander, the one herb I cannot "
        "stand in any dish. Next month we want to try the campsite on the far shore. My sister "
        "starts her new job in Leeds on the first of the month.")
FOOD = ["Bought basil, thyme and rosemary seedlings for the balcony pots.",
        "The new cookbook has a whole chapter on cooking with fresh herbs.",
        "Dinner at the Thai place on Friday was excellent, the green curry especially.",
        "The soup was too salty, so next time use half the stock cube."]


@pytest.fixture
def trip(home: Home, workspace: Path, write_log: Any,
         embedder: LocalModel) -> Iterator[tuple[Direct, Counting, str]]:
    target = entry("fact", TRIP)
    write_log(*[entry("fact", text) for text in FOOD[:2]], target,
              *[entry("fact", text) for text in FOOD[2:]])
    m = Direct.open(home, workspace, SearchConfig(semantic="auto"))
    counting = Counting(embedder)
    m.searcher.semantic.use(counting)
    m.sync()
    yield m, counting, target["id"]
    m.close()


def test_the_sentence_that_answers_finds_its_long_entry(
        trip: tuple[Direct, Counting, str]) -> None:
    m, counting, target = trip
    fill(m)
    assert counting.texts == len(FOOD) + 1 + len(sentences(TRIP)), "the sentences too"
    answer = search(m, query="which seasoning do I dislike in meals?")
    assert answer["mode"] == "hybrid"
    assert answer["results"][0]["path"] == target


# A question is close to a question on its topic by its form: the turn that asks ranked above
# the one that answers (scores 0.401 and 0.363 here) before an entry that ends by asking was
# damped (search/weights.py, ASKING). No word of the query is in either.
ASKS = "Caroline: What do you do to calm down when work gets to be too much?"
ANSWERS = "Melanie: Running by the river every evening keeps me sane when work piles up."


def open_with(home: Home, workspace: Path, embedder: LocalModel, write_log: Any,
              *entries: dict[str, Any]) -> Direct:
    write_log(*entries)
    m = Direct.open(home, workspace, SearchConfig(semantic="auto"))
    m.searcher.semantic.use(Counting(embedder))
    m.sync()
    fill(m)
    return m


def test_the_turn_that_answers_ranks_above_the_one_that_asks(
        home: Home, workspace: Path, write_log: Any, embedder: LocalModel) -> None:
    asking, answering = entry("fact", ASKS), entry("fact", ANSWERS)
    m = open_with(home, workspace, embedder, write_log, asking, answering,
                  entry("fact", "Caroline: The bus was late again this morning."))
    try:
        answer = search(m, query="how does she cope with stress?")
    finally:
        m.close()
    assert answer["mode"] == "hybrid"
    assert [r["path"] for r in answer["results"][:2]] == [answering["id"], asking["id"]]


def test_a_question_entry_is_not_damped_for_asking(
        home: Home, workspace: Path, write_log: Any, embedder: LocalModel) -> None:
    said = "How do you usually relax and switch off after a long week?"
    question, fact = entry("question", said), entry("fact", said)
    m = open_with(home, workspace, embedder, write_log, question, fact,
                  entry("fact", "The bus was late again this morning."))
    try:
        scores = {r["path"]: r["score"] for r in search(m, query="how do I relax after work?")[
            "results"]}
    finally:
        m.close()
    # the same text and time: only the type weight (1.08 / 1.0) would part them, undamped
    assert scores[fact["id"]] < 0.85 * scores[question["id"]]


def test_an_index_made_before_sentences_embeds_only_them(
        trip: tuple[Direct, Counting, str]) -> None:
    m, counting, target = trip
    fill(m)
    with m.index.write() as conn:  # as an index of the release before left it
        conn.execute("DELETE FROM text_parts")
        conn.execute("DELETE FROM meta WHERE key = 'sentences_rule'")
        # and a row another rule would have made: forgotten with the rule
        vectors.store_parts(conn, [(text_hash(FOOD[0]), text_hash("Bought basil"), 1)])
    for said, _ in sentences(TRIP):
        with m.index.write() as conn:
            conn.execute("DELETE FROM vectors WHERE text_hash = ?", (text_hash(said),))
    other = Counting(counting.inner)
    m.searcher.semantic.use(other)  # as the sidecar's next start does
    query = m.searcher.semantic.query_vector("which seasoning do I dislike in meals?")
    assert len(m.searcher.semantic.entry_similarities(query)[0]) == len(FOOD) + 1, \
        "the entries are searched by meaning while their sentences are embedded"
    before = other.texts  # the query
    fill(m)
    assert other.texts - before == len(sentences(TRIP)), "the entries' own vectors are kept"
    with m.index.read() as conn:
        assert {r[0] for r in conn.execute("SELECT part_hash FROM text_parts")} \
            == {text_hash(said) for said, _ in sentences(TRIP)}
    answer = search(m, query="which seasoning do I dislike in meals?")
    assert answer["results"][0]["path"] == target


def test_the_vectors_of_sentences_no_entry_holds_are_dropped(
        trip: tuple[Direct, Counting, str]) -> None:
    m, counting, _ = trip
    fill(m)
    gone = "A sentence of an entry that was purged. Its other sentence went too."
    with m.index.write() as conn:
        vectors.store(conn, [(counting.name, text_hash(gone), b"\0\0")])
        vectors.store_parts(conn, [(text_hash("the purged entry"), text_hash(gone), 5)])
    assert space.drop_unused_vectors(m.index) == 1
    with m.index.read() as conn:
        kept = {r[0] for r in conn.execute("SELECT part_hash FROM text_parts")}
    assert kept == {text_hash(said) for said, _ in sentences(TRIP)}
    assert search(m, query="which seasoning do I dislike in meals?")["results"][0]["path"] \
        == trip[2]


def test_entries_ahead_of_the_walk_wait_for_it(
        home: Home, workspace: Path, write_log: Any, embedder: LocalModel,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An entry ahead of the vectorizer whose text an earlier one shares has its vector
    already. Read up to it, the entries between were never read once the walk reached them."""
    write_log(entry("fact", "Grandma's birthday is on the fourth of March"),
              entry("task", "Book a dentist appointment for a cleaning"),
              entry("fact", "Grandma's birthday is on the fourth of March", session="s-2"))
    m = Direct.open(home, workspace, SearchConfig(semantic="auto"))
    try:
        m.searcher.semantic.use(embedder)
        m.sync()
        monkeypatch.setattr(semantic_module, "BATCH", 1)
        m.searcher.semantic.embed_pending()
        query = m.searcher.semantic.query_vector("dentist")
        assert list(m.searcher.semantic.entry_similarities(query)[0]) == [1]
        fill(m)
        assert list(m.searcher.semantic.entry_similarities(query)[0]) == [1, 2, 3]
    finally:
        m.searcher.semantic.embedder = None  # the module's model: kept for the other tests
        m.close()


def test_a_rebuild_reuses_the_vectors(memory: tuple[Direct, Counting]) -> None:
    m, counting = memory
    search(m, query="index the memory files too")
    fill(m)
    before = counting.texts
    m.rebuild()
    fill(m)
    assert counting.texts == before, "vectors are keyed by text: nothing is embedded again"
    assert search(m, query="dental checkup")["results"][0]["type"] == "task"


def test_a_new_model_makes_new_vectors(memory: tuple[Direct, Counting],
                                       embedder: LocalModel) -> None:
    m, _ = memory
    fill(m)
    other = Counting(embedder)
    other.name = "some/other-model"
    m.searcher.semantic.use(other)
    with m.index.read() as conn:
        models = {r[0] for r in conn.execute("SELECT DISTINCT model FROM vectors")}
    assert models == set(), "the old model's vectors are dropped"
    fill(m)
    assert other.texts == len(ENTRIES)


def test_too_large_a_log_falls_back_to_keywords_and_says_why(
        home: Home, workspace: Path, write_log: Any, embedder: LocalModel) -> None:
    write_log(*[entry("fact", f"note {i}") for i in range(5)])
    m = Direct.open(home, workspace, SearchConfig(semantic="auto", semantic_max_entries=3))
    try:
        m.searcher.semantic.use(embedder)
        m.sync()
        answer = search(m, query="note")
        assert answer["mode"] == "keyword"
        assert "semanticMaxEntries" in answer["fallback"]["reason"]
    finally:
        m.close()


async def test_the_sidecar_loads_the_model_and_answers_in_hybrid_mode(
        server_config: ServerConfig, write_log: Any) -> None:
    write_log(*[entry(kind, text) for kind, text in ENTRIES])
    settings = load_config(server_config.home, env={})  # semantic: auto
    config = replace(server_config, settings=settings)
    async with trio.open_nursery() as nursery:
        ready: Ready = await nursery.start(serve, config)
        async with await AsyncClient.connect(ready.socket) as client:
            with trio.fail_after(scaled(60)):
                while True:
                    semantic = (await client.call("status"))["search"]["semantic"]
                    if semantic["on"] and semantic.get("coveredThroughLine") == len(ENTRIES):
                        break
                    await trio.sleep(0.1)
            answer = await client.call("memory.search", {"query": "teeth cleaning visit"})
        assert answer["mode"] == "hybrid"
        assert answer["results"][0]["type"] == "task"
        nursery.cancel_scope.cancel()


def test_one_line_among_many_is_found_by_its_meaning(
        home: Home, workspace: Path, write_log: Any, embedder: LocalModel) -> None:
    """MEMORY.md is mostly one fact a line: in a piece of ten such lines the one a question is
    about weighs little, and a log entry on the same topic came first."""
    write_log(entry("decision", "Do the herb pots ourselves instead of paying someone."),
              entry("task", "Clean and check the herb pots on the balcony."))
    (workspace / "MEMORY.md").write_text("\n".join([
        "# About me", "- Runs three times a week, the long run on Sundays.",
        "- Works from home on Mondays and Fridays.", "- Partner: Maya, a graphic designer.",
        "- Allergic to penicillin.", "- Drinks coffee black, no sugar.",
        "- Can't stand coriander; leave it out of anything cooked for me.",
        "- Reads mostly science fiction.", "- Time zone: Europe/London.",
        "- Sister Nina studies in Rotterdam."]) + "\n")
    m = Direct.open(home, workspace, SearchConfig(semantic="auto"))
    try:
        m.searcher.semantic.use(embedder)
        m.sync()
        m.searcher.files.sync()
        fill(m)
        results = search(m, query="which herb do I dislike in meals?")["results"]
        assert results[0]["path"] == "MEMORY.md"
    finally:
        m.close()


def test_the_end_of_a_long_note_is_found_by_meaning(
        home: Home, workspace: Path, embedder: LocalModel) -> None:
    """MiniLM reads 256 word pieces: a 400-token chunk is embedded in pieces, or its end
    would never be found by meaning."""
    filler = [f"- shopping item number {i}: oat milk, rye bread, apples" for i in range(40)]
    (workspace / "memory" / "notes.md").write_text(
        "\n".join(["# Notes", *filler, "- I never eat coriander, it tastes like soap"]) + "\n")
    m = Direct.open(home, workspace, SearchConfig(semantic="auto"))
    try:
        m.searcher.semantic.use(embedder)
        m.searcher.files.sync()
        fill(m)
        results = search(m, query="which herb do I avoid")["results"]
        assert results
        assert results[0]["path"] == "memory/notes.md"
        assert results[0]["endLine"] >= 42
    finally:
        m.close()


async def test_a_log_too_large_for_vectors_loads_no_model(
        server_config: ServerConfig, write_log: Any) -> None:
    write_log(*[entry("fact", f"note {i}") for i in range(5)])
    settings = load_config(server_config.home, env={}, overrides=["search.semanticMaxEntries=3"])
    async with trio.open_nursery() as nursery:
        ready: Ready = await nursery.start(serve, replace(server_config, settings=settings))
        async with await AsyncClient.connect(ready.socket) as client:
            with trio.fail_after(scaled(30)):  # polling the server: there is no event to wait on
                while "semanticMaxEntries" not in str(  # noqa: ASYNC110
                        (await client.call("status"))["search"]["semantic"]["reason"]):
                    await trio.sleep(0.05)
            semantic = (await client.call("status"))["search"]["semantic"]
            answer = await client.call("memory.search", {"query": "note"})
        assert semantic["on"] is False
        assert semantic["state"] == "off"
        assert "model" not in semantic, "no model was loaded"
        assert answer["mode"] == "keyword"
        assert "semanticMaxEntries" in answer["fallback"]["reason"]
        nursery.cancel_scope.cancel()


class Affine:
    """Another model, as an embedding server's would be: the real model's vectors with a
    constant part added, so that every cosine becomes ``(1 - weight) + weight x`` the real
    one (a model whose unrelated texts sit high, as multilingual-e5-small's at ~0.75)."""

    def __init__(self, inner: LocalModel, weight: float) -> None:
        self.inner, self.weight, self.name = inner, weight, f"test/affine-{weight}"

    def _moved(self, vectors: Any) -> Any:
        import numpy as np

        constant = np.full((len(vectors), 1), (1 - self.weight) ** 0.5, dtype=np.float32)
        return np.hstack([vectors * self.weight ** 0.5, constant]).astype(np.float32)

    def embed(self, texts: Any) -> Any:
        return self._moved(self.inner.embed(texts))

    def embed_background(self, texts: Any) -> Any:
        return self._moved(self.inner.embed_background(texts))

    def close(self) -> None:
        """The module's model is closed by its fixture."""


def test_another_model_is_read_on_its_own_scale(memory: tuple[Direct, Counting],
                                                embedder: LocalModel) -> None:
    """An embedding server's model (``search.embeddings = http``) is not the shipped one: its
    similarities are read from the query's own floor (the median over the log), so a model
    whose cosines all sit high ranks as one whose cosines spread, and as the shipped model
    would: read on the shipped model's fixed scale, every text was a near-perfect match."""
    m, _ = memory
    answers = {}
    for weight in (0.3, 0.6):
        m.searcher.semantic.use(Affine(embedder, weight))
        search(m, query="x")  # index the memory files, whose lines get vectors too
        fill(m)
        answers[weight] = [search(m, query=q) for q in (
            "where are our pictures stored", "when is the tooth check-up", "grandmother's party")]
    m.searcher.semantic.use(embedder)  # the module's model again, for the fixture's close
    first = answers[0.3]
    assert [a["mode"] for a in first] == ["hybrid"] * 3
    assert "NAS" in first[0]["results"][0]["snippet"]
    assert "dentist" in first[1]["results"][0]["snippet"]
    assert "birthday" in first[2]["results"][0]["snippet"]
    assert any(r["path"] == "MEMORY.md" for a in first for r in a["results"])
    for one, other in zip(first, answers[0.6], strict=True):
        assert [r["path"] for r in one["results"]] == [r["path"] for r in other["results"]]
        assert [r["score"] for r in one["results"]] == pytest.approx(
            [r["score"] for r in other["results"]], abs=1e-3)
