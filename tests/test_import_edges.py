"""The import's readers at their edges: files that are not regular files, exports that are not
exports, scans bounded in memory by what can be conversations. Each reading runs in a thread
joined with a timeout, so a reader that blocks fails the test instead of hanging the suite."""

from __future__ import annotations

import io
import json
import os
import threading
import tracemalloc
import zipfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

import pytest

from tests.test_import_cli import _no_openclaw_config, run, site  # noqa: F401 (fixtures)
from zettelclaw.importing.items import Note, Problem
from zettelclaw.importing.sources import clawvault, exports, memory_core, openclaw_sessions

T = TypeVar("T")
GUARD = 30.0  # seconds: a guard against a reader that blocks, never a timing check


def within_guard(read: Callable[[], Iterator[T]]) -> list[T]:
    """The items ``read`` yields, read in a daemon thread: a reader that blocks (a FIFO opened
    for reading waits for a writer) fails here instead of hanging the suite."""
    got: list[list[T]] = []
    failed: list[BaseException] = []

    def work() -> None:
        try:
            got.append(list(read()))
        except BaseException as exc:
            failed.append(exc)

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(GUARD)
    if thread.is_alive():
        pytest.fail(f"the reader did not return in {GUARD} s: it blocked")
    if failed:
        raise failed[0]
    return got[0]


def problems(items: Sequence[object]) -> list[Problem]:
    return [i for i in items if isinstance(i, Problem)]


def test_a_fifo_among_the_daily_notes_is_a_problem_naming_it(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "2026-01-05.md").write_text("- the car is a blue Volvo\n")
    os.mkfifo(tmp_path / "memory" / "2026-01-06.md")
    items = within_guard(lambda: memory_core.read(tmp_path))
    assert [n.content for n in items if isinstance(n, Note)] == ["the car is a blue Volvo"]
    [problem] = problems(items)
    assert problem.origin == "memory/2026-01-06.md"
    assert "FIFO" in problem.message


def test_a_fifo_named_as_the_source_is_a_problem_naming_it(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "MEMORY.md")
    [problem] = within_guard(lambda: memory_core.read(tmp_path / "MEMORY.md"))
    assert isinstance(problem, Problem)
    assert problem.origin == "MEMORY.md"
    assert "FIFO" in problem.message


def test_a_fifo_page_in_a_vault_is_a_problem_naming_it(tmp_path: Path) -> None:
    (tmp_path / ".clawvault").mkdir()
    (tmp_path / "facts").mkdir()
    (tmp_path / "facts" / "car.md").write_text("# Car\n\nA blue Volvo.\n")
    os.mkfifo(tmp_path / "facts" / "pipe.md")
    items = within_guard(lambda: clawvault.read(tmp_path))
    assert len([i for i in items if isinstance(i, Note)]) == 1
    [problem] = problems(items)
    assert problem.origin == "facts/pipe.md"
    assert "FIFO" in problem.message


def test_a_fifo_as_an_export_or_its_member_is_a_problem(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "conversations.json")
    [problem] = within_guard(lambda: exports.read_export(tmp_path / "conversations.json"))
    assert isinstance(problem, Problem)
    assert "FIFO" in problem.message
    [problem] = within_guard(lambda: exports.read_export(tmp_path))  # the unpacked folder
    assert isinstance(problem, Problem)
    assert exports.sniff(tmp_path / "conversations.json") is None


def test_a_fifo_in_openclaws_legacy_sessions_is_a_problem(tmp_path: Path) -> None:
    sessions = tmp_path / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    os.mkfifo(sessions / "s1.jsonl")
    os.mkfifo(sessions / "sessions.json")
    items = within_guard(lambda: openclaw_sessions.read(tmp_path))
    assert {p.origin for p in problems(items)} == {str(sessions / "s1.jsonl"),
                                                   str(sessions / "sessions.json")}


def test_a_fifo_as_openclaws_store_is_a_problem(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "openclaw-agent.sqlite")
    [problem] = within_guard(lambda: openclaw_sessions.read(tmp_path / "openclaw-agent.sqlite"))
    assert isinstance(problem, Problem)
    assert "FIFO" in problem.message


