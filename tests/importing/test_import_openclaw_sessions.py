# ruff: noqa: E501  (OpenClaw's table definitions, verbatim)
"""OpenClaw's past sessions, read from the gateway's own store: a SQLite file laid out as
OpenClaw 2026.9.6 lays it out (its tables' definitions, copied below and checked against the
installed OpenClaw when its cache is there), holding transcript events recorded from a real
gateway (clients/openclaw/test/fixtures/payloads.json); and the older JSONL layout."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.direct import open_app
from zettelclaw.app import App
from zettelclaw.extraction.intake import HookCall
from zettelclaw.home import Home
from zettelclaw.importing import importer, registry, rollback, zstd
from zettelclaw.importing.items import Conversation, Item, Problem
from zettelclaw.importing.sources import openclaw_sessions

PAYLOADS = Path(__file__).resolve().parents[2] / "clients/openclaw/test/fixtures/payloads.json"
RECORDED = json.loads(PAYLOADS.read_text())
MAIN_EVENTS: list[dict[str, Any]] = RECORDED["transcript.agent:main:main"]["events"]
MAIN_SID = MAIN_EVENTS[0]["id"]

# OpenClaw 2026.9.6's definitions of the tables read (src/state/openclaw-agent-schema.ts)
TABLES = {
    "session_nodes": """CREATE TABLE IF NOT EXISTS session_nodes (
  session_key TEXT NOT NULL PRIMARY KEY,
  current_session_id TEXT NOT NULL,
  entry_json TEXT NOT NULL,
  legacy_acp_migration_json TEXT,
  entry_valid INTEGER NOT NULL DEFAULT 0 CHECK (entry_valid IN (-1, 0, 1)),
  updated_at INTEGER NOT NULL,
  status TEXT CHECK (status IS NULL OR status IN ('running', 'done', 'failed', 'killed', 'timeout')),
  created_at INTEGER,
  created_via TEXT CHECK (created_via IS NULL OR created_via IN ('operator', 'spawn', 'channel', 'cron', 'talk', 'run', 'plugin', 'internal')),
  created_actor_type TEXT CHECK (created_actor_type IS NULL OR created_actor_type IN ('human', 'agent', 'system')),
  created_actor_id TEXT,
  owner_actor_type TEXT,
  owner_actor_id TEXT,
  owner_assigned_by_type TEXT,
  owner_assigned_by_id TEXT,
  owner_assigned_at INTEGER,
  project_id TEXT,
  parent_session_key TEXT,
  spawned_by TEXT,
  fork_source_session_key TEXT,
  fork_source_session_id TEXT,
  fork_source_entry_id TEXT,
  label TEXT,
  display_name TEXT,
  category TEXT,
  icon TEXT,
  pinned_at INTEGER,
  archived_at INTEGER,
  last_read_at INTEGER,
  last_interaction_at INTEGER,
  last_activity_at INTEGER
) STRICT;""",
    "session_windows": """CREATE TABLE IF NOT EXISTS session_windows (
  session_id TEXT NOT NULL PRIMARY KEY,
  session_key TEXT NOT NULL,
  previous_session_id TEXT,
  reason TEXT CHECK (reason IS NULL OR reason IN ('initial', 'reset', 'rollover', 'fork', 'rewind', 'switch', 'recovery', 'compaction')),
  session_scope TEXT NOT NULL DEFAULT 'conversation' CHECK (session_scope IN ('conversation', 'shared-main', 'group', 'channel')),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  transcript_updated_at INTEGER DEFAULT NULL,
  transcript_observed_at INTEGER DEFAULT NULL,
  session_entry_provenance INTEGER NOT NULL DEFAULT 0 CHECK (session_entry_provenance IN (0, 1)),
  acp_owned INTEGER NOT NULL DEFAULT 0 CHECK (acp_owned IN (0, 1)),
  plugin_owner_id TEXT,
  hook_external_content_source TEXT CHECK (hook_external_content_source IS NULL OR hook_external_content_source IN ('gmail', 'webhook')),
  started_at INTEGER,
  ended_at INTEGER,
  status TEXT CHECK (status IS NULL OR status IN ('running', 'done', 'failed', 'killed', 'timeout')),
  chat_type TEXT CHECK (chat_type IS NULL OR chat_type IN ('direct', 'group', 'channel')),
  channel TEXT,
  account_id TEXT,
  primary_conversation_id TEXT,
  model_provider TEXT,
  model TEXT,
  agent_harness_id TEXT,
  parent_session_key TEXT,
  spawned_by TEXT,
  display_name TEXT,
  FOREIGN KEY (session_key) REFERENCES session_nodes(session_key) ON DELETE CASCADE,
  FOREIGN KEY (primary_conversation_id) REFERENCES conversations(conversation_id) ON DELETE SET NULL
) STRICT;""",
    "transcript_events": """CREATE TABLE IF NOT EXISTS transcript_events (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event_json TEXT,
  created_at INTEGER NOT NULL,
  event_zstd BLOB,
  event_utf8_bytes INTEGER CHECK (event_utf8_bytes IS NULL OR event_utf8_bytes >= 0),
  navigation_json TEXT,
  PRIMARY KEY (session_id, seq),
  FOREIGN KEY (session_id) REFERENCES "session_windows"(session_id) ON DELETE CASCADE,
  CHECK (
    (event_json IS NOT NULL AND event_zstd IS NULL)
    OR (
      event_json IS NULL AND event_zstd IS NOT NULL
      AND event_utf8_bytes IS NOT NULL
      AND event_utf8_bytes BETWEEN 1 AND 4194304
      AND length(event_zstd) BETWEEN 1 AND 4194304
      AND navigation_json IS NOT NULL
    )
  ),
  CHECK (
    navigation_json IS NULL OR CASE WHEN json_valid(navigation_json) THEN coalesce(
      octet_length(navigation_json) <= 16384
      AND json_type(navigation_json, '$.version') = 'integer'
      AND json_extract(navigation_json, '$.version') = 1
      AND json_type(navigation_json, '$.report') = 'object'
      AND json_extract(navigation_json, '$.report.kind') IN ('canonical', 'leaf', 'link', 'ignored')
      AND json_type(navigation_json, '$.navigation') = 'object'
      AND json_type(navigation_json, '$.reset') = 'object'
      AND json_type(navigation_json, '$.model') = 'object'
      AND json_type(navigation_json, '$.modelBytes') = 'integer'
      AND json_extract(navigation_json, '$.modelBytes') BETWEEN 0 AND 4194304
      AND json_type(navigation_json, '$.modelWithoutCheckpointBytes') = 'integer'
      AND json_extract(navigation_json, '$.modelWithoutCheckpointBytes') BETWEEN 0 AND 4194304
      AND json_type(navigation_json, '$.withoutCustomDataBytes') = 'integer'
      AND json_extract(navigation_json, '$.withoutCustomDataBytes') BETWEEN 0 AND 4194304,
      0) ELSE 0 END
  )
) STRICT;""",
    "session_transcript_cold_archives": """CREATE TABLE IF NOT EXISTS session_transcript_cold_archives (
  session_id TEXT NOT NULL PRIMARY KEY,
  generation TEXT NOT NULL,
  archive_name TEXT NOT NULL UNIQUE,
  archive_sha256 TEXT NOT NULL CHECK (length(archive_sha256) = 64),
  event_count INTEGER NOT NULL CHECK (event_count >= 1),
  raw_bytes INTEGER NOT NULL CHECK (raw_bytes >= 0),
  archive_bytes INTEGER NOT NULL CHECK (archive_bytes >= 0),
  last_seq INTEGER NOT NULL,
  archived_at INTEGER NOT NULL,
  storage TEXT NOT NULL CHECK (storage IN ('file', 'sqlite')),
  archive_blob BLOB,
  FOREIGN KEY (session_id) REFERENCES "session_windows"(session_id) ON DELETE CASCADE,
  CHECK (length(archive_name) > 0 AND archive_name NOT IN ('.', '..') AND archive_name NOT LIKE '%/%' AND archive_name NOT LIKE '%\\%'),
  CHECK ((storage = 'file' AND archive_blob IS NULL) OR (storage = 'sqlite' AND archive_blob IS NOT NULL))
) STRICT;""",
}
NAVIGATION = json.dumps({"version": 1, "report": {"kind": "leaf"}, "navigation": {},
                         "reset": {}, "model": {}, "modelBytes": 0,
                         "modelWithoutCheckpointBytes": 0, "withoutCustomDataBytes": 0})


def event(role: str, text: str, ms: int, owner: bool | None = True) -> dict[str, Any]:
    message: dict[str, Any] = {"role": role, "timestamp": ms,
                               "content": text if role == "user"
                               else [{"type": "text", "text": text}]}
    if role == "user" and owner is not None:
        message["__openclaw"] = {"senderIsOwner": owner}
    return {"type": "message", "id": f"e{ms}", "timestamp": "2026-01-01T00:00:00.000Z",
            "message": message}


# (session key, session id, channel, events) as a gateway keeps them
SESSIONS: list[tuple[str, str, str | None, list[dict[str, Any]]]] = [
    ("agent:main:main", MAIN_SID, None, MAIN_EVENTS),
    ("agent:main:telegram:direct:333", "5a9e7387-35ba-4c46-8f60-20bfaa3c3df2", "telegram",
     [event("user", "remind me: the boiler is serviced in May", 1_767_000_000_000),
      event("assistant", "Noted, May.", 1_767_000_001_000)]),
    ("agent:main:cron:f1c14c21-7c03-4148-9f26-8a98334c08a1",
     "bbf5868a-871d-4692-93f9-98df7078e836", None,
     [event("user", "run the nightly report", 1_767_100_000_000, None),
      event("assistant", "Report done.", 1_767_100_001_000)]),
    ("agent:main:telegram:group:-1001234567890", "961d4cf8-f560-425a-9c8f-9495f08971fc",
     "telegram", [event("user", "hi all, lunch at noon?", 1_767_200_000_000, False)]),
]


def compress(data: bytes) -> bytes:
    """zstd, as OpenClaw's Node writes it (the zstd command, or a Python zstd module)."""
    command = shutil.which("zstd")
    if command is None:
        pytest.skip("no zstd command to make a compressed event with")
    return subprocess.run([command, "-c", "-q", "--check"], input=data, capture_output=True,
                          check=True).stdout


