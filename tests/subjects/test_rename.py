"""Renaming a subject in the log (``zettelclaw.subjects.rename.rewrite_subject_locked``).

Covers: only the ``subject`` field of entries with the old slug changes (slug text in content,
detail, other slugs and invalid lines is left alone); every other line, blank lines and a torn
tail included, is byte-for-byte the same; the entry count and the result's counts; renaming onto
an existing slug (a merge); a failure before the write in place leaves the log's lines as they
were and no temp file.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.conftest import entry, line
from tests.direct import Direct
from zettelclaw import lock
from zettelclaw.errors import LogRewriteError
from zettelclaw.home import Home
from zettelclaw.log.schema import parse_entry_json
from zettelclaw.log.store import LogStore
from zettelclaw.subjects import rename as rename_module
from zettelclaw.subjects.rename import RewriteResult, rewrite_subject_locked

WriteLog = Callable[..., list[dict[str, Any]]]


@pytest.fixture
def rename(home: Home) -> Callable[[str, str], RewriteResult]:
    """rewrite_subject_locked with the data lock held, as its callers do."""

    def run(old: str, new: str) -> RewriteResult:
        with lock.exclusive(home.lock):
            return rewrite_subject_locked(home, old, new)

    return run


def count_entries(home: Home) -> int:
    return sum(1 for _ in LogStore(home).entries())


def test_only_the_subject_field_of_matching_entries_changes(
        home: Home, write_log: WriteLog, rename: Callable[[str, str], RewriteResult]) -> None:
    items: list[dict[str, Any] | bytes] = [
        entry(subject="auth", content="the auth slug is auth", detail='"subject":"auth"'),
        entry(subject="auth-v2", content="auth"),  # a longer slug that starts the same
        entry(content="no subject, mentions auth"),
        b"\n",
        b'{"id":"e99999999998","type":"fact","subject":"auth","oops":1}\n',  # invalid line
        b"   \n",
        entry("task", subject="auth", status="done"),
        entry(subject="other", replaces="e00000000001"),
        b'{"id": "e99999999997", "timestamp": "2026-02-20T14:00:00Z", "type": "question", '
        b'"content": "hand written", "subject": "auth", "session": "s"}\n',
        b'{"id":"e99999999996","subject":"auth","content":"torn',  # torn tail, no newline
    ]
    write_log(*items)
    old_lines = home.log.read_bytes().split(b"\n")
    entries_before = count_entries(home)

    result = rename("auth", "identity")

    new_lines = home.log.read_bytes().split(b"\n")
    # the torn tail is ended with a newline, so that the next append starts a line of its own
    assert new_lines[-1] == b""
    new_lines = new_lines[:-1]
    assert len(new_lines) == len(old_lines)
    rewritten = 0
    for old, new in zip(old_lines, new_lines, strict=True):
        try:
            was = parse_entry_json(old)
        except ValueError:
            was = None
        if was is not None and was.subject == "auth":
            # The same fields with the same values, except the subject.
            assert orjson.loads(new) == {**orjson.loads(old), "subject": "identity"}
            rewritten += 1
        else:
            assert new == old
    assert rewritten == 3
    assert new_lines[-1] == b'{"id":"e99999999996","subject":"auth","content":"torn'
    assert count_entries(home) == entries_before == 6
    assert (result.rewritten, result.entries, result.size) == (3, 6, home.log.stat().st_size)
    assert home.log.stat().st_mode & 0o777 == 0o600


def test_field_order_is_kept_in_a_rewritten_line(
        home: Home, write_log: WriteLog, rename: Callable[[str, str], RewriteResult]) -> None:
    value = entry(subject="auth", detail="why")
    write_log(value)
    rename("auth", "identity")
    assert home.log.read_bytes() == line({**value, "subject": "identity"})


def test_renaming_onto_an_existing_slug_merges(
        home: Home, write_log: WriteLog, rename: Callable[[str, str], RewriteResult]) -> None:
    write_log(entry(subject="auth-migration"), entry(subject="auth"), entry(subject="auth"),
              entry(subject="auth-migration"), entry(subject="max"))
    result = rename("auth", "auth-migration")
    subjects = [e.subject for e in LogStore(home).entries()]
    assert subjects == ["auth-migration"] * 4 + ["max"]
    assert (result.rewritten, result.entries) == (2, 5)


def test_open_tail_entry_is_rewritten_and_ended_with_a_newline(
        home: Home, write_log: WriteLog, rename: Callable[[str, str], RewriteResult]) -> None:
    first, last = entry(subject="auth"), entry(subject="auth")
    write_log(first, line(last)[:-1])
    result = rename("auth", "identity")
    assert home.log.read_bytes() == (
        line({**first, "subject": "identity"}) + line({**last, "subject": "identity"}))
    assert (result.rewritten, result.entries) == (2, 2)


def test_no_matching_entry_leaves_the_bytes_as_they_were(
        home: Home, write_log: WriteLog, rename: Callable[[str, str], RewriteResult]) -> None:
    write_log(entry(subject="max"), b"junk\n", entry(content="auth"))
    before = home.log.read_bytes()
    result = rename("auth", "identity")
    assert home.log.read_bytes() == before
    assert (result.rewritten, result.entries, result.size) == (0, 2, len(before))


def test_empty_log(home: Home, rename: Callable[[str, str], RewriteResult]) -> None:
    result = rename("auth", "identity")
    assert (result.rewritten, result.entries, result.size) == (0, 0, 0)
    assert home.log.read_bytes() == b""


def _fail(*args: Any, **kwargs: Any) -> None:
    raise OSError(28, "No space left on device")


@pytest.mark.parametrize("step", ["replace", "fsync"])
def test_failure_before_the_rename_leaves_the_log_and_no_temp_file(
        home: Home, write_log: WriteLog, rename: Callable[[str, str], RewriteResult],
        step: str, monkeypatch: pytest.MonkeyPatch) -> None:
    write_log(entry(subject="auth"), b"junk\n", entry(subject="max"), b'{"torn')
    before = home.log.read_bytes()
    inode = home.log.stat().st_ino

    monkeypatch.setattr(os, step, _fail)
    with pytest.raises(OSError, match="No space left"):
        rename("auth", "identity")
    monkeypatch.undo()

    # every line as it was: at most the torn tail ended, and the room a longer text needs made
    # at the end (a line of spaces: blank), before the failure
    after = home.log.read_bytes()
    assert after.startswith(before)
    assert after[len(before):].strip(b" \n") == b""
    assert home.log.stat().st_ino == inode
    assert sorted(os.listdir(home.root)) == ["lock", "log.jsonl"]


def test_a_log_that_changes_while_being_rewritten_is_left_alone(
        home: Home, write_log: WriteLog, rename: Callable[[str, str], RewriteResult],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The check before the rename: if the copy does not hold the same entries (here the source
    # is truncated between sizing and copying), the rewrite is abandoned.
    write_log(entry(subject="auth"), entry(subject="max"), entry(subject="auth"))
    before = home.log.read_bytes()
    real_fstat = os.fstat

    def fstat_then_shrink(fd: int) -> os.stat_result:
        st = real_fstat(fd)
        if Path(os.readlink(f"/proc/self/fd/{fd}")) == home.log:
            monkeypatch.setattr(os, "fstat", real_fstat)
            home.log.write_bytes(before[:10])
        return st

    monkeypatch.setattr(os, "fstat", fstat_then_shrink)
    with pytest.raises(LogRewriteError):
        rename("auth", "identity")
    assert sorted(os.listdir(home.root)) == ["lock", "log.jsonl"]
    assert home.log.read_bytes() == before[:10]  # what was there; nothing was renamed over it


def test_an_entry_after_torn_bytes_is_renamed_and_the_torn_bytes_kept(
        home: Home, write_log: WriteLog, rename: Callable[[str, str], RewriteResult]) -> None:
    """Such a line is read as its entry (log/lines.py); the rename rewrites
    that entry in place, the bytes before it as they were."""
    torn = b'{"id":"e99999999990","subject":"auth","content":"torn'
    write_log(torn + line(entry(subject="auth", content="after the crash")))
    result = rename("auth", "login")
    assert result.rewritten == 1
    data = home.log.read_bytes()
    assert data.startswith(torn + b"{")
    assert orjson.loads(data[len(torn):])["subject"] == "login"


class _Killed(BaseException):
    """A kill -9 landing mid-write (no clean-up runs)."""


def test_a_write_in_place_cut_short_is_finished_at_start(
        home: Home, write_log: WriteLog, rename: Callable[[str, str], RewriteResult],
        workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_log(entry(subject="auth", content="one " * 500), entry(subject="max"),
              entry(subject="auth"))

    def half_then_killed(journal: Path, fd: int, length: int) -> None:
        os.pwrite(fd, journal.read_bytes()[:length // 2], 0)  # the log's start torn
        raise _Killed

    monkeypatch.setattr(rename_module, "_copy_into", half_then_killed)
    with pytest.raises(_Killed):
        rename("auth", "identity")
    monkeypatch.undo()
    assert rename_module.record_path(home).exists()
    Direct.open(home, workspace).close()  # the next start finishes the write
    assert [e.subject for e in LogStore(home).entries()] == ["identity", "max", "identity"]
    assert sorted(os.listdir(home.root)).count("log.jsonl") == 1
    assert not rename_module.record_path(home).exists()
    assert not rename_module.temp_path(home).exists()
