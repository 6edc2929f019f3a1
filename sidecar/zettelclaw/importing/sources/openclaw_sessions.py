"""OpenClaw's past sessions, from the gateway's transcript store: the same store the plugin's
sweep reads through OpenClaw's SDK (clients/openclaw/src/transcripts.ts), read here from disk.

``path`` is OpenClaw's state directory (``~/.openclaw``, home.py's rule: the agent's store is
``agents/<agent>/agent/openclaw-agent.sqlite``), an agent's directory, or the ``.sqlite`` file
itself. An older gateway's layout (``agents/<agent>/sessions/<sessionId>.jsonl`` with
``sessions.json`` naming each key's session) is read too.

A session is cut at its resets (OpenClaw 2026.9 keeps the session id across them): each part
is a conversation, as each was one extraction live. Messages are reduced exactly as a live
hook's are (``extraction/transcript.normalize``: user and
assistant text only, secrets replaced, the owner mark kept), and each conversation carries its
real session id and key: the importer spools it under that id, so a session both imported and
later swept or hooked is extracted once (the intake's message keys), and the key's scope rules
apply (no cron, group or sub-agent session).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from zettelclaw.extraction.transcript import normalize
from zettelclaw.importing import zstd
from zettelclaw.importing.items import Conversation, Item, Message, Problem
from zettelclaw.index import openclaw_store
from zettelclaw.safe_open import open_regular, read_regular, regular_stream

STORE_NAME = "openclaw-agent.sqlite"
LINE_CAP = 16 << 20  # one legacy transcript line (an event): more is not one
INDEX_CAP = 64 << 20  # sessions.json
COLD_CAP = 1 << 30  # one session's cold archive, compressed


def store_of(path: Path, agent: str) -> Path:
    """The agent's store (or legacy ``sessions`` directory) under ``path``."""
    if path.exists() and not path.is_dir():  # a FIFO given too: the reader names it
        return path
    for candidate in (path / "agents" / agent / "agent" / STORE_NAME, path / "agent" / STORE_NAME,
                      path / STORE_NAME, path / "agents" / agent / "sessions",
                      path / "sessions"):
        if candidate.exists():
            return candidate
    if (path / "sessions.json").is_file():
        return path
    return path / "agents" / agent / "agent" / STORE_NAME


def read(path: Path, *, agent: str = "main") -> Iterator[Item]:
    store = store_of(path, agent)
    if not store.exists():
        yield Problem(str(store), f"no OpenClaw session store for agent {agent!r} here "
                      f"(looked for agents/{agent}/agent/{STORE_NAME} and a sessions/ folder)")
        return
    if store.is_dir():
        yield from _legacy(store, agent)
        return
    try:
        os.close(open_regular(store))  # SQLite's own open would wait on a FIFO
        listed = openclaw_store.sessions(store)
    except OSError as exc:
        yield Problem(str(store), f"cannot be read: {exc.strerror or exc}")
        return
    except openclaw_store.StoreError as exc:
        yield Problem(str(store), str(exc))
        return
    for session in listed:
        raw: list[Any] = []
        problem = None
        cold = openclaw_store.cold_archive(store, session.session_id)
        if cold is not None:
            archived, problem = _cold_events(store, session.session_id, cold)
            raw += archived
        for event in openclaw_store.events(store, session.session_id):
            if cold is not None and event.seq <= cold.last_seq:
                continue
            text = event.json
            if text is None and event.compressed is not None:
                text = zstd.decompress(event.compressed, event.size)
            if text is None:
                problem = Problem(f"{store}, session {session.session_id}, event {event.seq}",
                                  f"the event is stored compressed (zstd) and {zstd.MISSING}; "
                                  "the session's other events are imported")
                continue
            try:
                raw.append(orjson.loads(text))
            except orjson.JSONDecodeError:
                problem = Problem(f"{store}, session {session.session_id}, event {event.seq}",
                                  "the event is not JSON; skipped")
        if problem is not None:
            yield problem
        yield from _conversations(raw, agent, session.session_id,
                                  session_key=session.session_key,
                                  origin=f"{store.name}, session {session.session_id}",
                                  channel=session.channel)


