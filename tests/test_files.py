"""Durable file primitives (``zettelclaw.files``).

Covers ``atomic_write_bytes`` (the file is replaced whole, by a rename: a reader sees the old
content or the new, never part; a failure before the rename leaves the old file intact and no
temp file; fsynced, file and directory, unless asked not to be durable), ``write_all`` (short
writes are continued), ``atomic_write_json`` and ``read_json_object`` (None when missing, errors
that name the file).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest

from zettelclaw import files
from zettelclaw.files import (
    atomic_write_bytes,
    atomic_write_json,
    read_json_object,
    remove_if_present,
    write_all,
)


@pytest.fixture
def target(tmp_path: Path) -> Path:
    path = tmp_path / "state.json"
    path.write_bytes(b"old content\n")
    return path


def test_atomic_write_creates_and_replaces(tmp_path: Path) -> None:
    path = tmp_path / "new.bin"
    atomic_write_bytes(path, b"first")
    assert path.read_bytes() == b"first"
    atomic_write_bytes(path, b"second, longer than the first")
    assert path.read_bytes() == b"second, longer than the first"
    atomic_write_bytes(path, b"")
    assert path.read_bytes() == b""
    assert os.listdir(tmp_path) == ["new.bin"]


def test_atomic_write_replaces_the_file_instead_of_rewriting_it(target: Path) -> None:
    # A reader that opened the old file keeps reading the whole old content: the new content
    # goes to another file that is renamed over the old name, never into the old file.
    with target.open("rb") as reader:
        atomic_write_bytes(target, b"new content, all of it\n")
        assert reader.read() == b"old content\n"
    assert target.read_bytes() == b"new content, all of it\n"


def test_atomic_write_sets_the_mode(tmp_path: Path) -> None:
    atomic_write_bytes(tmp_path / "a", b"x")
    atomic_write_bytes(tmp_path / "b", b"x", mode=0o640)
    assert (tmp_path / "a").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "b").stat().st_mode & 0o777 == 0o640 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _fail(*args: Any, **kwargs: Any) -> None:
    raise OSError(28, "No space left on device")


@pytest.mark.parametrize("step", ["write", "fsync", "replace"])
def test_failure_before_the_rename_leaves_the_old_file_and_no_temp_file(
        target: Path, step: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, step, _fail)
    with pytest.raises(OSError, match="No space left"):
        atomic_write_bytes(target, b"new content\n")
    monkeypatch.undo()
    assert target.read_bytes() == b"old content\n"
    assert os.listdir(target.parent) == [target.name]


def test_a_writer_told_the_file_changed_meanwhile_replaces_nothing(target: Path) -> None:
    asked: list[bytes] = []

    def still() -> bool:  # asked once the new content is on disk, before the rename
        asked.append(target.read_bytes())
        target.write_bytes(b"a person's save\n")
        return False

    assert atomic_write_bytes(target, b"new content\n", still=still) is False
    assert asked == [b"old content\n"]
    assert target.read_bytes() == b"a person's save\n"
    assert os.listdir(target.parent) == [target.name]  # no temp file left
    assert atomic_write_bytes(target, b"new content\n", still=lambda: True) is True
    assert target.read_bytes() == b"new content\n"


def test_write_all_continues_after_short_writes(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = os.write
    calls = []

    def short_write(fd: int, data: Any) -> int:
        calls.append(len(data))
        return real_write(fd, bytes(data[:3]))

    path = tmp_path / "out"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        monkeypatch.setattr(os, "write", short_write)
        write_all(fd, b"0123456789")
        monkeypatch.undo()
    finally:
        os.close(fd)
    assert path.read_bytes() == b"0123456789"
    assert calls == [10, 7, 4, 1]


def test_atomic_write_json_round_trips_through_read_json_object(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    value = {"b": [1, 2], "a": {"nested": "é"}}
    atomic_write_json(path, value)
    assert path.read_bytes().endswith(b"}\n")
    assert read_json_object(path) == value


def test_read_json_object_of_a_missing_file_is_none(tmp_path: Path) -> None:
    assert read_json_object(tmp_path / "missing.json") is None


@pytest.mark.parametrize("raw", [b"{", b"", b"{'a': 1}", b"\xff"])
def test_read_json_object_names_the_file_when_it_is_not_json(tmp_path: Path, raw: bytes) -> None:
    path = tmp_path / "broken.json"
    path.write_bytes(raw)
    with pytest.raises(ValueError, match="not valid JSON") as info:
        read_json_object(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize(("value", "kind"), [([1, 2], "list"), ("text", "str"), (3, "int"),
                                             (None, "NoneType")])
def test_read_json_object_names_the_file_when_it_is_not_an_object(tmp_path: Path, value: Any,
                                                                  kind: str) -> None:
    path = tmp_path / "other.json"
    path.write_bytes(orjson.dumps(value))
    with pytest.raises(ValueError, match="expected a JSON object") as info:
        read_json_object(path)
    assert str(path) in str(info.value)
    assert kind in str(info.value)


@pytest.mark.parametrize(("durable", "fsyncs"), [(True, 2), (False, 0)])
def test_atomic_write_fsyncs_only_when_durable(target: Path, monkeypatch: pytest.MonkeyPatch,
                                               durable: bool, fsyncs: int) -> None:
    # durable: the file and then its directory; not durable (a mark whose loss is harmless):
    # neither, and still replaced whole by a rename
    calls: list[int] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with target.open("rb") as reader:
        atomic_write_bytes(target, b"new\n", durable=durable)
        assert reader.read() == b"old content\n"
    assert target.read_bytes() == b"new\n"
    assert len(calls) == fsyncs
    assert os.listdir(target.parent) == [target.name]


def test_stale_temp_files_of_a_killed_writer_are_removed_not_this_process_s(
        tmp_path: Path) -> None:
    # a SIGKILL mid-write leaves atomic_write_bytes's temp file, which a purge must not keep
    other = tmp_path / ".job.json.999999999.tmp"
    mine = tmp_path / f".state.json.{os.getpid()}.tmp"  # may be in use: left alone
    kept = [tmp_path / "job.json", tmp_path / ".hidden", tmp_path / ".x.json.tmp"]
    for path in [other, mine, *kept]:
        path.write_bytes(b"zucchini")
    assert files.remove_stale_temps(tmp_path) == 1
    assert not other.exists()
    assert mine.exists()
    assert all(path.exists() for path in kept)
    assert files.remove_stale_temps(tmp_path / "missing") == 0


def test_remove_if_present_says_whether_there_was_one(tmp_path: Path) -> None:
    path = tmp_path / "leftover.tmp"
    path.write_bytes(b"x")
    assert remove_if_present(path) is True
    assert not path.exists()
    assert remove_if_present(path) is False  # a step run again finds it gone