def make_store(state: Path, agent: str = "main",
               sessions: list[tuple[str, str, str | None, list[dict[str, Any]]]] = SESSIONS,
               compressed: bool = False) -> Path:
    """The store; ``compressed``: each event of 1 KiB or more stored zstd-compressed, as
    OpenClaw stores it when its Node has zstd."""
    path = state / "agents" / agent / "agent" / "openclaw-agent.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    # newer SQLite has it built in (OpenClaw's, in Node); the reader, which only reads, never
    # needs it: its connection does not define it
    conn.create_function("octet_length", 1, lambda v: None if v is None else len(str(v).encode()),
                         deterministic=True)
    with conn:
        for ddl in TABLES.values():
            conn.execute(ddl)
        for n, (key, sid, channel, events) in enumerate(sessions):
            at = 1_767_000_000_000 + n
            conn.execute("INSERT INTO session_nodes (session_key, current_session_id, entry_json,"
                         " updated_at) VALUES (?, ?, ?, ?)",
                         (key, sid, json.dumps({"sessionId": sid, "updatedAt": at}), at))
            conn.execute("INSERT INTO session_windows (session_id, session_key, created_at,"
                         " updated_at, channel) VALUES (?, ?, ?, ?, ?)",
                         (sid, key, at, at, channel))
            for seq, value in enumerate(events):
                text = json.dumps(value)
                if compressed and len(text.encode()) >= 1024:
                    conn.execute("INSERT INTO transcript_events (session_id, seq, event_json,"
                                 " created_at, event_zstd, event_utf8_bytes, navigation_json)"
                                 " VALUES (?, ?, NULL, ?, ?, ?, ?)",
                                 (sid, seq, at, compress(text.encode()), len(text.encode()),
                                  NAVIGATION))
                else:
                    conn.execute("INSERT INTO transcript_events (session_id, seq, event_json,"
                                 " created_at) VALUES (?, ?, ?, ?)", (sid, seq, text, at))
    conn.close()
    return path


