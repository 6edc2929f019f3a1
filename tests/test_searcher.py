"""search/searcher.py through Direct: rebuilding from scratch, status, and display names that
follow edits of subjects.json."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import entry
from tests.direct import Direct
from zettelclaw.config import SearchConfig
from zettelclaw.home import Home
from zettelclaw.protocol.params import SearchParams


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
    assert status["semantic"] == {"on": False, "reason":
                                  "semantic search is turned off (search.semantic = off)"}


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
