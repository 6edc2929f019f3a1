"""search/engine.py through Direct: keyword ranking over the log and the workspace's Markdown,
memory-core's result fields, modes and fallbacks, every match ranked, minScore and corpus."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import entry
from tests.direct import Direct
from zettelclaw.config import SearchConfig
from zettelclaw.home import Home
from zettelclaw.protocol.params import SearchParams
from zettelclaw.search import weights


def ago(days: float) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture
def memory(home: Home, workspace: Path) -> Iterator[Direct]:
    m = Direct.open(home, workspace, SearchConfig(semantic="off", candidate_window=50))
    yield m
    m.close()


def search(memory: Direct, **params: Any) -> dict[str, Any]:
    memory.sync()
    return memory.search(SearchParams.model_validate(params))


def test_a_decision_outranks_a_fact_that_says_the_same(memory: Direct, write_log: Any) -> None:
    write_log(entry("fact", "Kafka for the event bus", timestamp=ago(1)),
              entry("decision", "Kafka for the event bus", timestamp=ago(1)),
              *[entry("fact", f"filler about gardening number {i}") for i in range(20)])
    results = search(memory, query="kafka event bus")["results"]
    assert [r["type"] for r in results] == ["decision", "fact"]
    assert results[0]["score"] > results[1]["score"]


def test_newer_beats_older_when_they_match_alike(memory: Direct, write_log: Any) -> None:
    old, new = write_log(entry("fact", "the boiler needs a service", timestamp=ago(400)),
                         entry("fact", "the boiler needs a service", timestamp=ago(2)))
    write_log(*[entry("fact", f"unrelated note {i}") for i in range(20)])
    results = search(memory, query="boiler service")["results"]
    assert [r["id"] for r in results] == [new["id"], old["id"]]


def test_a_standing_decision_from_last_year_outranks_a_recent_fact_saying_the_same(
        memory: Direct, write_log: Any) -> None:
    """Nothing replaced the decision, so it is what holds; a fact's age says how current it is
    (a year-old fact saying the same would rank below the recent one: the test above)."""
    decision, fact = write_log(
        entry("decision", "self-hosted Keycloak for the auth migration", timestamp=ago(330)),
        entry("fact", "self-hosted Keycloak for the auth migration", timestamp=ago(5)))
    write_log(*[entry("fact", f"unrelated note {i}") for i in range(20)])
    results = search(memory, query="keycloak auth migration")["results"]
    assert [r["id"] for r in results] == [decision["id"], fact["id"]]


def test_the_time_a_question_names_weighs_its_entries_up(memory: Direct,
                                                        write_log: Any) -> None:
    """Newer wins a tie, unless the question names the older one's time (LoCoMo: "What did
    Mel and her kids paint in July 2023?"; the answer is a turn of July's session)."""
    july, _ = write_log(
        entry("fact", "painted a sunset with the kids", timestamp="2023-07-14T10:00:00Z"),
        entry("fact", "painted a sunset with the kids", timestamp="2023-10-02T10:00:00Z"))
    write_log(*[entry("fact", f"unrelated note {i}") for i in range(20)])
    assert search(memory, query="painted sunset kids")["results"][0]["id"] != july["id"]
    results = search(memory, query="what did we paint with the kids in July 2023")["results"]
    assert results[0]["id"] == july["id"]
    assert all(r["score"] <= 1.0 for r in results)


def test_a_question_that_asks_when_weighs_up_the_text_that_says_when(
        memory: Direct, write_log: Any) -> None:
    """Newer wins a tie, unless the question asks when and only the older one says when
    (LoCoMo: "When did Caroline go to the support group?"; the answer: "I went to a LGBTQ
    support group yesterday")."""
    says_when, says_not = write_log(
        entry("fact", "Caroline went to the support group yesterday", timestamp=ago(30)),
        entry("fact", "Caroline liked the support group a lot", timestamp=ago(1)))
    write_log(*[entry("fact", f"unrelated note {i}") for i in range(20)])
    first = search(memory, query="did Caroline go to the support group?")["results"]
    assert first[0]["id"] == says_not["id"]  # newer: nothing asks when
    results = search(memory, query="When did Caroline go to the support group?")["results"]
    assert [r["id"] for r in results[:2]] == [says_when["id"], says_not["id"]]
    assert all(r["score"] <= 1.0 for r in results)


