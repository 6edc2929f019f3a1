"""importing/sources/chatgpt.py on exports built here in ChatGPT's format: the branch of the
current node (not the last one), hidden, system, tool and reasoning turns left out, multimodal
parts, citations, timestamps, the zip, the bare json and the unpacked folder; and bad input: a
truncated zip, a member damaged inside, a foreign JSON, a Claude export, missing fields, a file
cut short, non-UTF-8 bytes, a lone surrogate, a conversation in another script."""

from __future__ import annotations

import io
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest

from zettelclaw.importing.items import Conversation, Item, Problem
from zettelclaw.importing.sources import chatgpt, claude, exports, json_list

T0 = 1_700_000_000.0


def message(ident: str, role: str, parts: list[Any], at: float | None, *,
            content_type: str = "text", hidden: bool = False, recipient: str = "all",
            weight: float = 1.0) -> dict[str, Any]:
    return {"id": ident, "author": {"role": role, "name": None, "metadata": {}},
            "create_time": at, "update_time": None,
            "content": {"content_type": content_type, "parts": parts},
            "status": "finished_successfully", "end_turn": True, "weight": weight,
            "metadata": {"is_visually_hidden_from_conversation": hidden} if hidden else {},
            "recipient": recipient}


def conversation(ident: str, chain: list[tuple[str, str | None, dict[str, Any] | None]],
                 current: str, title: str = "A chat") -> dict[str, Any]:
    """``chain``: (node id, parent id, message) for every node, branches included."""
    mapping: dict[str, Any] = {node: {"id": node, "message": msg, "parent": parent, "children": []}
                               for node, parent, msg in chain}
    for node, parent, _ in chain:
        if parent is not None:
            mapping[parent]["children"].append(node)
    return {"title": title, "create_time": T0, "update_time": T0 + 600, "mapping": mapping,
            "current_node": current, "conversation_id": ident, "id": ident,
            "default_model_slug": "gpt-4o", "is_archived": False}


def branched(*, instructions: dict[str, Any] | None = None) -> dict[str, Any]:
    """A system prompt, an edited question, a regenerated answer (the current node is on the
    first branch, not the last), a tool call and its output, a voice and image message,
    reasoning, citations; with ``instructions``, a hidden custom-instructions message holding
    them (``user_editable_context``)."""
    context = message("ctx", "user", [], T0, content_type="user_editable_context",
                      hidden=True)
    context["content"] |= instructions or {}
    return conversation("c-branched", [
        ("root", None, None),
        ("sys", "root", message("sys", "system", ["You are ChatGPT."], None, hidden=True)),
        *([("ctx", "sys", context)] if instructions else []),
        ("q1", "ctx" if instructions else "sys",
         message("q1", "user", ["What is the capital of France?"], T0 + 10)),
        ("a1", "q1", message("a1", "assistant", ["Paris.\ue200cite\ue202turn0search1\ue201"],
                             T0 + 11)),
        ("a1b", "q1", message("a1b", "assistant", ["Lyon (regenerated, not current)"], T0 + 50)),
        ("a1b-next", "a1b", message("a1b-next", "user", ["on the last branch"], T0 + 60)),
        ("think", "a1", message("think", "assistant", ["let me think"], T0 + 12,
                                content_type="thoughts")),
        ("code", "think", message("code", "assistant", ["print(1)"], T0 + 13,
                                  content_type="code", recipient="python")),
        ("out", "code", message("out", "tool", ["1"], T0 + 14, content_type="execution_output")),
        ("q2", "out", message("q2", "user", [
            {"content_type": "image_asset_pointer", "asset_pointer": "sediment://file_1",
             "size_bytes": 1, "width": 1, "height": 1},
            "What is in this picture?",
            {"content_type": "audio_transcription", "text": "and say it aloud"},
            {"content_type": "audio_asset_pointer", "asset_pointer": "sediment://file_2"},
        ], T0 + 20, content_type="multimodal_text")),
        ("a2", "q2", message("a2", "assistant", ["A cat【3:0†source】 on a mat."], None)),
        ("empty", "a2", message("empty", "assistant", [""], T0 + 22)),
    ], current="empty")


