"""protocol/results.py and methods/search_wire.py: the result models as they go on the wire.

Covers: camelCase names; a field left unset is left out, one set to None is sent as null; a log
hit's memory-core fields (path, startLine = endLine = line, citation) and its content cut at
16,384 characters with contentTruncated; a memory-file hit's citation for one line and for a
range; the restricted answer; ``from`` spelled as on the wire; and ``search_wire`` (the search's
answer built without the models) equal to the models' wire form over generated answers.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracles import search_result
from zettelclaw.methods.search_wire import RESULT_TEXT_CHARS, search_wire
from zettelclaw.protocol.results import (
    SearchResult,
    SubjectInfo,
    SubjectRenamed,
    TextSlice,
    restricted,
)
from zettelclaw.search.query import Answer, ChunkHit, EntryHit

ENTRY: dict[str, Any] = {"id": "e00000000001", "timestamp": "2026-02-20T14:00:00Z", "type": "fact",
                         "content": "webhooks retry 5 times", "status": None, "detail": None,
                         "subject": None, "replaces": None, "session": "s1"}


def wire(result: SearchResult) -> dict[str, Any]:
    return result.wire()


def test_a_log_hit_carries_the_entry_and_memory_cores_fields() -> None:
    answer = Answer("keyword", [EntryHit(ENTRY, 7, None, 0.1234567, "webhooks…", keyword=0.5)],
                    fallback="semantic search is turned off")
    out = wire(search_result(answer))
    [hit] = out["results"]
    assert hit == {**ENTRY, "path": "e00000000001", "startLine": 7, "endLine": 7, "line": 7,
                   "replacedBy": None, "source": "log", "citation": "log.jsonl#L7",
                   "snippet": "webhooks…", "score": 0.123457, "textScore": 0.5}
    assert out["mode"] == "keyword"
    assert out["fallback"] == {"reason": "semantic search is turned off"}
    assert "window" not in out
    assert "restricted" not in out


def test_a_filter_hit_has_no_text_score_and_long_text_is_cut() -> None:
    long = {**ENTRY, "content": "x" * (RESULT_TEXT_CHARS + 10), "detail": "short"}
    [hit] = wire(search_result(Answer("filter", [EntryHit(long, 1, "e00000000002", 1.0, "x")])))[
        "results"]
    assert "textScore" not in hit
    assert "vectorScore" not in hit
    assert len(hit["content"]) == RESULT_TEXT_CHARS
    assert hit["contentTruncated"] is True
    assert "detailTruncated" not in hit
    assert hit["replacedBy"] == "e00000000002"


def test_memory_file_hits_cite_their_lines() -> None:
    hits = [ChunkHit("MEMORY.md", 3, 3, 0.5, "a", 0.25), ChunkHit("memory/t.md", 1, 9, 0.4, "b",
                                                                     0.2, semantic=0.61)]
    results = wire(search_result(Answer("hybrid", list(hits))))
    one, many = results["results"]
    assert (one["citation"], one["source"], one["startLine"]) == ("MEMORY.md#L3", "memory", 3)
    assert "vectorScore" not in one
    assert (many["citation"], many["vectorScore"]) == ("memory/t.md#L1-L9", 0.61)


def test_restricted_and_renamed() -> None:
    assert restricted("group chat: others can read it").wire() == {
        "results": [], "mode": "restricted",
        "restricted": {"reason": "group chat: others can read it"}}
    renamed = SubjectRenamed(from_="a", to="b", merged=False, entries_rewritten=2,
                             subject=SubjectInfo(slug="b", display="B", type="project"))
    assert renamed.wire() == {"from": "a", "to": "b", "merged": False, "entriesRewritten": 2,
                              "subject": {"slug": "b", "display": "B", "type": "project"}}
    part = TextSlice.model_validate({"path": "session:s", "text": "", "from": 1, "lines": 0,
                                     "totalLines": 0, "truncated": False})
    assert part.wire()["from"] == 1


_text = st.text(max_size=30)
_long = st.integers(RESULT_TEXT_CHARS - 1, RESULT_TEXT_CHARS + 2).map(lambda n: "y" * n)
_score = st.floats(0.0, 1.0)
_maybe = st.none() | _text | _long


@st.composite
def _entry_hits(draw: st.DrawFn) -> EntryHit:
    entry = {"id": draw(st.text("abcXYZ019_-", min_size=12, max_size=12)),
             "timestamp": draw(_text), "type": draw(st.sampled_from(
                 ["task", "fact", "decision", "question", "handoff"])),
             "content": draw(_text | _long), "status": draw(st.none() | _text),
             "detail": draw(_maybe), "subject": draw(st.none() | _text),
             "replaces": draw(st.none() | _text), "session": draw(_text)}
    return EntryHit(entry, draw(st.integers(1, 10**7)), draw(st.none() | _text), draw(_score),
                    draw(_text), draw(st.none() | _score), draw(st.none() | _score))


_chunk_hits = st.builds(ChunkHit, _text, st.integers(1, 99), st.integers(1, 99), _score, _text,
                        _score, st.none() | _score)


@pytest.mark.slow
@settings(max_examples=300)
@given(hits=st.lists(_entry_hits() | _chunk_hits, max_size=12),
       mode=st.sampled_from(["hybrid", "keyword", "filter"]), fallback=st.none() | _text)
def test_search_wire_is_the_models_wire_form(hits: list[Any], mode: Any,
                                             fallback: str | None) -> None:
    answer = Answer(mode, hits, fallback)
    fast, models = search_wire(answer), search_result(answer).wire()
    assert fast == models
    assert [list(r) for r in fast["results"]] == [list(r) for r in models["results"]], \
        "the same keys in the same order"