@pytest.fixture
def app(home: Home, workspace: Path) -> Iterator[App]:
    opened = open_app(home, workspace)
    yield opened
    opened.close()


def test_the_store_is_read_as_the_live_path_reads_a_transcript(tmp_path: Path) -> None:
    make_store(tmp_path / "state")
    items = list(openclaw_sessions.read(tmp_path / "state", agent="main"))
    conversations = {i.session_id: i for i in items if isinstance(i, Conversation)}
    main = conversations[MAIN_SID]
    assert main.session_key == "agent:main:main"
    assert main.source_id == f"openclaw:main:{MAIN_SID}"
    # the tool call's turn has no text: left out, as a hook's normalize leaves it out
    assert [m.text for m in main.messages][:3] == [
        "hello there, first turn", "FAKE_REPLY #1: I read 3 messages.",
        "second turn: we decided on Postgres"]
    assert main.messages[0].from_owner is True
    assert main.messages[1].from_owner is None
    assert conversations["5a9e7387-35ba-4c46-8f60-20bfaa3c3df2"].channel == "telegram"
    assert not [i for i in items if isinstance(i, Problem)]


def test_the_store_is_found_from_the_state_dir_the_agent_dir_or_the_file(tmp_path: Path
                                                                         ) -> None:
    file = make_store(tmp_path / "state", agent="work")
    for path in (tmp_path / "state", file.parent.parent, file):
        found = [i for i in openclaw_sessions.read(path, agent="work")
                 if isinstance(i, Conversation)]
        assert len(found) == 4, path
    (problem,) = openclaw_sessions.read(tmp_path / "state", agent="nobody")
    assert isinstance(problem, Problem)
    assert "agent 'nobody'" in problem.message


