"""search/searcher.py through Direct: rebuilding from scratch, status, display names that
follow edits of subjects.json, and ``search_now`` (the same answers as ``search``, or none when
the search is not known to be quick)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import entry, held_by_another_thread
from tests.direct import Direct
from tests.oracles import search_result
from zettelclaw.config import SearchConfig
from zettelclaw.home import Home
from zettelclaw.index import read_budget
from zettelclaw.methods.memory import request_of
from zettelclaw.protocol.params import SearchParams
from zettelclaw.search import searcher as searcher_module
from zettelclaw.search.query import Answer, Request


@pytest.fixture
def memory(home: Home, workspace: Path) -> Iterator[Direct]:
    m = Direct.open(home, workspace, SearchConfig(semantic="off"))
    yield m
    m.close()


def ids(memory: Direct, **params: Any) -> list[str]:
    memory.sync()
    return [r["path"] for r in memory.search(SearchParams.model_validate(params))["results"]]


def test_rebuild_reads_everything_again(memory: Direct, workspace: Path,
                                        write_log: Any) -> None:
    a, b = write_log(entry("fact", "lemon tree on the balcony"),
                     entry("decision", "water the lemon tree weekly"))
    write_log(b"not an entry\n")
    (workspace / "MEMORY.md").write_text("lemon curd recipe\n")
    assert set(ids(memory, query="lemon")) == {a["id"], b["id"], "MEMORY.md"}
    report = memory.rebuild()
    assert (report["entries"], report["invalidLines"], report["memoryFiles"]) == (2, 1, 1)
    assert set(ids(memory, query="lemon")) == {a["id"], b["id"], "MEMORY.md"}
    assert memory.handoff_context is not None


def test_status_tells_what_search_covers(memory: Direct, workspace: Path) -> None:
    (workspace / "MEMORY.md").write_text("x\n")
    ids(memory, query="x")
    status = memory.status()["search"]
    assert (status["memoryFiles"], status["chunks"]) == (1, 1)
    assert status["semantic"] == {"on": False, "state": "off", "reason":
                                  "semantic search is turned off (search.semantic = off)",
                                  "embeddings": "local", "hosts": []}


def test_a_display_name_edited_in_subjects_json_is_searched(
        memory: Direct, home: Home, write_log: Any) -> None:
    hit = write_log(entry("fact", "needs new strings", subject="cello"))[0]
    assert ids(memory, query="cello") == [hit["id"]]  # Title Case of the slug: "Cello"
    registry = json.loads(home.subjects.read_text())
    registry["cello"]["display"] = "Violoncello Practice"
    home.subjects.write_text(json.dumps(registry))
    assert memory.needs_sync(), "an edit of subjects.json alone is noticed"
    assert ids(memory, query="violoncello") == [hit["id"]]
    assert ids(memory, query="practice") == [hit["id"]]


# -- search_now: the event loop's own search, when it is quick -----------------------------------

def _request(**params: Any) -> Request:
    return request_of(SearchParams.model_validate(params))


def _shown(answer: Answer | None) -> list[tuple[str, float]]:
    assert answer is not None, "search_now declined"
    return [(r["path"], r["score"]) for r in search_result(answer).model_dump(
        by_alias=True)["results"]]


@pytest.fixture
def quick(memory: Direct, workspace: Path, write_log: Any) -> Direct:
    write_log(entry("fact", "lemon tree on the balcony"),
              entry("decision", "water the lemon tree weekly", subject="garden"),
              entry("fact", "the fig tree needs no water in winter", subject="garden"))
    (workspace / "MEMORY.md").write_text("lemon curd recipe\n")
    memory.sync()
    memory.searcher.search(_request(query="warm up"))  # the first look walks the files
    return memory


@pytest.mark.parametrize("params", [{"query": "lemon"}, {"query": "lemon tree water"},
                                    {"query": "nothing matches this"}, {"subject": "garden"},
                                    {"query": "tree", "type": "decision"},
                                    {"query": "curd", "corpus": "files"}])
def test_search_now_answers_what_search_answers(quick: Direct, params: dict[str, Any]) -> None:
    request = _request(**params)
    now = _shown(quick.searcher.search_now(request))
    assert now == _shown(quick.searcher.search(request))
    assert now or params["query"] == "nothing matches this"


def test_search_now_declines_while_another_thread_holds_the_index(quick: Direct) -> None:
    with held_by_another_thread(quick.app.index):
        assert quick.searcher.search_now(_request(query="lemon")) is None
    assert quick.searcher.search_now(_request(query="lemon")) is not None


def test_search_now_declines_words_with_many_postings(quick: Direct,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(searcher_module, "NOW_POSTINGS", 2)
    assert quick.searcher.search_now(_request(query="fig")) is not None  # 1 posting
    assert quick.searcher.search_now(_request(query="tree")) is None  # 3
    assert quick.searcher.search_now(_request(query="lemon fig")) is None  # 2 + 1


def test_search_now_declines_when_its_sqlite_budget_is_spent(
        quick: Direct, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(searcher_module, "NOW_SQLITE_SECONDS", -1.0)
    monkeypatch.setattr(read_budget, "STEPS", 1)  # the clock is read at once: spent
    assert quick.searcher.search_now(_request(subject="garden")) is None
    assert quick.searcher.search_now(_request(query="lemon")) is None
    assert quick.app.index.conn.execute("SELECT count(*) FROM entries").fetchone()[0] == 3


def test_a_changed_memory_file_is_found_after_search_now_declined(quick: Direct,
                                                                   workspace: Path) -> None:
    """search_now drains the kernel's news of the change; the search in a thread must still
    walk and find the new file."""
    (workspace / "memory" / "2026-11-25.md").write_text("planted a second lemon tree\n")
    assert quick.searcher.search_now(_request(query="planted")) is None
    assert [p for p, _ in _shown(quick.searcher.search(_request(query="planted")))] == [
        "memory/2026-11-25.md"]
    assert [p for p, _ in _shown(quick.searcher.search_now(_request(query="planted")))] == [
        "memory/2026-11-25.md"]
