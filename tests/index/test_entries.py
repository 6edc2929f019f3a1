"""index/entries.py (and keyword search through search/engine.py): filters,
keyword search, entry chains, counts.

Covers: exact structured filters (type, subject, status, session, inclusive since/until, their
combinations); replaced entries hidden unless asked for; newest first without a query; keyword
ranking (content weighs more than detail, all words before some words); queries holding FTS5
syntax never raise and are searched as text; snippets taken from the entry's text; get_entry's
replacement chain both ways; counts, invalid lines and per-subject stats.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import entry, line
from tests.oracles import search_result
from zettelclaw.home import Home
from zettelclaw.index import entries as query
from zettelclaw.index.database import Index
from zettelclaw.index.entries import Filters
from zettelclaw.index.ingest import Ingester
from zettelclaw.index.terms import TermIndex
from zettelclaw.log.schema import parse_timestamp
from zettelclaw.search import snippets
from zettelclaw.search.engine import Engine
from zettelclaw.search.query import Request

Build = Callable[..., Index]


@pytest.fixture
def build(home: Home, write_log: Callable[..., Any]) -> Iterator[Build]:
    """Append entries (or raw lines) to the log and return the caught-up index."""
    index = Index(home.index)
    ingester = Ingester(index, home.log)
    terms = TermIndex(home.terms)

    def make(*items: dict[str, Any] | bytes) -> Index:
        write_log(*items)
        with terms.updating(index):
            ingester.catch_up()
        return index

    yield make
    index.close()


def search(index: Index, text: str | None = None, limit: int = 100,
           **filters: Any) -> list[dict[str, Any]]:
    """Through the engine (filters alone: entries.filter_entries), as memory.search answers."""
    engine = Engine(index, TermIndex(index.path.parent / "terms"), None, pool=1000)
    answer = engine.search(Request(text, Filters(**filters), limit), time.time())
    results: list[dict[str, Any]] = search_result(answer).wire()["results"]
    return results


def found(results: list[dict[str, Any]]) -> list[str]:
    return [r["id"] for r in results]


def ts(value: str) -> float:
    return parse_timestamp(value).timestamp()


# -- structured filters --------------------------------------------------------------------


@pytest.fixture
def sample(build: Build) -> tuple[Index, dict[str, dict[str, Any]]]:
    e = {
        "fact1": entry("fact", "first fact", subject="auth-migration", session="s1",
                       timestamp="2026-02-20T10:00:00Z"),
        "task_open": entry("task", "open task", subject="auth-migration", session="s2",
                           timestamp="2026-02-21T10:00:00Z"),
        "task_done": entry("task", "done task", status="done", subject="whisper-stt",
                           session="s1", timestamp="2026-02-22T10:00:00Z"),
        "decision": entry("decision", "a decision", session="s2",
                          timestamp="2026-02-23T10:00:00Z"),
        "question": entry("question", "a question", subject="whisper-stt", session="s1",
                          timestamp="2026-02-24T10:00:00Z"),
    }
    e["fact2"] = entry("fact", "corrected fact", subject="auth-migration", session="s2",
                       replaces=e["fact1"]["id"], timestamp="2026-02-25T10:00:00Z")
    index = build(*e.values())
    return index, e


def names(results: list[dict[str, Any]], e: dict[str, dict[str, Any]]) -> list[str]:
    by_id = {v["id"]: k for k, v in e.items()}
    return [by_id[r["id"]] for r in results]


def test_no_filters_lists_current_entries_newest_first(sample: Any) -> None:
    index, e = sample
    assert names(search(index), e) == ["fact2", "question", "decision", "task_done",
                                       "task_open"]


def test_limit_keeps_the_newest(sample: Any) -> None:
    index, e = sample
    assert names(search(index, limit=2), e) == ["fact2", "question"]


@pytest.mark.parametrize(("filters", "expected"), [
    ({"type": "task"}, ["task_done", "task_open"]),
    ({"type": "decision"}, ["decision"]),
    ({"type": "handoff"}, []),
    ({"subject": "whisper-stt"}, ["question", "task_done"]),
    ({"subject": "auth"}, []),  # exact, not a prefix
    ({"status": "open"}, ["task_open"]),
    ({"status": "done"}, ["task_done"]),
    ({"session": "s1"}, ["question", "task_done"]),
    ({"session": "s"}, []),
    ({"type": "task", "subject": "auth-migration"}, ["task_open"]),
    ({"type": "task", "session": "s1", "status": "open"}, []),
    ({"subject": "auth-migration", "session": "s2"}, ["fact2", "task_open"]),
])
def test_structured_filters_are_exact(sample: Any, filters: dict[str, Any],
                                      expected: list[str]) -> None:
    index, e = sample
    assert names(search(index, **filters), e) == expected


def test_since_and_until_are_inclusive(sample: Any) -> None:
    index, e = sample
    since, until = ts(e["task_open"]["timestamp"]), ts(e["decision"]["timestamp"])
    assert names(search(index, since=since, until=until), e) == [
        "decision", "task_done", "task_open"]
    assert names(search(index, since=since + 1, until=until - 1), e) == ["task_done"]
    assert names(search(index, since=until, until=until), e) == ["decision"]
    assert names(search(index, since=ts("2026-03-01T00:00:00Z")), e) == []


def test_dates_combine_with_other_filters(sample: Any) -> None:
    index, e = sample
    assert names(search(index, session="s1", until=ts("2026-02-22T10:00:00Z")), e) == [
        "task_done"]
    assert names(search(index, session="s1", until=ts("2026-02-22T10:00:00Z"),
                        include_replaced=True), e) == ["task_done", "fact1"]


def test_timestamps_with_offsets_are_compared_as_instants(build: Build) -> None:
    early = entry(timestamp="2026-02-20T23:30:00+02:00")  # 21:30 UTC
    late = entry(timestamp="2026-02-20T22:00:00Z")
    index = build(early, late)
    assert found(search(index, since=ts("2026-02-20T21:45:00Z"))) == [late["id"]]
    assert found(search(index, until=ts("2026-02-20T21:30:00Z"))) == [early["id"]]


def test_replaced_entries_are_hidden_unless_asked_for(sample: Any) -> None:
    index, e = sample
    assert "fact1" not in names(search(index, type="fact"), e)
    shown = search(index, type="fact", include_replaced=True)
    assert names(shown, e) == ["fact2", "fact1"]
    assert shown[1]["replacedBy"] == e["fact2"]["id"]
    assert shown[0]["replacedBy"] is None


def test_a_filter_result_has_the_protocol_shape(sample: Any) -> None:
    index, e = sample
    [result] = search(index, type="decision")
    assert {k: result[k] for k in ("id", "type", "content", "session", "timestamp")} == {
        k: e["decision"][k] for k in ("id", "type", "content", "session", "timestamp")}
    assert result["path"] == e["decision"]["id"]
    assert result["line"] == 4
    assert result["source"] == "log"
    assert result["snippet"] == "a decision"
    assert result["subject"] is None
    assert result["replacedBy"] is None


def test_a_filter_snippet_is_the_content_clipped(build: Build) -> None:
    long = entry(content="word " * 200)
    index = build(long)
    [result] = search(index)
    assert len(result["snippet"]) == snippets.WIDTH
    assert result["snippet"].endswith("…")
    assert long["content"].startswith(result["snippet"][:-1])


# -- keyword search ------------------------------------------------------------------------


def test_a_match_in_content_and_detail_ranks_above_detail_only(build: Build) -> None:
    detail_only = entry(content="something about delivery", detail="the webhook failed")
    both = entry(content="the webhook delivery", detail="the webhook failed")
    unrelated = entry(content="nothing relevant here", detail="at all")
    index = build(detail_only, both, unrelated)
    assert found(search(index, "webhook")) == [both["id"], detail_only["id"]]


def test_a_match_in_content_ranks_above_a_match_in_detail(build: Build) -> None:
    in_detail = entry(content="retry policy for delivery", detail="the webhook path")
    in_content = entry(content="retry policy for webhook", detail="the delivery path")
    # other entries keep "webhook" rare, so that bm25 gives it weight (and scores differ)
    index = build(in_detail, in_content, *(entry(content=f"filler {n}") for n in range(4)))
    results = search(index, "webhook")
    assert found(results) == [in_content["id"], in_detail["id"]]
    assert results[0]["score"] > results[1]["score"] > 0


def test_entries_with_every_word_come_before_those_with_some(build: Build) -> None:
    one_word_often = entry(content="webhook webhook webhook webhook")
    other_word = entry(content="retry")
    both = entry(content="we changed the webhook retry schedule after the incident")
    index = build(one_word_often, other_word, both)
    results = search(index, "webhook retry")
    assert found(results)[0] == both["id"]
    assert set(found(results)[1:]) == {one_word_often["id"], other_word["id"]}
    assert len(results) == 3


def test_a_limit_keeps_the_all_words_matches_first(build: Build) -> None:
    some = [entry(content=f"webhook number {n}") for n in range(3)]
    both = entry(content="webhook retry")
    index = build(*some, both)
    assert found(search(index, "webhook retry", limit=1)) == [both["id"]]
    assert len(search(index, "webhook retry", limit=3)) == 3


def test_keyword_search_honours_filters_and_replacement(build: Build) -> None:
    old = entry("decision", "webhook retries are synchronous", session="s1")
    new = entry("decision", "webhook retries go through a queue", replaces=old["id"],
                session="s2")
    fact = entry("fact", "webhook volume peaks at noon", session="s1")
    index = build(old, new, fact)
    assert set(found(search(index, "webhook"))) == {new["id"], fact["id"]}
    assert found(search(index, "webhook", type="decision")) == [new["id"]]
    assert found(search(index, "webhook", session="s1")) == [fact["id"]]
    assert set(found(search(index, "webhook", type="decision", include_replaced=True))) == {
        old["id"], new["id"]}
    assert found(search(index, "synchronous")) == []


def test_common_words_are_not_required(build: Build) -> None:
    target = entry("decision", "Queue-based retries for webhook delivery")
    index = build(target, entry(content="what the team said about lunch"))
    assert found(search(index, "what did we decide about the webhook")) == [target["id"]]


def test_stemming_and_diacritics(build: Build) -> None:
    stemmed = entry(content="we decided on retries")
    accented = entry(content="meeting at the café")
    index = build(stemmed, accented)
    assert found(search(index, "decide")) == [stemmed["id"]]
    assert found(search(index, "cafe")) == [accented["id"]]


@pytest.mark.parametrize("text", ["", "   ", "!!! ???", "-- ** ()", '"'])
def test_a_query_without_words_finds_nothing(build: Build, text: str) -> None:
    index = build(entry(content="something"), entry(content="!!! ???"))
    assert search(index, text) == []


FTS_SYNTAX = [
    '"unbalanced quote', 'a "quoted phrase" b', "'single'", "AND", "OR", "NOT", "a AND",
    "OR b", "webhook NOT retry", "NEAR(webhook retry, 2)", "NEAR", "webhook*", "*", "^webhook",
    "content:webhook", "detail:webhook", "entries_fts:webhook", "rank:1", "(webhook",
    "webhook)", "((()))", "{content detail}: webhook", "- webhook", "+webhook", "webhook:",
    ":", "a:b:c", "\\", "\x00", "日本語", "émigré naïve", "emoji 🎉 webhook", "ﬁle", "İstanbul",
    "Straße", "a" * 2000, "webhook " * 300,
]


@pytest.mark.parametrize("text", FTS_SYNTAX)
def test_fts_syntax_in_a_query_never_raises(build: Build, text: str) -> None:
    index = build(entry(content="webhook retry policy", detail="content and detail"))
    results = search(index, text)
    assert isinstance(results, list)


def test_a_column_filter_is_searched_as_words(build: Build) -> None:
    in_content = entry(content="webhook retry policy")
    index = build(in_content)
    # obeyed, "detail:webhook" would look in detail only, and find nothing
    assert found(search(index, "detail:webhook")) == [in_content["id"]]
    # obeyed, NOT would exclude the entry
    assert found(search(index, "webhook NOT retry")) == [in_content["id"]]
    # obeyed, a NEAR group would need the words close together; as words, any entry with one
    assert found(search(index, "NEAR(policy webhook)")) == [in_content["id"]]


def test_operator_words_are_searched_for_as_words(build: Build) -> None:
    near = entry(content="the office is near the station")
    index = build(near, entry(content="unrelated"))
    assert found(search(index, "NEAR")) == [near["id"]]


@pytest.fixture(scope="module")
def shared_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    """One small index for the property below (hypothesis reuses it across examples)."""
    root = tmp_path_factory.mktemp("query")
    log = root / "log.jsonl"
    log.write_bytes(b"".join(line(entry(content=c, detail=d)) for c, d in [
        ("webhook retry policy", "content and detail"),
        ("NEAR AND OR NOT", "column:term ^ * ( )"),
        ("日本語 émigré 🎉", None),
    ]))
    index = Index(root / "index.sqlite")
    Ingester(index, log).catch_up()
    yield index
    index.close()


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=60))
def test_any_text_is_a_safe_query(shared_index: Index, text: str) -> None:
    assert isinstance(search(shared_index, text), list)


def test_snippets_come_from_the_text(build: Build) -> None:
    entries = [
        entry(content="The webhook retries cap at three attempts with backoff",
              detail="Synchronous retries cascaded under load in February"),
        entry(content="Unrelated words first, " + "filler " * 60 + "then the webhook at last"),
        entry(content="Nothing here", detail="but the detail mentions a webhook"),
    ]
    index = build(*entries)
    results = search(index, "webhook")
    assert len(results) == 3
    for result in results:
        original = next(e for e in entries if e["id"] == result["id"])
        text = result["snippet"].strip("…")
        assert text
        assert text in original["content"] or text in original.get("detail", "")
        assert "webhook" in text.lower()
    long = next(r for r in results if r["id"] == entries[1]["id"])
    assert len(long["snippet"]) < len(entries[1]["content"])
    assert long["snippet"].startswith("…")


# -- get_entry -----------------------------------------------------------------------------


def test_get_entry_returns_the_chain_both_ways(build: Build) -> None:
    a = entry("decision", "version one")
    b = entry("decision", "version two", replaces=a["id"])
    other = entry()
    c = entry("decision", "version three", replaces=b["id"], detail="why it changed")
    index = build(a, b, other, c)
    with index.read() as conn:
        got_a = query.get_entry(conn, a["id"])
        got_b = query.get_entry(conn, b["id"])
        got_c = query.get_entry(conn, c["id"])
        got_other = query.get_entry(conn, other["id"])
    assert got_a is not None
    assert got_b is not None
    assert got_c is not None

    def chain(got: query.Chain) -> tuple[Any, ...]:
        return got.entry, got.line, got.current, got.replaces, got.replaced_by

    assert chain(got_b) == (b, 2, False, [a], [c])
    assert chain(got_a) == (a, 1, False, [], [b, c])
    assert chain(got_c) == (c, 4, True, [b, a], [])
    assert (got_a.newest, got_b.newest, got_c.newest) == (c, c, c)
    assert got_other is not None
    assert (got_other.replaces, got_other.replaced_by, got_other.current) == ([], [], True)
    assert got_other.newest == other


def test_get_entry_keeps_field_order_and_leaves_absent_fields_out(build: Build) -> None:
    task = entry("task", "write the backfill script", detail="47 jobs",
                 subject="auth-migration")
    index = build(task)
    with index.read() as conn:
        got = query.get_entry(conn, task["id"])
    assert got is not None
    assert list(got.entry) == ["id", "timestamp", "type", "content", "status", "detail",
                                  "subject", "session"]


def test_when_two_entries_replace_one_the_later_wins(build: Build) -> None:
    a = entry(content="original")
    b = entry(content="first correction", replaces=a["id"])
    c = entry(content="second correction", replaces=a["id"])
    index = build(a, b, c)
    with index.read() as conn:
        got_a = query.get_entry(conn, a["id"])
        got_b = query.get_entry(conn, b["id"])
    assert got_a is not None
    assert got_b is not None
    assert got_a.replaced_by == [c]
    assert not got_b.current  # a fork: the later correction is the one shown
    assert got_b.replaced_by == [c]
    assert got_b.replaces == [a]
    assert set(found(search(index))) == {c["id"]}


def test_a_fork_is_decided_by_time_not_by_log_order(build: Build) -> None:
    a = entry(content="original", timestamp="2026-02-20T10:00:00Z")
    later = entry(content="corrected later", replaces=a["id"], timestamp="2026-02-22T10:00:00Z")
    earlier = entry(content="corrected earlier", replaces=a["id"],
                    timestamp="2026-02-21T10:00:00Z")
    index = build(a, later, earlier)  # as a machine that took the later one first has it
    with index.read() as conn:
        got_a = query.get_entry(conn, a["id"])
        got_earlier = query.get_entry(conn, earlier["id"])
    assert got_a is not None
    assert got_earlier is not None
    assert got_a.replaced_by == [later]
    assert got_earlier.replaced_by == [later]
    assert set(found(search(index))) == {later["id"]}


@pytest.mark.parametrize("target", ["forward", "self", "nowhere"])
def test_a_dangling_replaces_hides_nothing(build: Build, target: str) -> None:
    later = entry()
    own = entry()
    pointer = {"forward": later["id"], "self": own["id"], "nowhere": "zzzzzzzzzzzz"}[target]
    own["replaces"] = pointer
    index = build(own, later)
    with index.read() as conn:
        got = query.get_entry(conn, own["id"])
        got_later = query.get_entry(conn, later["id"])
    assert got is not None
    assert got_later is not None
    assert got.entry["replaces"] == pointer  # as written
    assert (got.current, got.replaces, got.replaced_by) == (True, [], [])
    assert got_later.current
    assert set(found(search(index))) == {own["id"], later["id"]}


def test_get_entry_of_an_unknown_id_is_none(build: Build) -> None:
    index = build(entry())
    with index.read() as conn:
        assert query.get_entry(conn, "zzzzzzzzzzzz") is None


# -- counts and stats ----------------------------------------------------------------------


def test_counts(build: Build) -> None:
    a = entry()
    index = build(
        a, entry("task"), b"junk\n", entry("task", status="done"), entry("decision"),
        entry(replaces=a["id"]), b'{"type": "fact"}\n', dict(a),
    )
    with index.read() as conn:
        counts = query.counts(conn)
        invalid = query.invalid_lines(conn, 2)
        every = query.invalid_lines(conn, 10)
    assert counts == query.Counts(total=5, by_type={"fact": 2, "task": 2, "decision": 1},
                                  replaced=1, invalid_lines=3)
    assert [i.line for i in invalid] == [3, 7]
    assert [i.line for i in every] == [3, 7, 8]
    assert invalid[0].excerpt == "junk"
    assert "duplicate id" in every[2].reason


def test_counts_of_an_empty_index(build: Build) -> None:
    index = build()
    with index.read() as conn:
        assert query.counts(conn) == query.Counts(total=0, by_type={}, replaced=0,
                                                  invalid_lines=0)


def test_subject_stats_count_current_entries_and_the_newest(build: Build) -> None:
    a1 = entry(subject="auth-migration", timestamp="2026-02-20T10:00:00Z")
    a2 = entry(subject="auth-migration", timestamp="2026-02-21T10:00:00Z")
    w1 = entry(subject="whisper-stt", timestamp="2026-02-22T10:00:00Z")
    a3 = entry(subject="auth-migration", timestamp="2026-02-23T10:00:00Z")
    # a newer entry, under another subject, replaces a3: auth-migration's newest is now a2
    moved = entry(subject="whisper-stt", replaces=a3["id"], timestamp="2026-02-24T10:00:00Z")
    index = build(a1, a2, w1, a3, moved, entry(timestamp="2026-02-25T10:00:00Z"))
    with index.read() as conn:
        stats = query.subject_stats(conn)
    assert stats == {"auth-migration": (2, "2026-02-21T10:00:00Z"),
                     "whisper-stt": (2, "2026-02-24T10:00:00Z")}