LONG = [event("user", "Here is the whole plan for the move, step by step: " + "pack the "
               "kitchen, label the boxes, book the van for Saturday. " * 30, 1_767_300_000_000),
        event("assistant", "Done: " + "the van is booked and the boxes are labelled. " * 30,
              1_767_300_001_000)]


def test_compressed_events_are_read(tmp_path: Path) -> None:
    make_store(tmp_path / "state", sessions=[("agent:main:main", "long-1", None, LONG)],
               compressed=True)
    conn = sqlite3.connect(tmp_path / "state/agents/main/agent/openclaw-agent.sqlite")
    assert conn.execute("SELECT count(*) FROM transcript_events WHERE event_json IS NULL"
                        ).fetchone() == (2,)  # both stored compressed, as OpenClaw would
    conn.close()
    (found,) = openclaw_sessions.read(tmp_path / "state")
    assert isinstance(found, Conversation)
    assert [m.text for m in found.messages] == [LONG[0]["message"]["content"].strip(),
                                                LONG[1]["message"]["content"][0]["text"].strip()]


def test_a_compressed_event_without_a_decoder_is_a_problem_naming_its_place(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_store(tmp_path / "state",
               sessions=[("agent:main:main", "long-1", None, [*LONG, *MAIN_EVENTS[1:3]])],
               compressed=True)
    monkeypatch.setattr(zstd, "decoder", lambda: None)
    items = list(openclaw_sessions.read(tmp_path / "state"))
    (problem,) = [i for i in items if isinstance(i, Problem)]
    assert "session long-1, event 1" in problem.origin
    assert "zstd" in problem.message
    (found,) = [i for i in items if isinstance(i, Conversation)]  # the rest of it is read
    assert [m.text for m in found.messages] == ["hello there, first turn",
                                                "FAKE_REPLY #1: I read 3 messages."]


def reset(event_id: str, reason: str, iso: str) -> dict[str, Any]:
    """A reset as OpenClaw 2026.9.6 records it: an event in the same session (seen in the real
    gateway's store, the e2e's import_gateway_sessions); the session id stays."""
    return {"type": "reset", "id": event_id, "parentId": "p", "timestamp": iso, "reason": reason}


# one session id through two resets (a `sessions.reset`, then a /new with its injected reply)
RESET_EVENTS = [
    event("user", "the launch code name is BLUEHERON", 1_767_400_000_000),
    event("assistant", "Noted.", 1_767_400_001_000),
    reset("4f9bae31", "reset", "2026-01-03T00:10:00.000Z"),
    event("user", "announce the launch on Friday", 1_767_400_700_000),
    event("assistant", "Friday it is.", 1_767_400_701_000),
    reset("fcd546f2", "new", "2026-01-03T00:20:00.000Z"),
    event("user", "/new", 1_767_401_300_000),
    event("assistant", "New session started.", 1_767_401_300_100),
    event("user", "the staging name is GREENFINCH", 1_767_401_400_000),
    event("assistant", "Staging: GREENFINCH.", 1_767_401_401_000),
]


def test_a_session_is_split_at_its_resets_as_the_live_path_extracted_it(
        tmp_path: Path, app: App) -> None:
    """The real gateway keeps one session id across resets: each reset's part is a
    conversation of its own (one extraction each, as live), not one transcript of months."""
    make_store(tmp_path / "state", sessions=[("agent:main:main", "sid-r", None, RESET_EVENTS)])
    found = [i for i in openclaw_sessions.read(tmp_path / "state")
             if isinstance(i, Conversation)]
    assert [[m.text for m in c.messages] for c in found] == [
        ["the launch code name is BLUEHERON", "Noted."],
        ["announce the launch on Friday", "Friday it is."],
        ["/new", "New session started.", "the staging name is GREENFINCH",
         "Staging: GREENFINCH."]]
    assert {c.session_id for c in found} == {"sid-r"}
    assert {c.session_key for c in found} == {"agent:main:main"}
    assert [c.source_id for c in found] == ["openclaw:main:sid-r", "openclaw:main:sid-r:4f9bae31",
                                            "openclaw:main:sid-r:fcd546f2"]
    result = importer.apply(app, importer.Source("openclaw", tmp_path / "state", "main"))
    assert result.conversations == 3
    assert [len(j.messages) for j in app.extraction.spool.jobs()] == [2, 2, 4]
    # the sweep sending the whole session after it: nothing new
    again = app.extraction.intake.accept(HookCall(trigger="sessionEnd", session_id="sid-r",
                                                  session_key="agent:main:main",
                                                  messages=RESET_EVENTS))
    assert again.skipped is not None
    assert again.skipped.startswith("nothing new")


def make_cold(store: Path, session_id: str, *, storage: str,
              hot: tuple[dict[str, Any], ...] = ()) -> Path:
    """Move the session's events into a cold archive as OpenClaw's cold storage does
    (``session.maintenance.coldStorage``, opt-in): zstd-compressed JSONL of a header and the
    event rows, in the database (``sqlite``) or in ``agents/<agent>/sessions/cold/`` (``file``);
    ``hot``: events written after it, back in ``transcript_events``."""
    import hashlib

    conn = sqlite3.connect(store)
    conn.create_function("octet_length", 1, lambda v: None if v is None else len(str(v).encode()),
                         deterministic=True)
    with conn:
        rows = conn.execute("SELECT seq, event_json, created_at FROM transcript_events WHERE "
                            "session_id = ? ORDER BY seq", (session_id,)).fetchall()
        lines = [{"kind": "header", "version": 1, "sessionId": session_id, "generation": "g1"}]
        lines += [{"kind": "event", "row": {"seq": q, "event_json": j, "created_at": c}}
                  for q, j, c in rows]
        lines.append({"kind": "identity", "row": {"event_id": "x", "seq": 0}})
        data = compress("".join(json.dumps(x) + "\n" for x in lines).encode())
        digest = hashlib.sha256(data).hexdigest()
        name = f"{digest}.jsonl.zst"
        if storage == "file":
            cold = store.parent.parent / "sessions" / "cold"
            cold.mkdir(parents=True)
            (cold / name).write_bytes(data)
        conn.execute("DELETE FROM transcript_events WHERE session_id = ?", (session_id,))
        conn.execute("INSERT INTO session_transcript_cold_archives VALUES "
                     "(?, 'g1', ?, ?, ?, ?, ?, ?, 1, ?, ?)",
                     (session_id, name, digest, len(rows), sum(len(r[1]) for r in rows),
                      len(data), rows[-1][0], storage, data if storage == "sqlite" else None))
        for n, value in enumerate(hot):
            conn.execute("INSERT INTO transcript_events (session_id, seq, event_json, created_at)"
                         " VALUES (?, ?, ?, 1)", (session_id, rows[-1][0] + 1 + n,
                                                  json.dumps(value)))
    conn.close()
    return store.parent.parent / "sessions" / "cold" / name


@pytest.mark.parametrize("storage", ["sqlite", "file"])
def test_a_session_in_cold_storage_is_read_from_its_archive(tmp_path: Path, storage: str
                                                            ) -> None:
    store = make_store(tmp_path / "state", sessions=[("agent:main:main", "sid-c", None,
                                                      RESET_EVENTS[:5])])
    later = [event("user", "and one more thing after it woke", 1_767_500_000_000),
             event("assistant", "Noted again.", 1_767_500_001_000)]
    make_cold(store, "sid-c", storage=storage, hot=tuple(later))
    items = list(openclaw_sessions.read(tmp_path / "state"))
    assert not [i for i in items if isinstance(i, Problem)]
    assert [[m.text for m in c.messages] for c in items if isinstance(c, Conversation)] == [
        ["the launch code name is BLUEHERON", "Noted."],
        ["announce the launch on Friday", "Friday it is.", "and one more thing after it woke",
         "Noted again."]]


def test_a_cold_archive_that_cannot_be_read_is_a_problem(tmp_path: Path) -> None:
    store = make_store(tmp_path / "state", sessions=[("agent:main:main", "sid-c", None,
                                                      RESET_EVENTS[:2])])
    make_cold(store, "sid-c", storage="file").unlink()
    (problem,) = openclaw_sessions.read(tmp_path / "state")
    assert isinstance(problem, Problem)
    assert "sid-c" in problem.origin
    assert "cold storage" in problem.message


def test_a_file_that_is_not_a_store_is_a_problem(tmp_path: Path) -> None:
    bogus = tmp_path / "x.sqlite"
    bogus.write_bytes(b"not a database at all" * 10)
    (problem,) = openclaw_sessions.read(bogus)
    assert isinstance(problem, Problem)
    assert "not an OpenClaw session store" in problem.message


def test_the_older_jsonl_layout(tmp_path: Path) -> None:
    sessions = tmp_path / "state" / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "sessions.json").write_text(json.dumps(
        {"agent:main:main": {"sessionId": MAIN_SID, "updatedAt": 1}}))
    (sessions / f"{MAIN_SID}.jsonl").write_bytes(
        b"".join(orjson.dumps(e) + b"\n" for e in MAIN_EVENTS) + b"{torn\n")
    (found,) = openclaw_sessions.read(tmp_path / "state")
    assert isinstance(found, Conversation)
    assert found.session_key == "agent:main:main"
    assert found.messages[0].text == "hello there, first turn"