def test_a_legacy_transcript_line_without_end_is_a_problem(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    monkeypatch.setattr(openclaw_sessions, "LINE_CAP", 1 << 16)
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    (sessions / "s1.jsonl").write_bytes(b"x" * (1 << 18))
    items = list(openclaw_sessions.read(tmp_path))
    [problem] = problems(items)
    assert problem.origin == f"{sessions / 's1.jsonl'}, line 1"


# -- exports: bounded by what can be conversations ------------------------------------------------

def elements(data: bytes) -> list[exports.Element | Problem]:
    return list(exports._elements(io.BytesIO(data), "conversations.json"))


def test_a_run_of_white_space_is_not_an_export() -> None:
    found = elements(b"[" + b" " * (exports.WS_CAP + 10) + b"{}]")
    [problem] = found
    assert isinstance(problem, Problem)
    assert problem.origin == "conversations.json, byte 1"
    assert "white space" in problem.message


def test_a_scalar_without_end_is_not_json() -> None:
    """At 00f0efb a list opened and then zero bytes (a sparse file) was kept whole, the buffer
    doubling, until the file's end."""
    found = elements(b'[{"id": 1}, ' + b"\x00" * (4 << 20))
    assert isinstance(found[0], exports.Element)
    assert isinstance(found[-1], Problem)
    assert "not JSON" in found[-1].message


def test_a_string_too_large_to_hold_is_skipped_in_bounded_memory(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A string larger than a conversation may be (inside one, or as the element itself) is
    scanned once and never held: at 00f0efb the scan kept it from its opening quote, rescanned
    it as the buffer doubled, and held all of it."""
    monkeypatch.setattr(exports, "ELEMENT_CAP", 1 << 20)
    size = 24 << 20
    for data in (b'[{"text": "' + b"a" * size + b'"}, {"id": 2}]',
                 b'["' + b"a" * size + b'", {"id": 2}]'):
        tracemalloc.start()
        try:
            found = elements(data)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert isinstance(found[0], Problem)
        assert "skipped" in found[0].message
        assert isinstance(found[1], exports.Element)
        assert found[1].value == {"id": 2}
        assert peak < 8 << 20, peak


# -- bad input is exit 2, naming the file ---------------------------------------------------------

def test_a_broken_export_applied_exits_2_naming_the_file(
        capsys: pytest.CaptureFixture[str], site: list[str], tmp_path: Path) -> None:  # noqa: F811
    """At 00f0efb both said "nothing new to import (all of it was imported before)", exit 0."""
    good = io.BytesIO()
    with zipfile.ZipFile(good, "w") as archive:
        archive.writestr("conversations.json", b"[]" + b" " * 4096)
    truncated = tmp_path / "broken.zip"
    truncated.write_bytes(good.getvalue()[:-40])
    foreign = tmp_path / "export.json"
    foreign.write_text('{"not": "an export"')
    for path in (truncated, foreign):
        rc, out, err = run(capsys, *site, "import", "chatgpt", str(path), "--apply")
        assert rc == 2, (out, err)
        assert str(path) in err
        assert "nothing new" not in out
        rc, out, err = run(capsys, *site, "import", "chatgpt", str(path))
        assert rc == 2, (out, err)
    assert not (tmp_path / "home" / "imports").exists()


# -- rollback takes what the import wrote, nothing else -------------------------------------------

def test_a_rollback_keeps_the_owners_later_correction(
        capsys: pytest.CaptureFixture[str], site: list[str], tmp_path: Path) -> None:  # noqa: F811
    """At 00f0efb the rollback purged every version of the imported entries: the owner's
    correction (``replaces`` an imported note) went with them (3,001 purged of 3,000)."""
    old = tmp_path / "old"
    (old / "memory").mkdir(parents=True)
    (old / "memory" / "2026-01-05.md").write_text("- my cat is Tobi\n- the car is a blue Volvo\n")
    rc, out, _ = run(capsys, *site, "import", str(old), "--apply", "--json")
    assert rc == 0, out
    import_id = json.loads(out)["importId"]
    rc, out, _ = run(capsys, *site, "log", "--json")
    tobi = next(e["id"] for e in json.loads(out)["results"] if "Tobi" in e["content"])
    rc, out, _ = run(capsys, *site, "remember", "fact", "my cat is Toby, not Tobi", "--replaces",
                     tobi, "--json")
    assert rc == 0, out
    correction = json.loads(out)["id"]

    rc, out, _ = run(capsys, *site, "import", "--rollback", import_id, "--json")
    assert rc == 0, out
    rolled = json.loads(out)
    assert rolled["entries"] == 2
    assert rolled["kept"] == [{"id": correction, "content": "my cat is Toby, not Tobi",
                               "replaced": tobi, "replacedContent": "my cat is Tobi"}]
    rc, out, _ = run(capsys, *site, "log", "--json")
    assert [e["id"] for e in json.loads(out)["results"]] == [correction]
    rc, out, _ = run(capsys, *site, "search", "Toby", "--json")
    assert correction in out  # current, and found