def write_json(path: Path, conversations: list[Any]) -> Path:
    path.write_bytes(orjson.dumps(conversations))
    return path


def write_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def conversations(items: list[Item]) -> list[Conversation]:
    return [item for item in items if isinstance(item, Conversation)]


def problems(items: list[Item]) -> list[Problem]:
    return [item for item in items if isinstance(item, Problem)]


def test_the_current_branch_is_read_without_hidden_system_tool_or_reasoning_turns(
        tmp_path: Path) -> None:
    items = list(chatgpt.read(write_json(tmp_path / "conversations.json", [branched()])))
    assert problems(items) == []
    [read] = conversations(items)
    assert read.source_id == "chatgpt:c-branched"
    assert read.title == "A chat"
    assert [(m.role, m.text) for m in read.messages] == [
        ("user", "What is the capital of France?"),
        ("assistant", "Paris."),
        ("user", "[image]\nWhat is in this picture?\nand say it aloud"),
        ("assistant", "A cat on a mat."),
    ]
    assert read.origin == "conversations.json, conversation 0 (id c-branched)"


def test_times_are_the_messages_own_in_utc_or_the_one_before(tmp_path: Path) -> None:
    [read] = chatgpt.read(write_json(tmp_path / "c.json", [branched()]))
    assert isinstance(read, Conversation)
    # a2's create_time is null: it takes q2's, the message before it
    assert [m.at for m in read.messages] == [
        datetime.fromtimestamp(T0 + 10, UTC), datetime.fromtimestamp(T0 + 11, UTC),
        datetime.fromtimestamp(T0 + 20, UTC), datetime.fromtimestamp(T0 + 20, UTC)]
    assert read.started == datetime.fromtimestamp(T0 + 10, UTC)
    assert all(m.at is not None and m.at.tzinfo == UTC for m in read.messages)


def test_messages_without_times_take_the_conversations(tmp_path: Path) -> None:
    untimed = conversation("c-untimed", [
        ("r", None, None), ("u", "r", message("u", "user", ["when?"], None)),
        ("a", "u", message("a", "assistant", ["then"], None))], current="a")
    bare = untimed | {"id": "c-bare", "conversation_id": "c-bare", "create_time": None}
    read = conversations(list(chatgpt.read(write_json(tmp_path / "c.json", [untimed, bare]))))
    assert [[m.at for m in c.messages] for c in read] == [
        [datetime.fromtimestamp(T0, UTC)] * 2, [None, None]]


def test_zip_json_and_unpacked_folder_give_the_same_items_and_ids_are_stable(
        tmp_path: Path) -> None:
    data = orjson.dumps([branched(), conversation("c2", [
        ("r", None, None), ("u", "r", message("u", "user", ["Bonjour"], T0))], current="u")])
    bare = tmp_path / "conversations.json"
    bare.write_bytes(data)
    archive = write_zip(tmp_path / "export.zip", {
        "conversations.json": data, "chat.html": b"<html></html>", "user.json": b"{}",
        "message_feedback.json": b"[]"})
    folder = tmp_path / "unpacked"
    folder.mkdir()
    (folder / "conversations.json").write_bytes(data)
    (folder / "user.json").write_bytes(b"{}")
    read = [list(chatgpt.read(path)) for path in (bare, archive, folder, bare)]
    ids = [[c.source_id for c in conversations(items)] for items in read]
    assert ids == [["chatgpt:c-branched", "chatgpt:c2"]] * 4
    assert [c.messages for c in conversations(read[0])] == \
        [c.messages for c in conversations(read[1])]
    assert conversations(read[1])[0].origin == \
        "export.zip:conversations.json, conversation 0 (id c-branched)"
    assert all(problems(items) == [] for items in read)