def test_imported_sessions_share_exactly_once_with_the_live_path(tmp_path: Path, app: App
                                                                 ) -> None:
    make_store(tmp_path / "state")
    source = importer.Source("openclaw", tmp_path / "state", "main")
    result = importer.apply(app, source)
    assert result.state == "done"
    assert result.conversations == 2
    jobs = {j.session_id: j for j in app.extraction.spool.jobs()}
    # the owner's own sessions, under their real ids; the cron and the group session are
    # refused by the scope rules, as they are live
    assert set(jobs) == {MAIN_SID, "5a9e7387-35ba-4c46-8f60-20bfaa3c3df2"}
    assert jobs[MAIN_SID].imported == result.import_id
    assert jobs[MAIN_SID].trigger == "import"
    assert result.skipped == 2
    # the gateway's sweep (or a late hook) sending the same session: nothing new
    again = app.extraction.intake.accept(HookCall(trigger="sessionEnd", session_id=MAIN_SID,
                                                  session_key="agent:main:main",
                                                  messages=MAIN_EVENTS))
    assert again.skipped is not None
    assert again.skipped.startswith("nothing new")


def test_the_plan_leaves_out_what_the_scope_rules_refuse(tmp_path: Path, app: App) -> None:
    """Seen on the real gateway (the e2e's import_gateway_sessions): the plan listed the cron and
    group sessions, and their tokens, that the apply then skipped."""
    make_store(tmp_path / "state")
    plan = importer.plan(app, importer.Source("openclaw", tmp_path / "state", "main"))
    assert (plan.conversations, plan.out_of_scope, plan.total) == (2, 2, 4)
    kept = (MAIN_SID, "5a9e7387-35ba-4c46-8f60-20bfaa3c3df2")  # the cron and group ones: out
    assert plan.messages == sum(len(c.messages) for c in openclaw_sessions.read(
        tmp_path / "state") if isinstance(c, Conversation) and c.session_id in kept)
    result = importer.apply(app, importer.Source("openclaw", tmp_path / "state", "main"))
    assert result.spooled_tokens == plan.estimate.tokens


