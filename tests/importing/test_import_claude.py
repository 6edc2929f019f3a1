"""importing/sources/claude.py on exports built here in Claude.ai's format: human and assistant
turns, text blocks over the text field, thinking and tool blocks left out, attachments named,
branches by parent_message_uuid, ISO times to UTC; the zip (with users.json and projects.json),
the bare json, the folder; bad input: a truncated zip, a foreign JSON, a ChatGPT export, missing
fields, a bad message, a file cut short, non-UTF-8 bytes, another language."""

from __future__ import annotations

import zipfile
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson

from zettelclaw.importing.items import Conversation, Item, Problem
from zettelclaw.importing.sources import chatgpt, claude


def chat_message(ident: str, sender: str, text: str, at: str, *,
                 content: list[dict[str, Any]] | None = None, parent: str | None = None,
                 **extra: Any) -> dict[str, Any]:
    blocks = content if content is not None else [
        {"type": "text", "text": text, "start_timestamp": at, "stop_timestamp": at,
         "citations": []}]
    out = {"uuid": ident, "text": text, "content": blocks, "sender": sender, "created_at": at,
           "updated_at": at, "attachments": [], "files": []} | extra
    if parent is not None:
        out["parent_message_uuid"] = parent
    return out


def conversation(ident: str, messages: list[Any], name: str = "A chat",
                 **extra: Any) -> dict[str, Any]:
    return {"uuid": ident, "name": name, "summary": "", "created_at": "2025-03-01T09:00:00Z",
            "updated_at": "2025-03-01T10:00:00Z",
            "account": {"uuid": "acct-1"}, "chat_messages": messages} | extra


def plain() -> dict[str, Any]:
    return conversation("conv-1", [
        chat_message("m1", "human", "Plan a trip to Lisbon", "2025-03-01T09:00:00.123456Z",
                     attachments=[{"file_name": "itinerary.txt", "file_size": 12,
                                   "file_type": "txt", "extracted_content": "day 1: ..."}],
                     files=[{"file_name": "map.png"}]),
        chat_message("m2", "assistant", "ignored: the blocks win", "2025-03-01T09:00:05+01:00",
                     content=[
                         {"type": "thinking", "thinking": "the user wants a plan"},
                         {"type": "text", "text": "Day 1: Alfama."},
                         {"type": "tool_use", "name": "web_search", "input": {"q": "x"}},
                         {"type": "tool_result", "content": [{"type": "text", "text": "r"}]},
                         {"type": "text", "text": "Day 2: Belém."}]),
        chat_message("m3", "human", "Thanks", "not a time", content=[]),
        chat_message("m4", "system", "a system note", "2025-03-01T09:01:00Z"),
        chat_message("m5", "assistant", "", "2025-03-01T09:01:00Z", content=[]),
    ])


def write_json(path: Path, conversations: list[Any]) -> Path:
    path.write_bytes(orjson.dumps(conversations))
    return path


def conversations(items: list[Item]) -> list[Conversation]:
    return [item for item in items if isinstance(item, Conversation)]


def problems(items: list[Item]) -> list[Problem]:
    return [item for item in items if isinstance(item, Problem)]


def test_turns_text_blocks_attachments_and_times(tmp_path: Path) -> None:
    items = list(claude.read(write_json(tmp_path / "conversations.json", [plain()])))
    assert problems(items) == []
    [read] = conversations(items)
    assert read.source_id == "claude:conv-1"
    assert read.title == "A chat"
    assert read.origin == "conversations.json, conversation 0 (uuid conv-1)"
    assert [(m.role, m.text) for m in read.messages] == [
        ("user", "Plan a trip to Lisbon\n[attached: itinerary.txt]\nday 1: ...\n"
                 "[attached: map.png]"),
        ("assistant", "Day 1: Alfama.\n\nDay 2: Belém."),
        ("user", "Thanks"),
    ]
    assert [m.at for m in read.messages] == [
        datetime(2025, 3, 1, 9, 0, 0, 123456, tzinfo=UTC),
        datetime(2025, 3, 1, 9, 0, 5, tzinfo=timezone(timedelta(hours=1))),
        datetime(2025, 3, 1, 8, 0, 5, tzinfo=UTC)]  # "not a time": the one before it
    assert read.messages[1].at is not None
    assert read.messages[1].at.tzinfo == UTC
    assert read.messages[1].at.hour == 8  # 09:00:05+01:00