def test_a_memory_files_line_is_weighed_as_an_entry_for_a_question_that_asks_when(
        memory: Direct, workspace: Path, write_log: Any) -> None:
    """"When" is a stopword: the two questions match alike, and only the weighing differs."""
    says_when, = write_log(entry("fact", "Caroline went to the support group on Friday",
                                 timestamp=ago(30)))
    write_log(*[entry("fact", f"unrelated note {i}") for i in range(20)])
    (workspace / "MEMORY.md").write_text(
        "# Notes\n\n- Caroline went to the support group, the one she loves\n")
    (workspace / "memory").mkdir(exist_ok=True)
    (workspace / "memory" / "caroline.md").write_text(
        "# Caroline\n\n- Caroline went to the support group in March\n")

    def scores(query: str) -> dict[str, float]:
        results = search(memory, query=query)["results"]
        return {r.get("id") or r["path"]: r["score"] for r in results}

    plain = scores("did Caroline go to the support group?")
    asked = scores("When did Caroline go to the support group?")
    assert asked[says_when["id"]] == plain[says_when["id"]]
    assert asked["memory/caroline.md"] == plain["memory/caroline.md"]
    assert asked["MEMORY.md"] == pytest.approx(  # (scores are rounded on the wire)
        weights.NO_TIME_WHEN_ASKED * plain["MEMORY.md"], abs=1e-5)


def test_every_word_beats_some_words(memory: Direct, write_log: Any) -> None:
    both, one = write_log(entry("fact", "the garage door opener is broken", timestamp=ago(300)),
                          entry("decision", "paint the garage", timestamp=ago(1)))
    write_log(*[entry("fact", f"unrelated note {i}") for i in range(20)])
    results = search(memory, query="garage opener")["results"]
    assert [r["id"] for r in results] == [both["id"], one["id"]]


def test_the_subject_display_name_is_searched(memory: Direct, write_log: Any) -> None:
    memory.subjects.add("whisper-stt", "system", "Whisper Speech Recognition")
    hit = write_log(entry("fact", "runs on the small GPU box", subject="whisper-stt"))[0]
    write_log(*[entry("fact", f"unrelated note {i}") for i in range(5)])
    results = search(memory, query="speech recognition")["results"]
    assert [r["id"] for r in results] == [hit["id"]]


def test_log_results_carry_memory_core_fields(memory: Direct, write_log: Any) -> None:
    write_log(entry("fact", "something else"), entry("task", "renew the passport"))
    result = search(memory, query="passport")["results"][0]
    assert result["path"] == result["id"]
    assert result["startLine"] == result["endLine"] == result["line"] == 2
    assert result["citation"] == "log.jsonl#L2"
    assert result["source"] == "log"
    assert "passport" in result["snippet"]
    assert 0 < result["score"] <= 1
    assert result["status"] == "open"


def test_memory_files_are_searched_and_cited_by_lines(memory: Direct, workspace: Path) -> None:
    (workspace / "MEMORY.md").write_text("# Goals\n\n- learn the cello\n- run a marathon\n")
    (workspace / "memory" / "trips.md").write_text("# Trips\n\nLisbon in May, by train.\n")
    results = search(memory, query="cello")["results"]
    assert len(results) == 1
    assert results[0]["path"] == "MEMORY.md"
    assert (results[0]["startLine"], results[0]["endLine"]) == (1, 4)
    assert results[0]["citation"] == "MEMORY.md#L1-L4"
    assert results[0]["source"] == "memory"
    assert search(memory, query="lisbon train")["results"][0]["path"] == "memory/trips.md"


def test_an_emoji_finds_what_holds_it(memory: Direct, workspace: Path, write_log: Any) -> None:
    """Symbols are words in the term index and in the Markdown's FTS5 table: "🍮" finds the
    🍮 entry and note, not the 🚀 ones (it found nothing when both dropped symbols)."""
    pudding, rocket = write_log(entry("fact", "Dessert tonight: 🍮"),
                                entry("fact", "Shipped the launch page 🚀"))
    write_log(*[entry("fact", f"unrelated note {i}") for i in range(5)])
    (workspace / "memory" / "food.md").write_text("# Food\n\nFlan🍮 on Sundays.\n")
    (workspace / "memory" / "work.md").write_text("# Work\n\nLaunch day 🚀\n")
    results = search(memory, query="🍮")["results"]
    assert {r.get("id") or r["path"] for r in results} == {pudding["id"], "memory/food.md"}
    assert all("🍮" in r["snippet"] for r in results)
    results = search(memory, query="🚀", corpus="log")["results"]
    assert [r["id"] for r in results] == [rocket["id"]]