def test_the_plan_leaves_out_what_live_extraction_already_took(tmp_path: Path, app: App
                                                               ) -> None:
    """The plan counted, and priced, the sessions the gateway's hooks had already delivered
    (the apply then skipped them: nothing new): a session live extraction took whole is
    "already remembered", one it took in part counts only the rest."""
    make_store(tmp_path / "state")
    source = importer.Source("openclaw", tmp_path / "state", "main")
    before = importer.plan(app, source)
    assert (before.conversations, before.already_remembered) == (2, 0)
    user_at = [i for i, e in enumerate(MAIN_EVENTS)
               if e.get("type") == "message" and e["message"]["role"] == "user"]
    # the live path took the main session up to its last user message
    app.extraction.intake.accept(HookCall(trigger="beforeReset", session_id=MAIN_SID,
                                          session_key="agent:main:main",
                                          messages=MAIN_EVENTS[:user_at[-1]]))
    part = importer.plan(app, source)
    assert (part.conversations, part.already_remembered) == (2, 0)
    assert part.messages < before.messages
    assert part.estimate.tokens < before.estimate.tokens
    # then the rest of it
    app.extraction.intake.accept(HookCall(trigger="sessionEnd", session_id=MAIN_SID,
                                          session_key="agent:main:main", messages=MAIN_EVENTS))
    after = importer.plan(app, source)
    assert (after.conversations, after.already_remembered, after.out_of_scope) == (1, 1, 2)
    result = importer.apply(app, source)
    assert result.spooled_tokens == after.estimate.tokens
    assert result.conversations == 1