def test_branches_follow_the_current_leaf_or_the_last_message(tmp_path: Path) -> None:
    root = "00000000-0000-4000-8000-000000000000"
    messages = [
        chat_message("q", "human", "Write a haiku", "2025-03-01T09:00:00Z", parent=root),
        chat_message("a-old", "assistant", "old haiku", "2025-03-01T09:00:01Z", parent="q"),
        chat_message("q-edit", "human", "Write a limerick", "2025-03-01T09:01:00Z", parent=root),
        chat_message("a-new", "assistant", "a limerick", "2025-03-01T09:01:01Z",
                     parent="q-edit"),
    ]
    named = conversation("conv-leaf", messages, current_leaf_message_uuid="a-old")
    last = conversation("conv-last", messages)
    items = list(claude.read(write_json(tmp_path / "c.json", [named, last])))
    assert [[m.text for m in c.messages] for c in conversations(items)] == [
        ["Write a haiku", "old haiku"], ["Write a limerick", "a limerick"]]


def test_zip_json_and_folder_agree_and_ids_are_stable(tmp_path: Path) -> None:
    data = orjson.dumps([plain(), conversation("conv-2", [
        chat_message("x", "human", "hello", "2025-03-02T00:00:00Z")])])
    bare = tmp_path / "conversations.json"
    bare.write_bytes(data)
    archive = tmp_path / "data-2025-03-03-batch-0000.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        out.writestr("conversations.json", data)
        out.writestr("users.json", b'[{"uuid": "acct-1"}]')
        out.writestr("projects.json", b"[]")
    folder = tmp_path / "unpacked"
    folder.mkdir()
    (folder / "conversations.json").write_bytes(data)
    runs = [list(claude.read(path)) for path in (bare, archive, folder, archive)]
    assert [[c.source_id for c in conversations(items)] for items in runs] == \
        [["claude:conv-1", "claude:conv-2"]] * 4
    assert runs[1] == runs[3]
    assert [c.messages for c in conversations(runs[0])] == \
        [c.messages for c in conversations(runs[1])]
    assert [claude.detect(path) for path in (bare, archive, folder)] == ["claude"] * 3
    assert [chatgpt.detect(path) for path in (bare, archive, folder)] == [None] * 3


def test_missing_fields_and_bad_messages_are_problems_and_the_rest_is_read(
        tmp_path: Path) -> None:
    no_uuid = plain()
    del no_uuid["uuid"]
    with_bad_message = conversation("conv-bad", [
        "not a message", chat_message("ok", "human", "still read", "2025-03-01T09:00:00Z")])
    items = list(claude.read(write_json(tmp_path / "c.json", [
        42, {"name": "no messages"}, no_uuid, with_bad_message, plain()])))
    assert [c.source_id for c in conversations(items)] == ["claude:conv-bad", "claude:conv-1"]
    assert [p.origin for p in problems(items)] == [
        "c.json, conversation 0", "c.json, conversation 1", "c.json, conversation 2",
        "c.json, conversation 3 (uuid conv-bad), message 0"]
    assert "not a Claude conversation" in problems(items)[1].message
    assert "'uuid'" in problems(items)[2].message


def test_a_chatgpt_export_is_refused(tmp_path: Path) -> None:
    path = write_json(tmp_path / "conversations.json", [
        {"id": "c", "title": "t", "mapping": {}, "current_node": None, "create_time": 1.0}])
    [problem] = claude.read(path)
    assert isinstance(problem, Problem)
    assert "not a Claude conversation" in problem.message
    assert claude.detect(path) is None
    assert chatgpt.detect(path) == "chatgpt"