def test_sharded_members_are_read_in_order_and_traversal_names_are_ignored(
        tmp_path: Path) -> None:
    def one(ident: str) -> bytes:
        return orjson.dumps([conversation(ident, [
            ("r", None, None), ("u", "r", message("u", "user", [ident], T0))], current="u")])
    archive = write_zip(tmp_path / "export.zip", {
        "conversations-001.json": one("second"), "conversations-000.json": one("first"),
        "../conversations.json": one("outside"), "/abs/conversations.json": one("absolute"),
        "a/b/c/conversations.json": one("deep")})
    ids = [c.source_id for c in conversations(list(chatgpt.read(archive)))]
    assert ids == ["chatgpt:first", "chatgpt:second"]


def test_latest_leaf_when_current_node_is_missing(tmp_path: Path) -> None:
    data = branched()
    data["current_node"] = "not-a-node"
    [read] = chatgpt.read(write_json(tmp_path / "c.json", [data]))
    assert isinstance(read, Conversation)
    # a1b-next (T0 + 60) is the newest leaf
    assert [m.text for m in read.messages][-2:] == ["Lyon (regenerated, not current)",
                                                    "on the last branch"]


def test_a_truncated_zip_is_one_problem_naming_the_file(tmp_path: Path) -> None:
    whole = write_zip(tmp_path / "whole.zip", {"conversations.json": orjson.dumps([branched()])})
    cut = tmp_path / "export.zip"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    items = list(chatgpt.read(cut))
    assert len(items) == 1
    assert isinstance(items[0], Problem)
    assert items[0].origin == str(cut)
    assert "not a readable zip" in items[0].message
    assert chatgpt.detect(cut) is None