def test_the_admission_policy_applies_to_imported_sessions(tmp_path: Path, home: Home,
                                                          workspace: Path) -> None:
    from zettelclaw.config import load_config

    make_store(tmp_path / "state")
    settings = load_config(home, env={}, overrides=["admission.channels=telegram"])
    app = open_app(home, workspace, settings=settings)
    try:
        source = importer.Source("openclaw", tmp_path / "state", "main")
        assert importer.plan(app, source).out_of_scope == 3
        importer.apply(app, source)
        assert [j.session_id for j in app.extraction.spool.jobs()] == [MAIN_SID]
    finally:
        app.close()


def test_since_and_until_pick_sessions_by_their_first_message(tmp_path: Path, app: App
                                                              ) -> None:
    make_store(tmp_path / "state")
    source = importer.Source("openclaw", tmp_path / "state", "main", since=date(2026, 1, 1),
                             until=date(2026, 1, 1))
    plan = importer.plan(app, source)
    # the telegram session began 2025-12-29: out; the main one (2026-11-21) is after until
    assert plan.conversations == 0
    assert plan.out_of_range == 4


CACHE = Path(os.environ.get("ZETTELCLAW_E2E_CACHE", Path.home() / ".cache/zettelclaw-e2e"))


def test_the_tables_are_openclaws_own() -> None:
    """Our copy of the tables' definitions is the installed OpenClaw's (its cache, when the
    plugin's tests installed it)."""
    dist = CACHE / "openclaw/node_modules/openclaw/dist"
    schema = next(iter(sorted(dist.glob("openclaw-agent-board-schema-*.mjs"))), None) \
        if dist.is_dir() else None
    if schema is None:
        pytest.skip(f"OpenClaw is not installed in {CACHE} (scripts/openclaw-env.sh)")
    text = schema.read_text()
    for name, ddl in TABLES.items():
        found = re.search(r'"(?:[^"\\]|\\.)*?' + re.escape(f"CREATE TABLE IF NOT EXISTS {name} (")
                          , text)
        assert found is not None, name
        start = text.index(f"CREATE TABLE IF NOT EXISTS {name} (")
        end = text.index(";", start)
        assert json.loads(f'"{text[start:end + 1]}"') == ddl, name


