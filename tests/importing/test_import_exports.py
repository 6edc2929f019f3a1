"""importing/sources/exports.py, the streaming cut of a conversations list: for any JSON list
(strings with quotes, backslashes, brackets and any script; any nesting; any white space) and
any chunk size, the elements come out as orjson reads the whole; a file cut anywhere gives the
elements before the cut and one Problem; zip safety (member names, encryption, declared size,
no extraction); the time helpers; sniffing."""

from __future__ import annotations

import io
import json
import zipfile
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zettelclaw.importing.items import Message, Problem
from zettelclaw.importing.sources import exports, json_list

TEXT = st.text(alphabet=st.sampled_from(list('ab "\\[]{},:\n\té東🙂\u2028')), max_size=12)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=20)
ELEMENTS = st.lists(st.dictionaries(TEXT, JSON, max_size=4) | st.lists(JSON, max_size=3),
                    max_size=6)


def cut(data: bytes, name: str = "c.json") -> list[exports.Element | Problem]:
    return list(json_list.elements(io.BytesIO(data), name))


@settings(max_examples=35, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(elements=ELEMENTS, chunk=st.sampled_from([1, 2, 3, 5, 16, 1 << 20]),
       indent=st.sampled_from([None, 1, 4]))
def test_any_list_any_chunk_gives_what_orjson_gives(
        elements: list[Any], chunk: int, indent: int | None) -> None:
    data = json.dumps(elements, indent=indent, ensure_ascii=indent == 1).encode("utf-8")
    original = json_list.CHUNK
    json_list.CHUNK = chunk
    try:
        got = cut(data)
    finally:
        json_list.CHUNK = original
    assert got == [exports.Element("c.json", i, value)
                   for i, value in enumerate(orjson.loads(data))]


@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(elements=ELEMENTS.filter(bool), data=st.data())
def test_a_file_cut_anywhere_gives_the_whole_elements_before_it_and_one_problem(
        elements: list[Any], data: st.DataObject) -> None:
    whole = orjson.dumps(elements)
    at = data.draw(st.integers(1, len(whole) - 1))
    got = cut(whole[:at])
    *read, last = got
    assert isinstance(last, Problem)
    assert "cut short" in last.message
    assert [item.value for item in read if isinstance(item, exports.Element)] == \
        elements[: len(read)]
    assert all(isinstance(item, exports.Element) for item in read)


def test_problems_name_the_place() -> None:
    assert cut(b'[{"a": 1} x]') == [
        exports.Element("c.json", 0, {"a": 1}),
        Problem("c.json, byte 10", "not JSON after conversation 0 (expected ',' or ']'); the "
                                   "conversations before were read, the rest cannot be")]
    assert cut(b"[1] 2")[-1].origin == "c.json, byte 4"  # type: ignore[union-attr]
    assert cut(b"   ")[0] == Problem("c.json", "empty: no conversations")
    assert "UTF-16" in cut('[{"a": 1}]'.encode("utf-16"))[0].message  # type: ignore[union-attr]
    assert cut(b'\xef\xbb\xbf[{"a": 1}]') == [exports.Element("c.json", 0, {"a": 1})]
    assert cut(b'{"one": "conversation"}') == [
        exports.Element("c.json", 0, {"one": "conversation"})]


def test_zip_members_unsafe_names_encryption_and_declared_size(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    good = b'[{"n": 1}]'
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for name in ("conversations.json", "export/conversations-001.json",
                     "../conversations.json", "/etc/conversations.json",
                     "a\\conversations.json", "C:/conversations.json", "x/y/conversations.json",
                     "notes.json"):
            out.writestr(name, good)
    got = list(exports.read_export(archive))
    assert [item.file for item in got if isinstance(item, exports.Element)] == [
        "export.zip:conversations.json", "export.zip:export/conversations-001.json"]
    assert list(tmp_path.iterdir()) == [archive]  # nothing extracted

    monkeypatch.setattr(exports, "MEMBER_CAP", 4)
    [problem, _] = exports.read_export(archive)
    assert isinstance(problem, Problem)
    assert problem.origin == "export.zip:conversations.json"
    assert "bytes once unpacked" in problem.message

    encrypted = tmp_path / "locked.zip"
    with zipfile.ZipFile(encrypted, "w") as out:
        out.writestr("conversations.json", good)
    raw = bytearray(encrypted.read_bytes())
    for header in (b"PK\x03\x04", b"PK\x01\x02"):  # set the encryption flag in both headers
        at = raw.index(header) + (6 if header == b"PK\x03\x04" else 8)
        raw[at] |= 0x1
    encrypted.write_bytes(bytes(raw))
    [problem] = exports.read_export(encrypted)
    assert isinstance(problem, Problem)
    assert "encrypted" in problem.message

    empty = tmp_path / "other.zip"
    with zipfile.ZipFile(empty, "w") as out:
        out.writestr("photos/1.jpg", b"\xff\xd8")
    [problem] = exports.read_export(empty)
    assert isinstance(problem, Problem)
    assert "no conversations.json" in problem.message


def test_a_member_giving_more_than_the_cap_is_stopped_while_read() -> None:
    # zipfile stops at the size a member's header declares; the cap holds even so
    data = b"[" + b",".join([b'{"n": 1}'] * 1000) + b"]"
    read: list[exports.Element | Problem] = []
    with pytest.raises(exports._TooLarge):
        read.extend(json_list.elements(exports._Capped(io.BytesIO(data), 100), "c.json"))
    assert len(read) < 20


def test_missing_paths_and_folders_without_an_export(tmp_path: Path) -> None:
    [problem] = exports.read_export(tmp_path / "missing.json")
    assert isinstance(problem, Problem)
    assert problem.origin == str(tmp_path / "missing.json")
    assert "cannot be read" in problem.message
    [problem] = exports.read_export(tmp_path)
    assert isinstance(problem, Problem)
    assert "no conversations.json in this folder" in problem.message
    assert exports.sniff(tmp_path) is None
    assert exports.sniff(tmp_path / "missing.json") is None


def test_times() -> None:
    assert exports.from_epoch(0) == datetime(1970, 1, 1, tzinfo=UTC)
    assert exports.from_epoch(1.5) == datetime(1970, 1, 1, 0, 0, 1, 500000, tzinfo=UTC)
    assert [exports.from_epoch(v) for v in (None, True, "1", 1e20, float("nan"))] == [None] * 5
    assert exports.from_iso("2025-03-01T09:00:00Z") == datetime(2025, 3, 1, 9, tzinfo=UTC)
    at = exports.from_iso("2025-03-01T09:00:00-05:00")
    assert at == datetime(2025, 3, 1, 14, tzinfo=UTC)
    assert at is not None
    assert at.tzinfo == UTC
    assert exports.from_iso("2025-03-01 09:00") == datetime(2025, 3, 1, 9, tzinfo=UTC)
    assert [exports.from_iso(v) for v in (None, 3, "yesterday")] == [None] * 3
    start = datetime(2025, 1, 1, tzinfo=timezone(timedelta(0)))
    later = datetime(2025, 1, 2, tzinfo=UTC)
    filled = exports.fill_times((Message("user", "a", None), Message("assistant", "b", later),
                                 Message("user", "c", None)), start)
    assert [m.at for m in filled] == [start, later, later]
    assert exports.clean_text("ok \ud83d") == "ok ?"
    assert exports.clean_text("fine 🙂") == "fine 🙂"