def test_truncated_zip_cut_json_foreign_json_and_non_utf8(tmp_path: Path) -> None:
    data = orjson.dumps([plain(), plain() | {"uuid": "conv-3"}])
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("conversations.json", data)
    archive.write_bytes(archive.read_bytes()[:-30])
    [problem] = claude.read(archive)
    assert isinstance(problem, Problem)
    assert problem.origin == str(archive)

    cut = tmp_path / "cut.json"
    cut.write_bytes(data[:-25])
    items = list(claude.read(cut))
    assert [c.source_id for c in conversations(items)] == ["claude:conv-1"]
    assert problems(items)[0].origin.startswith("cut.json, conversation 1 (byte ")

    foreign = tmp_path / "foreign.json"
    foreign.write_bytes(b'{"account": {"email": "a@b.c"}}')
    [problem] = claude.read(foreign)
    assert isinstance(problem, Problem)
    assert problem.origin == "foreign.json, conversation 0"

    latin = tmp_path / "latin.json"
    latin.write_bytes(data.replace(b"Thanks", b"Merci \xe0 vous"))
    items = list(claude.read(latin))
    assert [c.source_id for c in conversations(items)] == []
    assert [p.origin.split(" (byte")[0] for p in problems(items)] == [
        "latin.json, conversation 0", "latin.json, conversation 1"]
    assert all("UTF-8" in p.message for p in problems(items))


def test_another_language_is_just_text(tmp_path: Path) -> None:
    texts = ["Wie spät ist es in Tokio", "東京は今、午後三時です。", "Спасибо"]
    chat = conversation("conv-lang", [
        chat_message(f"m{i}", "human" if i % 2 == 0 else "assistant", text,
                     f"2025-03-01T09:00:0{i}Z") for i, text in enumerate(texts)], name="Zeit")
    [read] = claude.read(write_json(tmp_path / "c.json", [chat]))
    assert isinstance(read, Conversation)
    assert [m.text for m in read.messages] == texts
    assert read.title == "Zeit"


def test_a_conversation_with_nothing_said_is_not_yielded(tmp_path: Path) -> None:
    empty = conversation("conv-empty", [], name="")
    items = list(claude.read(write_json(tmp_path / "c.json", [empty, plain()])))
    assert [(type(item).__name__, item.origin) for item in items] == [
        ("Conversation", "c.json, conversation 1 (uuid conv-1)")]


def test_an_attachments_extracted_text_is_imported_and_a_cut_one_named(tmp_path: Path) -> None:
    """At 00f0efb an attachment's extracted text (what the model read) was dropped without a
    word; now it is the message's, and what of a long one is left out is a problem."""
    long = "budget notes " * 1000
    data = conversation("conv-9", [
        chat_message("m1", "human", "What do you make of these?", "2025-03-01T09:00:00Z",
                     attachments=[{"file_name": "lease.txt",
                                   "extracted_content": "Rent 900 EUR, due on the 3rd."},
                                  {"file_name": "budget.txt", "extracted_content": long}]),
        chat_message("m2", "assistant", "The rent is due on the 3rd.", "2025-03-01T09:01:00Z")])
    items = list(claude.read(write_json(tmp_path / "conversations.json", [data])))
    [read] = conversations(items)
    text = read.messages[0].text
    assert "[attached: lease.txt]\nRent 900 EUR, due on the 3rd." in text
    assert f"[attached: budget.txt]\n{long[:claude.ATTACHMENT_CHARS]}…" in text
    [problem] = problems(items)
    assert problem.origin == ("conversations.json, conversation 0 (uuid conv-9), attachment "
                              "budget.txt")
    assert f"{len(long.strip()):,} characters" in problem.message