def test_a_new_import_reads_its_source_once(tmp_path: Path, app: App,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The plan an apply makes first and its first slice share one reading (a 2 GB export
    took twice its reading time before)."""
    make_store(tmp_path / "state")
    reads: list[Path] = []
    real = registry.read

    def counted(kind: str, path: Path, *, agent: str) -> Iterator[Item]:
        reads.append(path)
        return real(kind, path, agent=agent)

    monkeypatch.setattr(registry, "read", counted)
    result = importer.apply(app, importer.Source("openclaw", tmp_path / "state", "main"))
    assert result.conversations == 2
    assert len(reads) == 1


def test_after_a_rollback_the_sessions_can_be_imported_again(tmp_path: Path, app: App) -> None:
    """At 00f0efb a rolled-back import's sessions stayed recorded as received: the plan called
    them "already remembered" and they could not be imported again. The messages the live
    path delivered stay recorded: only the import's own are released."""
    make_store(tmp_path / "state")
    source = importer.Source("openclaw", tmp_path / "state", "main")
    telegram = "5a9e7387-35ba-4c46-8f60-20bfaa3c3df2"
    user_at = [i for i, e in enumerate(MAIN_EVENTS)
               if e.get("type") == "message" and e["message"]["role"] == "user"]
    app.extraction.intake.accept(HookCall(trigger="beforeReset", session_id=MAIN_SID,
                                          session_key="agent:main:main",
                                          messages=MAIN_EVENTS[:user_at[-1]]))
    live = app.extraction.intake.provenance.keys(MAIN_SID)
    before = importer.plan(app, source)
    first = importer.apply(app, source)
    assert first.conversations == 2
    assert importer.plan(app, source).already_remembered == 0  # imported, not remembered
    rolled = rollback.rollback(app, first.import_id or "")
    assert rolled.state == "rolledBack"
    again = importer.plan(app, source)
    assert (again.conversations, again.already_remembered) == (2, 0)
    assert again.messages == before.messages  # the live part is still known as received
    assert app.extraction.intake.provenance.keys(MAIN_SID) == live
    assert app.extraction.intake.provenance.keys(telegram) == set()
    second = importer.apply(app, source)
    assert second.conversations == 2
    assert {j.session_id for j in app.extraction.spool.jobs() if j.imported == second.import_id
            } == {MAIN_SID, telegram}
