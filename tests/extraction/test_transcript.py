"""extraction/transcript.py: OpenClaw transcripts reduced to the user's and assistant's text.

Covers normalize on OpenClaw message objects (string content and content blocks: text kept;
toolCall, tool_use, tool_result, thinking and image blocks dropped even when they carry a "text"),
on transcript events with session/reset/model_change/custom events in between, roles other than
user/assistant dropped, empty text dropped; message keys (the same for a message as an object and
wrapped in an event, different for different timestamps, distinct by order for identical texts
without timestamps, stable across calls); timestamps in ms, s and ISO normalized to ISO UTC, and
unusable timestamps ignored rather than fatal; Message JSON round trip; render (everything when it
fits, else the end of the conversation and how many were cut); transcript_file (the path, its
newest .reset.* rotation, or None); read_jsonl skipping unreadable lines.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest

from zettelclaw.extraction.transcript import (
    Message,
    normalize,
    read_jsonl,
    render,
    transcript_file,
)

T0 = 1795234915428  # 2026-11-21T04:21:55.428Z, in ms as OpenClaw's message.timestamp
T0_ISO = "2026-11-21T04:21:55.428Z"


def user(text: Any, ts: Any = T0, **extra: Any) -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": ts, **extra}


def assistant(blocks: Any, ts: Any = T0 + 1000) -> dict[str, Any]:
    return {"role": "assistant", "content": blocks, "timestamp": ts}


def event(message: dict[str, Any], event_id: str = "ev1",
          timestamp: str = "2026-11-21T04:21:56.000Z") -> dict[str, Any]:
    return {"type": "message", "id": event_id, "parentId": None, "timestamp": timestamp,
            "message": message}


# -- message objects ---------------------------------------------------------------------------


def test_message_objects_with_string_content() -> None:
    messages = normalize([user("Let's migrate auth to OAuth."),
                          assistant("Sure: which provider?")])
    assert [(m.role, m.text, m.timestamp) for m in messages] == [
        ("user", "Let's migrate auth to OAuth.", T0_ISO),
        ("assistant", "Sure: which provider?", "2026-11-21T04:21:56.428Z")]


def test_text_is_stripped() -> None:
    [m] = normalize([user("  \n hello \n ")])
    assert m.text == "hello"


def test_content_blocks_keep_only_text() -> None:
    blocks = [
        {"type": "thinking", "thinking": "they want OAuth", "text": "secret thought"},
        {"type": "text", "text": "I'll check the config."},
        {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"},
         "text": "tool call text"},
        {"type": "tool_use", "id": "c2", "name": "read", "input": {}, "text": "tool use text"},
        {"type": "tool_result", "tool_use_id": "c2", "content": "file body",
         "text": "tool result text"},
        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png", "text": "image"},
        {"type": "text", "text": "  It uses SAML today.  "},
        {"type": "text", "text": "   "},
        {"type": "text"},
        "a bare string",
    ]
    [m] = normalize([assistant(blocks)])
    assert m.text == "I'll check the config.\nIt uses SAML today."


def test_user_content_blocks_are_read_too() -> None:
    [m] = normalize([user([{"type": "text", "text": "Look at this"},
                           {"type": "image", "data": "xx", "mimeType": "image/png"}])])
    assert (m.role, m.text) == ("user", "Look at this")


@pytest.mark.parametrize("role", ["toolResult", "system", "tool", "developer", None])
def test_other_roles_are_dropped(role: str | None) -> None:
    other = {"role": role, "content": [{"type": "text", "text": "tool output"}],
             "timestamp": T0}
    messages = normalize([user("hi"), other, assistant("hello")])
    assert [m.role for m in messages] == ["user", "assistant"]
    assert all("tool output" not in m.text for m in messages)


@pytest.mark.parametrize("content", ["", "   ", [], [{"type": "toolCall", "id": "c1"}],
                                     [{"type": "text", "text": ""}], None, 42])
def test_messages_without_text_are_dropped(content: Any) -> None:
    assert normalize([assistant(content), user(content)]) == []


# -- transcript events -------------------------------------------------------------------------


def test_transcript_events_with_other_events_in_between() -> None:
    items = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-11-21T04:00:00Z",
         "cwd": "/home/rosa"},
        {"type": "model_change", "id": "m1", "provider": "anthropic", "modelId": "claude"},
        event(user("first question"), "e1"),
        {"type": "custom", "customType": "openclaw.cache-ttl", "data": {"role": "user"}},
        event(assistant([{"type": "text", "text": "first answer"}]), "e2"),
        {"type": "reset", "id": "r1", "timestamp": "2026-11-21T05:00:00Z"},
        {"type": "thinking_level_change", "id": "t1", "thinkingLevel": "high"},
        event({"role": "toolResult", "toolCallId": "c1",
               "content": [{"type": "text", "text": "ls output"}]}, "e3"),
        event(user("second question", T0 + 60_000), "e4"),
        "not an object",
        None,
        {"type": "message"},  # no message inside
    ]
    messages = normalize(items)
    assert [(m.role, m.text) for m in messages] == [
        ("user", "first question"), ("assistant", "first answer"),
        ("user", "second question")]


def test_the_same_message_as_object_and_as_event_has_the_same_key() -> None:
    objects = [user("Use Postgres"), assistant([{"type": "text", "text": "Noted."}])]
    events = [event(objects[0], "e1", "2026-11-21T04:30:00Z"),
              event(objects[1], "e2", "2026-11-21T04:30:01Z")]
    assert [m.key for m in normalize(objects)] == [m.key for m in normalize(events)]
    assert normalize(objects) == normalize(events)


def test_an_event_timestamp_is_used_when_the_message_has_none() -> None:
    [m] = normalize([event({"role": "user", "content": "hi"}, timestamp="2026-11-21T04:30:00Z")])
    assert m.timestamp == "2026-11-21T04:30:00.000Z"


# -- keys --------------------------------------------------------------------------------------


def test_different_timestamps_give_different_keys() -> None:
    a, b = normalize([user("ok", T0), user("ok", T0 + 1)])
    assert a.key != b.key


def test_role_and_text_are_part_of_the_key() -> None:
    a, b, c = normalize([user("ok"), assistant("ok", T0), user("ok!")])
    assert len({a.key, b.key, c.key}) == 3


def test_identical_texts_without_timestamps_get_distinct_keys_by_order() -> None:
    items = [{"role": "user", "content": "ok"}, {"role": "assistant", "content": "ok"},
             {"role": "user", "content": "ok"}, {"role": "user", "content": "ok"}]
    messages = normalize(items)
    assert [m.timestamp for m in messages] == [None] * 4
    keys = [m.key for m in messages]
    assert len(set(keys)) == 4
    # the n-th repetition always gets the same key: a longer delivery of the same
    # conversation recognises its beginning
    assert [m.key for m in normalize(items[:2])] == keys[:2]
    assert [m.key for m in normalize(items)] == keys


def test_keys_are_stable_across_calls() -> None:
    items = [user("one"), assistant("two"), user("three", T0 + 5000)]
    assert [m.key for m in normalize(items)] == [m.key for m in normalize(list(items))]


# -- timestamps --------------------------------------------------------------------------------


@pytest.mark.parametrize("ts", [1795234915000, 1795234915, 1795234915.0,
                                "2026-11-21T04:21:55Z", "2026-11-21T04:21:55.000Z",
                                "2026-11-21T05:21:55+01:00", "2026-11-20T23:21:55-05:00",
                                "2026-11-21T04:21:55"])
def test_timestamps_are_normalized_to_iso_utc(ts: Any) -> None:
    [m] = normalize([user("hi", ts)])
    assert m.timestamp == "2026-11-21T04:21:55.000Z"


def test_the_same_moment_in_different_forms_gives_the_same_key() -> None:
    keys = {normalize([user("hi", ts)])[0].key
            for ts in (1795234915000, 1795234915, "2026-11-21T05:21:55+01:00")}
    assert len(keys) == 1


@pytest.mark.parametrize("ts", ["yesterday", "", True, None, [1], {"ms": 1}])
def test_unparseable_timestamps_are_none(ts: Any) -> None:
    [m] = normalize([user("hi", ts)])
    assert m.timestamp is None


@pytest.mark.parametrize("ts", [1e20, -1e20, 10**30, float("inf"),
                                "9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+01:00"])
def test_out_of_range_timestamps_are_ignored_not_fatal(ts: Any) -> None:
    # one odd line in a transcript must not make the whole stretch unreadable
    [m] = normalize([user("hi", ts)])
    assert (m.text, m.timestamp) == ("hi", None)


def test_message_json_round_trip() -> None:
    [m] = normalize([user("hi")])
    assert Message.from_json(orjson.loads(orjson.dumps(m.to_json()))) == m
    [n] = normalize([{"role": "user", "content": "no time"}])
    assert Message.from_json(n.to_json()) == n


# -- render ------------------------------------------------------------------------------------


def test_render_everything_when_it_fits() -> None:
    messages = normalize([user("Migrate auth"), assistant("Which provider?"),
                          {"role": "user", "content": "Okta"}])
    text, cut = render(messages, 10_000)
    assert cut == 0
    assert text == ("[user 2026-11-21 04:21] Migrate auth\n\n"
                    "[assistant 2026-11-21 04:21] Which provider?\n\n"
                    "[user] Okta")


def test_render_keeps_the_end_of_a_long_conversation() -> None:
    messages = normalize([user(f"message {i:03d} " + "x" * 90, T0 + i * 1000)
                          for i in range(50)])
    text, cut = render(messages, 2000)
    assert 0 < cut < 50
    assert len(text) <= 2000
    blocks = text.split("\n\n")
    assert len(blocks) == 50 - cut
    assert blocks[0].startswith("[user")
    assert f"message {cut:03d} " in blocks[0]
    assert "message 049 " in blocks[-1]
    assert f"message {cut - 1:03d} " not in text


def test_render_keeps_the_end_of_a_last_message_longer_than_the_budget() -> None:
    messages = normalize([user("short"), assistant("y" * 5000)])
    text, cut = render(messages, 1000)
    assert cut == 1
    assert len(text) <= 1000
    assert text.startswith("…")
    assert text.endswith("y" * 900)
    assert "short" not in text


def test_render_nothing() -> None:
    assert render([], 1000) == ("", 0)


# -- transcript files --------------------------------------------------------------------------


def test_transcript_file_is_the_path_when_it_exists(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    path.write_text("{}\n")
    (tmp_path / "s1.jsonl.reset.2026-11-21T05-00-00.000Z").write_text("{}\n")
    assert transcript_file(path) == path


def test_transcript_file_falls_back_to_the_newest_rotation(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    names = ["s1.jsonl.reset.2026-11-19T05-00-00.000Z", "s1.jsonl.reset.2026-11-21T05-00-00.000Z",
             "s1.jsonl.reset.2026-11-20T05-00-00.000Z"]
    for name, mtime in zip(names, (1_000_000, 3_000_000, 2_000_000), strict=True):
        (tmp_path / name).write_text("{}\n")
        os.utime(tmp_path / name, (mtime, mtime))
    (tmp_path / "s2.jsonl.reset.2027-01-01T00-00-00.000Z").write_text("{}\n")
    assert transcript_file(path) == tmp_path / names[1]


def test_transcript_file_is_none_when_nothing_is_there(tmp_path: Path) -> None:
    (tmp_path / "other.jsonl").write_text("{}\n")
    (tmp_path / "other.jsonl.reset.1").write_text("{}\n")
    assert transcript_file(tmp_path / "s1.jsonl") is None


def test_read_jsonl_skips_unreadable_lines(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    path.write_bytes(b'{"type":"session"}\nnot json\n\n{"type":"message"}\n{"torn":')
    assert list(read_jsonl(path)) == [{"type": "session"}, {"type": "message"}]