def _cold_events(store: Path, session_id: str, cold: openclaw_store.ColdArchive
                 ) -> tuple[list[Any], Problem | None]:
    """The events of a session in OpenClaw's cold storage: its archive is zstd-compressed
    JSONL (a header, then ``{"kind": "event", "row": {"seq", "event_json", ...}}`` records and
    others), in the database or in ``agents/<agent>/sessions/cold/``."""
    folder = store.parent.parent / "sessions" if store.parent.name == "agent" else store.parent
    where = "the store" if cold.blob is not None else str(folder / "cold" / cold.name)
    data = cold.blob
    if data is None:
        try:
            data = read_regular(folder / "cold" / cold.name, COLD_CAP + 1)
        except OSError as exc:
            return [], _cold_problem(store, session_id, where, exc.strerror or str(exc))
        if len(data) > COLD_CAP:
            return [], _cold_problem(store, session_id, where,
                                     f"more than {COLD_CAP >> 20} MiB: not an archive of one "
                                     "session")
    text = zstd.decompress(data, None)
    if text is None:
        return [], _cold_problem(store, session_id, where, f"not zstd, or {zstd.MISSING}")
    events: list[Any] = []
    for line in text.splitlines():
        try:
            record = orjson.loads(line)
            if isinstance(record, dict) and record.get("kind") == "event":
                events.append(orjson.loads(record["row"]["event_json"]))
        except (orjson.JSONDecodeError, KeyError, TypeError):
            return events, _cold_problem(store, session_id, where, "a record is not JSON")
    return events, None


def _cold_problem(store: Path, session_id: str, where: str, why: str) -> Problem:
    return Problem(f"{store}, session {session_id}",
                   f"its events are in OpenClaw's cold storage ({where}), which could not be "
                   f"read: {why}; the events written since are imported")


def _legacy(directory: Path, agent: str) -> Iterator[Item]:
    keys: dict[str, str] = {}
    index = directory / "sessions.json"
    if index.exists():
        try:
            listed = orjson.loads(read_regular(index, INDEX_CAP))
        except (orjson.JSONDecodeError, OSError) as exc:
            why = exc.strerror if isinstance(exc, OSError) else f"not JSON ({exc})"
            yield Problem(str(index), f"{why}; sessions are read without their keys")
            listed = {}
        if isinstance(listed, dict):
            for key, entry in listed.items():
                if isinstance(entry, dict) and isinstance(entry.get("sessionId"), str):
                    keys[entry["sessionId"]] = str(key)
    for file in sorted(directory.glob("*.jsonl")):
        session_id = file.name.removesuffix(".jsonl")
        try:
            events, problem = _jsonl(file)
        except OSError as exc:
            yield Problem(str(file), f"cannot be read: {exc.strerror or exc}")
            continue
        if problem is not None:
            yield problem
        yield from _conversations(events, agent, session_id,
                                  session_key=keys.get(session_id), origin=file.name)


def _jsonl(file: Path) -> tuple[list[Any], Problem | None]:
    """A legacy transcript's records (lines that are not JSON skipped, as the live path skips
    them), read a line at a time with each line capped: a line over ``LINE_CAP`` is a problem,
    not a read without end."""
    events: list[Any] = []
    problem = None
    with regular_stream(file) as stream:
        number = 0
        while line := stream.readline(LINE_CAP + 1):
            number += 1
            if len(line) > LINE_CAP and not line.endswith(b"\n"):
                problem = Problem(f"{file}, line {number}",
                                  f"longer than {LINE_CAP >> 20} MiB: not a transcript line; "
                                  "the file's reading stopped there")
                break
            try:
                events.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                continue
    return events, problem


def _parts(raw: list[Any]) -> list[tuple[str | None, list[Any]]]:
    """The session's events cut at its resets: (the reset event's id, or None for the part
    before the first, and the events after it).

    OpenClaw 2026.9 keeps a session id across ``/new`` and ``sessions.reset``: it records a
    ``{"type": "reset"}`` event in the same transcript (seen in the real gateway's store), so a
    main session holds every conversation since the key was made. Live, each reset ended one
    and had it extracted; the import extracts the same parts, each its own conversation."""
    parts: list[tuple[str | None, list[Any]]] = [(None, [])]
    for item in raw:
        if isinstance(item, dict) and item.get("type") == "reset":
            parts.append((str(item.get("id") or len(parts)), []))
        else:
            parts[-1][1].append(item)
    return parts


def _conversations(raw: list[Any], agent: str, session_id: str, *, session_key: str | None,
                   origin: str, channel: str | None = None) -> Iterator[Conversation]:
    for reset_id, events in _parts(raw):
        messages = tuple(Message("user" if m.role == "user" else "assistant", m.text,
                                 _at(m.timestamp), m.from_owner) for m in normalize(events))
        if not messages:
            continue
        part = "" if reset_id is None else f":{reset_id}"
        yield Conversation(source_id=f"openclaw:{agent}:{session_id}{part}", title=None,
                           messages=messages,
                           origin=origin if reset_id is None else f"{origin}, after reset "
                                                                  f"{reset_id}",
                           session_id=session_id, session_key=session_key, channel=channel)


def _at(timestamp: str | None) -> datetime | None:
    if timestamp is None:
        return None
    moment = datetime.fromisoformat(timestamp)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