def test_a_member_damaged_inside_keeps_what_came_before(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(json_list, "CHUNK", 1024)
    many = [conversation(f"c{i}", [("r", None, None),
                                   ("u", "r", message("u", "user", [f"hello {i} " * 50], T0))],
                         current="u") for i in range(40)]
    data = orjson.dumps(many)
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as out:
        out.writestr("conversations.json", data)
    raw = bytearray(archive.read_bytes())
    at = raw.index(b"hello 39")
    raw[at:at + 5] = b"HELLO"  # still JSON, but the member's CRC no longer matches
    archive.write_bytes(bytes(raw))
    items = list(chatgpt.read(archive))
    # the CRC is checked when the member's last bytes are read: what came before is kept
    assert len(conversations(items)) >= 35
    assert isinstance(items[-1], Problem)
    [problem] = problems(items)
    assert problem.origin == "export.zip:conversations.json"
    assert "damaged" in problem.message


def test_a_file_cut_short_yields_the_conversations_before_and_names_the_cut_one(
        tmp_path: Path) -> None:
    data = orjson.dumps([branched(), branched() | {"id": "c3", "conversation_id": "c3"}])
    cut = tmp_path / "conversations.json"
    cut.write_bytes(data[: len(data) - 40])
    items = list(chatgpt.read(cut))
    assert [c.source_id for c in conversations(items)] == ["chatgpt:c-branched"]
    [problem] = problems(items)
    assert problem.origin.startswith("conversations.json, conversation 1 (byte ")
    assert "cut short" in problem.message


def test_foreign_json_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    for name, data in (("object.json", b'{"hello": "world"}'), ("number.json", b"42"),
                       ("empty.json", b""), ("text.json", b"not json at all"),
                       ("utf16.json", '[{"a": 1}]'.encode("utf-16"))):
        path = tmp_path / name
        path.write_bytes(data)
        items = list(chatgpt.read(path))
        assert items, name
        assert all(isinstance(item, Problem) for item in items), name
        assert all(item.origin.startswith(name) for item in items), name
        assert chatgpt.detect(path) is None


def test_a_long_foreign_list_stops_after_a_few_problems(tmp_path: Path) -> None:
    items = list(chatgpt.read(write_json(tmp_path / "numbers.json", list(range(10_000)))))
    assert len(items) == exports.FOREIGN_AFTER + 1
    assert "not a ChatGPT export" in items[-1].message  # type: ignore[union-attr]


def test_a_claude_export_given_as_chatgpt_is_refused_and_detected_as_claude(
        tmp_path: Path) -> None:
    path = write_json(tmp_path / "conversations.json", [
        {"uuid": "u1", "name": "n", "chat_messages": [{"sender": "human", "text": "hi"}]}])
    [problem] = chatgpt.read(path)
    assert isinstance(problem, Problem)
    assert "not a ChatGPT conversation" in problem.message
    assert chatgpt.detect(path) is None
    assert claude.detect(path) == "claude"


def test_missing_fields_and_bad_elements_are_problems_and_the_rest_is_read(
        tmp_path: Path) -> None:
    good = branched()
    no_id = branched()
    del no_id["id"], no_id["conversation_id"]
    looped = conversation("c-loop", [("a", "b", message("a", "user", ["x"], T0)),
                                     ("b", "a", message("b", "user", ["y"], T0))], current="a")
    items = list(chatgpt.read(write_json(tmp_path / "c.json", [
        "a string", {"title": "no mapping"}, no_id, looped, good])))
    assert [c.source_id for c in conversations(items)] == ["chatgpt:c-branched"]
    assert [p.origin for p in problems(items)] == [
        "c.json, conversation 0", "c.json, conversation 1", "c.json, conversation 2",
        "c.json, conversation 3 (id c-loop)"]
    assert "str, not a conversation" in problems(items)[0].message
    assert "loop" in problems(items)[3].message


def test_non_utf8_bytes_spoil_one_conversation_and_a_lone_surrogate_none(
        tmp_path: Path) -> None:
    bad = orjson.dumps(branched() | {"id": "bad", "conversation_id": "bad"}).replace(
        b"Paris.", b"Par\xe9s.")
    surrogate = orjson.dumps(branched() | {"id": "sur", "conversation_id": "sur"}).replace(
        b"Paris.", b"Paris \\ud83d.")
    path = tmp_path / "c.json"
    path.write_bytes(b"[" + bad + b"," + surrogate + b"," + orjson.dumps(branched()) + b"]")
    items = list(chatgpt.read(path))
    assert [c.source_id for c in conversations(items)] == ["chatgpt:sur", "chatgpt:c-branched"]
    [problem] = problems(items)
    assert problem.origin.startswith("c.json, conversation 0 (byte 1)")
    assert "UTF-8" in problem.message
    text = conversations(items)[0].messages[1].text
    assert text.encode("utf-8")
    assert text.startswith("Paris ")


def test_a_conversation_in_another_language_is_just_text(tmp_path: Path) -> None:
    words = ["東京の天気はどうですか", "Сегодня солнечно.", "مرحبا بالعالم", "🙂 ok"]
    chain: list[tuple[str, str | None, dict[str, Any] | None]] = [("r", None, None)]
    for i, text in enumerate(words):
        chain.append((f"n{i}", chain[-1][0],
                      message(f"n{i}", "user" if i % 2 == 0 else "assistant", [text], T0 + i)))
    items = list(chatgpt.read(write_json(tmp_path / "c.json", [
        conversation("c-lang", chain, current="n3", title="天気")])))
    [read] = items
    assert isinstance(read, Conversation)
    assert [m.text for m in read.messages] == words
    assert read.title == "天気"


def test_detect_knows_the_zip_the_json_and_the_folder(tmp_path: Path) -> None:
    data = orjson.dumps([branched()])
    folder = tmp_path / "unpacked"
    folder.mkdir()
    (folder / "conversations.json").write_bytes(data)
    paths = [write_json(tmp_path / "conversations.json", [branched()]),
             write_zip(tmp_path / "export.zip", {"conversations.json": data}), folder]
    assert [chatgpt.detect(path) for path in paths] == ["chatgpt"] * 3
    assert [claude.detect(path) for path in paths] == [None] * 3
    assert chatgpt.detect(tmp_path / "missing.json") is None


def test_a_conversation_larger_than_the_cap_is_skipped_and_the_next_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(json_list, "ELEMENT_CAP", 16_384)
    monkeypatch.setattr(json_list, "CHUNK", 1024)
    big = conversation("big", [("r", None, None),
                               ("u", "r", message("u", "user", ["x" * 50_000], T0))], current="u")
    items = list(chatgpt.read(write_json(tmp_path / "c.json", [big, branched()])))
    assert [c.source_id for c in conversations(items)] == ["chatgpt:c-branched"]
    [problem] = problems(items)
    assert problem.origin == "c.json, conversation 0 (byte 1)"
    assert "larger than 16,384 bytes" in problem.message


def test_small_chunks_cut_anywhere_give_the_same_conversations(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_json(tmp_path / "c.json", [branched(), branched() | {"id": "x"}] * 3)
    whole = list(chatgpt.read(path))
    for chunk in (1, 7, 64):
        monkeypatch.setattr(json_list, "CHUNK", chunk)
        assert list(chatgpt.read(path)) == whole


def generated(count: int, turns: int = 6, words: int = 40) -> bytes:
    """An export of ``count`` conversations, written one at a time (never held whole)."""
    out = io.BytesIO()
    out.write(b"[")
    for i in range(count):
        chain: list[tuple[str, str | None, dict[str, Any] | None]] = [("r", None, None)]
        for t in range(turns):
            role = "user" if t % 2 == 0 else "assistant"
            chain.append((f"n{t}", chain[-1][0], message(
                f"n{t}", role, [f"conversation {i} turn {t}: " + "words and more words " * words],
                T0 + i * 100 + t)))
        out.write(b"," if i else b"")
        out.write(orjson.dumps(conversation(f"c{i}", chain, current=f"n{turns - 1}")))
    out.write(b"]")
    return out.getvalue()


def test_memory_stays_bounded_by_the_chunk_not_the_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tracemalloc
    monkeypatch.setattr(json_list, "CHUNK", 32 << 10)
    path = tmp_path / "conversations.json"
    path.write_bytes(generated(300, turns=2, words=200))
    size = path.stat().st_size
    tracemalloc.start()
    try:
        count = sum(isinstance(item, Conversation) for item in chatgpt.read(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 300
    assert size > 2 << 20
    assert peak < 512 << 10, f"peak {peak:,} bytes reading a {size:,}-byte export"


@pytest.mark.slow
def test_tens_of_megabytes_from_a_zip_with_the_default_chunk(tmp_path: Path) -> None:
    import tracemalloc
    data = generated(6000)
    archive = write_zip(tmp_path / "export.zip", {"conversations.json": data})
    del data
    tracemalloc.start()
    try:
        count = sum(isinstance(item, Conversation) for item in chatgpt.read(archive))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 6000
    assert peak < 8 << 20, f"peak {peak:,} bytes"


PROFILE = ("The user provided the following information about themselves. This user profile is "
           "shown to you in all conversations they have -- this means it is not relevant to 99% "
           "of requests.\nUser profile:\n```I live in Lisbon and keep bees.```")
HOW = ("The user provided the additional info about how they would like you to respond:\n"
       "```Answer briefly, in metric units.```")


def test_custom_instructions_are_one_conversation_of_the_owners_words(tmp_path: Path) -> None:
    """At 00f0efb they were dropped without a word: the most personal text of an export."""
    said = {"user_profile": PROFILE, "user_instructions": HOW}
    other = branched(instructions=said) | {"id": "c2", "conversation_id": "c2"}
    changed = branched(instructions={"user_profile": "```I live in Porto.```"}) | {
        "id": "c3", "conversation_id": "c3"}
    items = list(chatgpt.read(write_json(tmp_path / "c.json",
                                         [branched(instructions=said), other, changed])))
    assert problems(items) == []
    found = [c for c in conversations(items) if c.source_id == chatgpt.INSTRUCTIONS]
    assert [[(m.role, m.text) for m in c.messages] for c in found] == [
        [("user", "My ChatGPT custom instructions.\nAbout me: I live in Lisbon and keep bees.\n"
                  "How I want to be answered: Answer briefly, in metric units.")],
        [("user", "My ChatGPT custom instructions.\nAbout me: I live in Porto.")]]
    assert found[0].origin == ("c.json, conversation 0 (id c-branched), custom instructions")
    assert found[0].messages[0].at is None  # they hold until changed, whenever written
    assert [c.source_id for c in conversations(items)].count("chatgpt:c2") == 1