def test_corpus_and_structured_filters_choose_the_sources(
        memory: Direct, workspace: Path, write_log: Any) -> None:
    (workspace / "MEMORY.md").write_text("The sauna is on Tuesdays.\n")
    write_log(entry("decision", "sauna on Tuesdays from now on"))
    everything = {r["source"] for r in search(memory, query="sauna")["results"]}
    assert everything == {"log", "memory"}
    assert {r["source"] for r in search(memory, query="sauna", corpus="log")["results"]} == {
        "log"}
    assert {r["source"] for r in search(memory, query="sauna", corpus="files")["results"]} == {
        "memory"}
    typed = search(memory, query="sauna", type="decision")["results"]
    assert {r["source"] for r in typed} == {"log"}, "files have no type: filters mean the log"


def test_min_score_drops_weak_results(memory: Direct, write_log: Any) -> None:
    write_log(entry("decision", "walnut desk", timestamp=ago(1)),
              entry("handoff", "walnut desk", timestamp=ago(900)))
    write_log(*[entry("fact", f"unrelated note {i}") for i in range(20)])
    scores = [r["score"] for r in search(memory, query="walnut desk")["results"]]
    assert len(scores) == 2
    cut = (scores[0] + scores[1]) / 2
    kept = search(memory, query="walnut desk", minScore=cut)["results"]
    assert [r["score"] for r in kept] == scores[:1]


def test_the_mode_and_why_semantic_search_was_not_used(memory: Direct, write_log: Any) -> None:
    write_log(entry("fact", "oat milk in the coffee"))
    answer = search(memory, query="coffee")
    assert answer["mode"] == "keyword"
    assert "search.semantic = off" in answer["fallback"]["reason"]
    assert search(memory, type="fact")["mode"] == "filter"


def test_the_best_match_is_found_among_every_match(memory: Direct, write_log: Any) -> None:
    # 80 matches, more than the pool of 50 the ranking weighs: the best one is the oldest
    # (a window of the newest matches, as before the term index, never saw it)
    best, = write_log(entry("fact", "coffee, coffee", timestamp=ago(30)))
    write_log(*[entry("fact", f"coffee note {i} about the morning and other things",
                      timestamp=ago(1)) for i in range(80)])
    answer = search(memory, query="coffee", maxResults=5)
    assert answer["results"][0]["id"] == best["id"]
    assert len(answer["results"]) == 5
    assert "window" not in answer


def test_filter_only_results_carry_the_same_fields(memory: Direct, write_log: Any) -> None:
    write_log(entry("task", "call the plumber"))
    result = search(memory, type="task", status="open")["results"][0]
    assert result["citation"] == "log.jsonl#L1"
    assert result["startLine"] == result["endLine"] == 1


def test_replaced_entries_stay_hidden_in_keyword_search(memory: Direct, write_log: Any) -> None:
    old = write_log(entry("fact", "the wifi password is hunter2"))[0]
    new = write_log(entry("fact", "the wifi password is correct-horse", replaces=old["id"]))[0]
    assert [r["id"] for r in search(memory, query="wifi password")["results"]] == [new["id"]]
    both = search(memory, query="wifi password", includeReplaced=True)["results"]
    assert {r["id"] for r in both} == {old["id"], new["id"]}


def test_a_match_the_term_index_has_and_sqlite_no_longer_has_is_left_out(
        memory: Direct, write_log: Any) -> None:
    """Another process rebuilding the index: its term index can be a moment ahead of or behind
    the rows; a hit without its row is not shown (and does not fail the search)."""
    gone, kept = write_log(entry("fact", "the ledger moved"), entry("fact", "ledger backups"))
    memory.sync()
    with memory.index.write() as conn:
        conn.execute("DELETE FROM entries WHERE id = ?", (gone["id"],))
    results = memory.search(SearchParams(query="ledger"))["results"]
    assert [r["id"] for r in results] == [kept["id"]]


def test_the_pipeline_runs_its_stages_in_the_order_the_docs_give(memory: Direct) -> None:
    """docs/07-search.md's table of stages is the engine's list, in its order: a stage added
    (a reranker, say) or moved is written down where a reader of ranking starts."""
    doc = (Path(__file__).parents[2] / "docs" / "07-search.md").read_text()
    table = doc.split("| stage | kind | what it does |")[1].split("\n\n")[0]
    listed = re.findall(r"^\| `(\w+)` \|", table, flags=re.MULTILINE)
    engine = memory.searcher.engine
    assert listed == [type(stage).__name__ for stage in engine.ranked]
    assert [type(stage).__name__ for stage in engine.filtered] == ["Newest"]
    assert "`Newest`" in doc
