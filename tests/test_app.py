"""app.py: the App that build_app makes, and its use cases (methods/) over real files.

Covers: the handoff context (picked up from appends made by hand, refreshed by newer handoffs,
only for private sessions, with the open tasks and current decisions of the handoff's session
only, never a replaced handoff); needs_sync; subjects auto-registered from the log; subject
renames (the log's subject fields only, the index, the registry, merges, unknown slugs);
subjects_add; get (ids, unknown ids, MEMORY.md, paths refused); status counts; search through
SearchParams (whole-day dates, filter and keyword modes).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.conftest import entry
from tests.direct import Direct
from tests.timing import scaled
from zettelclaw import lock
from zettelclaw.errors import (
    NotFoundError,
    PathNotAllowedError,
    SubjectExistsError,
    SubjectNotFoundError,
)
from zettelclaw.home import Home
from zettelclaw.index.database import Index
from zettelclaw.index.ingest import Ingester
from zettelclaw.protocol.params import (
    BeforePromptBuildParams,
    GetParams,
    SearchParams,
    SubjectsAddParams,
    SubjectsRenameParams,
)

Write = Callable[..., list[dict[str, Any]]]
MAIN = "agent:main:main"


@pytest.fixture
def memory(home: Home, workspace: Path) -> Iterator[Direct]:
    m = Direct.open(home, workspace)
    m.sync()
    yield m
    m.close()


def context(memory: Direct, key: str | None = MAIN, **ctx: Any) -> str | None:
    params = BeforePromptBuildParams.model_validate({"sessionKey": key, **ctx})
    return memory.handoff_context(params)


def search(memory: Direct, **params: Any) -> list[str]:
    result = memory.search(SearchParams.model_validate({"maxResults": 1000, **params}))
    return [r["id"] for r in result["results"]]


def registry(home: Home) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(home.subjects.read_text())
    return loaded


def log_entries(home: Home) -> list[dict[str, Any]]:
    out = []
    for raw in home.log.read_bytes().splitlines():
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def handoff(content: str, session: str = "s1", **fields: Any) -> dict[str, Any]:
    return entry("handoff", content, session=session, **fields)


# -- the handoff context -------------------------------------------------------------------


def test_a_handoff_appended_by_hand_is_picked_up_and_replaced_by_newer(
        memory: Direct, write_log: Write) -> None:
    assert context(memory) is None
    first = handoff("Retry logic done, backfill not started",
                    detail="Exponential backoff works in staging", session="abc12345",
                    timestamp="2026-02-20T15:30:00Z")
    write_log(first)
    memory.sync()
    text = context(memory)
    assert text is not None
    assert text.splitlines()[:4] == [
        "## Last Session Handoff",
        "Session: abc12345 (2026-02-20T15:30:00Z)",
        "Retry logic done, backfill not started",
        "Detail: Exponential backoff works in staging",
    ]

    write_log(entry(content="an unrelated fact"))
    memory.sync()
    assert context(memory) == text

    write_log(handoff("Backfill script written, canary next", session="def67890"))
    memory.sync()
    newer = context(memory)
    assert newer is not None
    assert "Backfill script written, canary next" in newer
    assert "Session: def67890" in newer
    assert "Retry logic done" not in newer


@pytest.mark.parametrize("ctx", [
    {"sessionKey": "agent:main:telegram:group:-1001234567890:topic:42"},
    {"sessionKey": "agent:main:discord:channel:123456:thread:987654"},
    {"sessionKey": "agent:main:cron:nightly:run:8821"},
    {"sessionKey": "agent:main:subagent:child"},
    {"sessionKey": "agent:main:hook:automation"},
    {"sessionKey": "agent:main:telegram:direct:123"},
    {"sessionKey": "agent:main:telegram:direct:123", "senderIsOwner": False},
    {"sessionKey": MAIN, "senderIsOwner": False},
    {"sessionKey": MAIN, "chatType": "group"},
    {"sessionKey": MAIN, "chatType": "channel", "senderIsOwner": True},
    {},
])
def test_no_handoff_outside_private_sessions(memory: Direct, write_log: Write,
                                             ctx: dict[str, Any]) -> None:
    write_log(handoff("private state of things", detail="secret detail"),
              entry("task", "a private task", session="s1"))
    memory.sync()
    assert context(memory) is not None  # the log holds a handoff
    params = BeforePromptBuildParams.model_validate(ctx)
    assert memory.handoff_context(params) is None


@pytest.mark.parametrize("ctx", [
    {"sessionKey": MAIN},
    {"sessionKey": MAIN, "chatType": "direct", "senderIsOwner": True},
    {"sessionKey": "agent:main:scratch-1"},
    {"sessionKey": "agent:main:telegram:direct:123", "senderIsOwner": True},
])
def test_a_handoff_in_private_sessions(memory: Direct, write_log: Write,
                                       ctx: dict[str, Any]) -> None:
    write_log(handoff("private state of things"))
    memory.sync()
    text = memory.handoff_context(BeforePromptBuildParams.model_validate(ctx))
    assert text is not None
    assert "private state of things" in text


def test_the_handoff_lists_its_sessions_open_tasks_and_current_decisions(
        memory: Direct, write_log: Write) -> None:
    open_task = entry("task", "write the backfill script", session="s1")
    done_task = entry("task", "set up staging", status="done", session="s1")
    closed = entry("task", "load test the queue", session="s1")
    closing = entry("task", "load test the queue", status="done", replaces=closed["id"],
                    session="s1")
    decision = entry("decision", "queue-based retries", detail="cascading failures",
                     session="s1")
    old_decision = entry("decision", "three retries", session="s1")
    new_decision = entry("decision", "five retries", replaces=old_decision["id"], session="s1")
    fact = entry("fact", "webhooks peak at noon", session="s1")
    other_task = entry("task", "another session's task", session="s2")
    other_decision = entry("decision", "another session's decision", session="s2")
    write_log(open_task, done_task, closed, other_task, closing, decision, old_decision,
              other_decision, new_decision, fact, handoff("where things stand", session="s1"))
    memory.sync()
    text = context(memory)
    assert text is not None
    for shown in (open_task, decision, new_decision):
        assert f"(id {shown['id']})" in text
    assert "(why: cascading failures)" in text
    for hidden in (done_task, closed, closing, old_decision, fact, other_task, other_decision):
        assert hidden["id"] not in text
        assert hidden["content"] not in text
    tasks_at = text.index("Open tasks from that session:")
    decisions_at = text.index("Decisions from that session:")
    assert tasks_at < text.index(open_task["id"]) < decisions_at < text.index(decision["id"])


def test_a_replaced_handoff_is_not_the_last_handoff(memory: Direct, write_log: Write) -> None:
    first = handoff("first handoff", session="s1")
    second = handoff("second handoff", session="s2")
    write_log(first, second, entry(content="the second handoff was wrong",
                                   replaces=second["id"]))
    memory.sync()
    text = context(memory)
    assert text is not None
    assert "first handoff" in text
    assert "second handoff" not in text

    write_log(handoff("first handoff, corrected", session="s3", replaces=first["id"]))
    memory.sync()
    text = context(memory)
    assert text is not None
    assert "first handoff, corrected" in text
    assert "Session: s3" in text


def test_the_handoff_survives_a_restart(home: Home, workspace: Path, write_log: Write) -> None:
    write_log(handoff("kept in the log"))
    first = Direct.open(home, workspace)
    first.sync()
    first.close()
    second = Direct.open(home, workspace)
    try:
        report = second.sync()
        assert report.entries == 0  # the index was kept
        text = context(second)
        assert text is not None
        assert "kept in the log" in text
    finally:
        second.close()


def test_needs_sync(memory: Direct, write_log: Write) -> None:
    assert not memory.needs_sync()
    write_log(entry())
    assert memory.needs_sync()
    memory.sync()
    assert not memory.needs_sync()
    write_log(b"not an entry\n")
    assert memory.needs_sync()
    memory.sync()
    assert not memory.needs_sync()


# -- subjects ------------------------------------------------------------------------------


def test_new_subjects_in_the_log_are_registered(memory: Direct, home: Home,
                                                write_log: Write) -> None:
    memory.subjects_add(SubjectsAddParams.model_validate(
        {"slug": "auth-migration", "display": "Auth (v2)", "type": "system"}))
    write_log(entry(subject="auth-migration"), entry(subject="whisper-stt"),
              entry(subject="max"), entry())
    memory.sync()
    assert registry(home) == {
        "auth-migration": {"display": "Auth (v2)", "type": "system"},
        "max": {"display": "Max", "type": "project"},
        "whisper-stt": {"display": "Whisper Stt", "type": "project"},
    }


def test_subjects_add(memory: Direct, home: Home) -> None:
    result = memory.subjects_add(SubjectsAddParams.model_validate({"slug": "max",
                                                                   "type": "person"}))
    assert result == {"subject": {"slug": "max", "display": "Max", "type": "person"}}
    assert registry(home) == {"max": {"display": "Max", "type": "person"}}
    with pytest.raises(SubjectExistsError):
        memory.subjects_add(SubjectsAddParams.model_validate({"slug": "max"}))
    listed = memory.subjects_list()["subjects"]
    assert listed == [{"slug": "max", "display": "Max", "type": "person", "registered": True,
                       "entries": 0, "lastEntry": None}]


@pytest.fixture
def renamable(memory: Direct, write_log: Write) -> dict[str, Any]:
    e = {
        "a": entry("decision", "queue retries for old-name", subject="old-name",
                   timestamp="2026-02-20T10:00:00Z"),
        "b": entry("fact", "old-name is mentioned here too", subject="other",
                   timestamp="2026-02-21T10:00:00Z"),
        "c": entry("task", "finish the old-name work", subject="old-name",
                   timestamp="2026-02-22T10:00:00Z"),
        "d": entry("fact", "no subject at all, about old-name",
                   timestamp="2026-02-23T10:00:00Z"),
    }
    write_log(e["a"], e["b"], b'{"subject": "old-name", "broken": true}\n', e["c"], e["d"])
    memory.sync()
    return e


def rename(memory: Direct, old: str, new: str) -> dict[str, Any]:
    return memory.subjects_rename(SubjectsRenameParams.model_validate({"from": old, "to": new}))


def test_rename_rewrites_only_the_subject_field(memory: Direct, home: Home,
                                               renamable: dict[str, Any]) -> None:
    before = home.log.read_bytes().splitlines()
    result = rename(memory, "old-name", "new-name")
    assert result == {"from": "old-name", "to": "new-name", "merged": False,
                      "entriesRewritten": 2,
                      "subject": {"slug": "new-name", "display": "New Name", "type": "project"}}

    after = home.log.read_bytes().splitlines()
    assert len(after) == len(before)
    assert after[2] == before[2]  # the invalid line is copied as it was
    by_id = {v["id"]: v for v in log_entries(home) if "id" in v}
    e = renamable
    assert by_id[e["a"]["id"]] == {**e["a"], "subject": "new-name"}
    assert by_id[e["c"]["id"]] == {**e["c"], "subject": "new-name"}
    assert by_id[e["b"]["id"]] == e["b"]
    assert by_id[e["d"]["id"]] == e["d"]
    assert b"old-name is mentioned here too" in home.log.read_bytes()


def test_rename_updates_the_index(memory: Direct, renamable: dict[str, Any]) -> None:
    e = renamable
    rename(memory, "old-name", "new-name")
    assert search(memory, subject="new-name") == [e["c"]["id"], e["a"]["id"]]
    assert search(memory, subject="old-name") == []
    assert search(memory, subject="other") == [e["b"]["id"]]
    got = memory.get(GetParams.model_validate({"path": e["a"]["id"]}))
    assert got["entry"]["subject"] == "new-name"
    assert set(search(memory, query="old-name")) == {v["id"] for v in e.values()}


def test_after_a_rename_the_index_reads_on_like_a_fresh_one(
        memory: Direct, home: Home, tmp_path: Path, renamable: dict[str, Any],
        write_log: Write) -> None:
    rename(memory, "old-name", "new-name")
    assert not memory.needs_sync()
    # newer than every renamable entry: a filter-only search lists newest first
    later = write_log(entry(subject="new-name", timestamp="2026-02-24T10:00:00Z"))
    report = memory.sync()
    assert not report.rebuilt
    assert report.entries == 1
    assert search(memory, subject="new-name")[0] == later[0]["id"]

    fresh = Index(tmp_path / "fresh.sqlite")
    try:
        Ingester(fresh, home.log).catch_up()
        rows = "SELECT * FROM entries ORDER BY line"
        with fresh.read() as conn, memory.index.read() as ours:
            assert [tuple(r) for r in ours.execute(rows)] == [
                tuple(r) for r in conn.execute(rows)]
            # terms_epoch names each index build: the two builds differ there only
            meta = "SELECT * FROM meta WHERE key != 'terms_epoch' ORDER BY key"
            assert [tuple(r) for r in ours.execute(meta)] == [
                tuple(r) for r in conn.execute(meta)]
    finally:
        fresh.close()


def test_rename_moves_the_registry_entry(memory: Direct, home: Home,
                                         renamable: dict[str, Any]) -> None:
    assert "old-name" in registry(home)
    rename(memory, "old-name", "new-name")
    reg = registry(home)
    assert "old-name" not in reg
    assert reg["new-name"] == {"display": "New Name", "type": "project"}


def test_rename_carries_a_custom_display_and_type(memory: Direct, home: Home,
                                                  write_log: Write) -> None:
    memory.subjects_add(SubjectsAddParams.model_validate(
        {"slug": "whisper", "display": "Whisper STT", "type": "system"}))
    write_log(entry(subject="whisper"))
    memory.sync()
    result = rename(memory, "whisper", "whisper-stt")
    assert result["subject"] == {"slug": "whisper-stt", "display": "Whisper STT",
                                 "type": "system"}
    assert registry(home) == {"whisper-stt": {"display": "Whisper STT", "type": "system"}}


def test_rename_onto_an_existing_subject_merges(memory: Direct, home: Home,
                                                renamable: dict[str, Any],
                                                write_log: Write) -> None:
    memory.subjects_add(SubjectsAddParams.model_validate(
        {"slug": "target", "display": "The Target", "type": "person"}))
    already = write_log(entry(subject="target", timestamp="2026-02-24T10:00:00Z"))
    memory.sync()
    result = rename(memory, "old-name", "target")
    assert result["merged"]
    assert result["entriesRewritten"] == 2
    assert result["subject"] == {"slug": "target", "display": "The Target", "type": "person"}
    reg = registry(home)
    assert "old-name" not in reg
    assert reg["target"] == {"display": "The Target", "type": "person"}
    e = renamable
    assert search(memory, subject="target") == [already[0]["id"], e["c"]["id"], e["a"]["id"]]


def test_rename_of_a_registered_subject_without_entries(memory: Direct, home: Home) -> None:
    memory.subjects_add(SubjectsAddParams.model_validate({"slug": "idea"}))
    size = home.log.stat().st_size
    result = rename(memory, "idea", "big-idea")
    assert result["entriesRewritten"] == 0
    assert registry(home) == {"big-idea": {"display": "Big Idea", "type": "project"}}
    assert home.log.stat().st_size == size


def test_rename_of_an_unknown_subject(memory: Direct, home: Home,
                                      renamable: dict[str, Any]) -> None:
    log = home.log.read_bytes()
    subjects = home.subjects.read_bytes()
    with pytest.raises(SubjectNotFoundError):
        rename(memory, "never-seen", "whatever")
    assert home.log.read_bytes() == log
    assert home.subjects.read_bytes() == subjects


def test_rename_refreshes_the_handoff(memory: Direct, write_log: Write) -> None:
    write_log(handoff("state of things", subject="old-name"))
    memory.sync()
    before = context(memory)
    assert before is not None
    assert "subject: old-name" in before
    rename(memory, "old-name", "new-name")
    after = context(memory)
    assert after is not None
    assert "subject: new-name" in after


# -- get -----------------------------------------------------------------------------------


def test_get_an_entry_with_its_chain(memory: Direct, write_log: Write) -> None:
    old = entry("decision", "three retries")
    new = entry("decision", "five retries", replaces=old["id"])
    write_log(old, new)
    memory.sync()
    got = memory.get(GetParams.model_validate({"path": old["id"]}))
    assert got == {"entry": old, "line": 1, "current": False, "replaces": [],
                   "replacedBy": [new]}
    got = memory.get(GetParams.model_validate({"path": f"  {new['id']} "}))
    assert got["replaces"] == [old]


def test_get_an_unknown_id(memory: Direct) -> None:
    with pytest.raises(NotFoundError):
        memory.get(GetParams.model_validate({"path": "zzzzzzzzzzzz"}))


def test_get_memory_md(memory: Direct, workspace: Path) -> None:
    (workspace / "MEMORY.md").write_text("# Briefing\n## Active\n- auth\n")
    got = memory.get(GetParams.model_validate({"path": "MEMORY.md", "from": 2, "lines": 1}))
    assert got == {"path": "MEMORY.md", "text": "## Active\n", "from": 2, "lines": 1,
                   "totalLines": 3, "truncated": False}


def test_get_refuses_other_paths(memory: Direct, home: Home) -> None:
    with pytest.raises(PathNotAllowedError):
        memory.get(GetParams.model_validate({"path": str(home.log)}))
    with pytest.raises(PathNotAllowedError):
        memory.get(GetParams.model_validate({"path": "../home/subjects.json"}))
    with pytest.raises(NotFoundError):
        memory.get(GetParams.model_validate({"path": "memory/not-written-yet.md"}))


# -- status --------------------------------------------------------------------------------


def test_status_counts(memory: Direct, home: Home, write_log: Write) -> None:
    a = entry()
    write_log(a, entry("task"), entry("task", status="done"), entry("decision"),
              b"not json\n", entry(replaces=a["id"]), dict(a), handoff("h"))
    memory.sync()
    status = memory.status()
    assert status["entries"] == {"total": 6,
                                 "byType": {"fact": 2, "task": 2, "decision": 1, "handoff": 1},
                                 "replaced": 1, "current": 5}
    assert status["invalidLines"]["count"] == 2
    assert [i["line"] for i in status["invalidLines"]["first"]] == [5, 7]
    assert "duplicate id" in status["invalidLines"]["first"][1]["reason"]
    assert status["log"] == {"bytes": home.log.stat().st_size, "lines": 8,
                             "unreadTailBytes": 0}
    assert status["index"]["indexing"] is False

    write_log(entry())
    assert memory.status()["log"]["unreadTailBytes"] == home.log.stat().st_size - (
        status["log"]["bytes"])


def test_status_of_an_empty_log(memory: Direct) -> None:
    status = memory.status()
    assert status["entries"] == {"total": 0, "byType": {}, "replaced": 0, "current": 0}
    assert status["invalidLines"] == {"count": 0, "first": []}
    assert status["subjects"] == 0


# -- search --------------------------------------------------------------------------------


@pytest.fixture
def days(memory: Direct, write_log: Write) -> dict[str, str]:
    stamps = {
        "before": "2026-02-19T23:59:59Z",
        "start": "2026-02-20T00:00:00Z",
        "end": "2026-02-20T23:59:59.999Z",
        "after": "2026-02-21T00:00:00Z",
    }
    ids = {}
    for name, stamp in stamps.items():
        [written] = write_log(entry(content=f"webhook {name}", timestamp=stamp))
        ids[name] = written["id"]
    memory.sync()
    return ids


def test_dates_cover_the_whole_day(memory: Direct, days: dict[str, str]) -> None:
    d = days
    assert search(memory, since="2026-02-20", until="2026-02-20") == [d["end"], d["start"]]
    assert search(memory, since="2026-02-20") == [d["after"], d["end"], d["start"]]
    assert search(memory, until="2026-02-20") == [d["end"], d["start"], d["before"]]
    assert search(memory, since="2026-02-21", until="2026-02-21") == [d["after"]]


def test_date_times_are_exact(memory: Direct, days: dict[str, str]) -> None:
    d = days
    assert search(memory, since="2026-02-20T00:00:00Z",
                  until="2026-02-20T00:00:00Z") == [d["start"]]
    assert search(memory, since="2026-02-20T12:00:00") == [d["after"], d["end"]]


def test_search_modes(memory: Direct, days: dict[str, str]) -> None:
    keyword = memory.search(SearchParams.model_validate({"query": "webhook start"}))
    assert keyword["mode"] == "keyword"
    assert keyword["results"][0]["id"] == days["start"]
    blank = memory.search(SearchParams.model_validate({"query": "   "}))
    assert blank["mode"] == "filter"
    assert len(blank["results"]) == 4
    limited = memory.search(SearchParams.model_validate({"maxResults": 2}))
    assert [r["id"] for r in limited["results"]] == [days["after"], days["end"]]


def test_search_includes_replaced_on_request(memory: Direct, write_log: Write) -> None:
    old = entry("decision", "three retries", subject="auth-migration")
    new = entry("decision", "five retries", subject="auth-migration", replaces=old["id"])
    write_log(old, new)
    memory.sync()
    assert search(memory, type="decision") == [new["id"]]
    assert search(memory, type="decision", includeReplaced=True) == [new["id"], old["id"]]
    assert search(memory, query="retries", subject="auth-migration") == [new["id"]]


def test_sync_never_waits_for_the_data_lock_while_holding_its_own(
        home: Home, workspace: Path, write_log: Any) -> None:
    """Lock order: the data lock first, then the sync lock. A background sync that registers a
    new subject must not hold the sync lock while it waits for the data lock, or it deadlocks
    with a writer that holds the data lock and syncs (extraction finishing a job)."""
    memory = Direct.open(home, workspace)
    write_log(entry(subject="brand-new-subject"))
    real = memory.ingester.catch_up
    inside, release = threading.Event(), threading.Event()

    def held_catch_up(progress: Any = None) -> Any:
        inside.set()
        release.wait(10)
        return real(progress)

    memory.ingester.catch_up = held_catch_up  # type: ignore[method-assign]
    background = threading.Thread(target=memory.sync)
    background.start()
    assert inside.wait(10)

    def writer() -> None:
        with lock.exclusive(home.lock, timeout=scaled(10)):
            release.set()
            memory.sync(locked=True)

    finishing = threading.Thread(target=writer)
    finishing.start()
    finishing.join(5)
    background.join(5)
    stuck = finishing.is_alive() or background.is_alive()
    release.set()
    finishing.join(60)
    background.join(60)
    memory.close()
    assert not stuck, "deadlock between the data lock and the sync lock"
    assert "brand-new-subject" in memory.subjects.load()
