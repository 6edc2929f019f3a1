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
from types import SimpleNamespace
from typing import IO, Any, TypeVar, cast

import orjson
import pytest

from tests.direct import open_app
from tests.importing.test_import_chatgpt import T0
from tests.importing.test_import_chatgpt import conversation as chatgpt_conversation
from tests.importing.test_import_chatgpt import message as chatgpt_message
from tests.importing.test_import_cli import _no_openclaw_config, run, site  # noqa: F401 (fixtures)
from zettelclaw.app import App
from zettelclaw.cli import importing as cli_importing
from zettelclaw.home import Home
from zettelclaw.importing import cancel, importer, reading, registry
from zettelclaw.importing.items import Note, Problem
from zettelclaw.importing.sources import (
    clawvault,
    exports,
    json_list,
    memory_core,
    openclaw_sessions,
)
from zettelclaw.protocol.params import ImportApplyParams

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
    return list(json_list.elements(io.BytesIO(data), "conversations.json"))


def test_a_run_of_white_space_is_not_an_export() -> None:
    found = elements(b"[" + b" " * (json_list.WS_CAP + 10) + b"{}]")
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
    monkeypatch.setattr(json_list, "ELEMENT_CAP", 1 << 20)
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

@pytest.mark.usefixtures("_no_openclaw_config")
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

@pytest.mark.usefixtures("_no_openclaw_config")
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


# -- a newer export of the same account: only what came since -------------------------------------

@pytest.fixture
def app(home: Home, workspace: Path) -> Iterator[App]:
    opened = open_app(home, workspace)
    yield opened
    opened.close()


def chat(messages: list[tuple[str, str]]) -> dict[str, Any]:
    """A ChatGPT conversation of these (role, text) turns, one a minute."""
    nodes: list[tuple[str, str | None, dict[str, Any] | None]] = [("root", None, None)] + [
        (f"n{i}", "root" if i == 0 else f"n{i - 1}",
         chatgpt_message(f"n{i}", role, [text], T0 + 60 * i))
        for i, (role, text) in enumerate(messages)]
    return chatgpt_conversation("c-long", nodes, f"n{len(messages) - 1}")


def test_a_continued_conversation_sends_only_what_came_since(tmp_path: Path, app: App) -> None:
    """At 00f0efb a ChatGPT conversation continued by one message was extracted again in full
    (billed again, its facts written twice)."""
    said = [(("user", "assistant")[i % 2], f"garden note {i}: the roses by the wall want water")
            for i in range(30)]
    turns = [*said, ("user", "my sister Ana lives in Porto"), ("assistant", "Noted: Ana, Porto."),
             ("user", "she is a nurse"), ("assistant", "Noted.")]
    export = tmp_path / "conversations.json"
    export.write_bytes(orjson.dumps([chat(turns[:-2])]))
    source = importer.Source("chatgpt", export, "main")
    full = importer.plan(app, importer.Source("chatgpt", _written(tmp_path / "all.json",
                                                                  chat(turns)), "main"))
    first = importer.apply(app, source)
    assert first.conversations == 1
    export.write_bytes(orjson.dumps([chat(turns)]))  # the newer export: the chat went on
    plan = importer.plan(app, source)
    assert (plan.conversations, plan.messages) == (1, 2)
    assert plan.estimate.tokens < full.estimate.tokens  # not billed for the old part again
    second = importer.apply(app, source)
    assert second.conversations == 1
    [job] = [j for j in app.extraction.spool.jobs() if j.imported == second.import_id]
    assert [m["text"] for m in job.messages] == ["she is a nurse", "Noted."]
    # the end of the earlier part (12 messages), as context
    assert [m["text"] for m in job.context] == [t for _, t in turns[-14:-2]]
    prompt = app.extraction.prompt(job)
    assert prompt.index("my sister Ana lives in Porto") < prompt.index("extract from here") \
        < prompt.index("she is a nurse")
    assert importer.plan(app, source).conversations == 0  # and a third time: nothing new


def _written(path: Path, conversation: dict[str, Any]) -> Path:
    path.write_bytes(orjson.dumps([conversation]))
    return path


# -- the time left counts the budget's stop -------------------------------------------------------

class Answers:
    """``import.apply``'s answers in turn, each read at its time on a clock the test moves."""

    def __init__(self, answers: list[tuple[float, dict[str, Any]]]) -> None:
        self.answers = answers
        self.now = 0.0

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        assert method == "import.apply"
        self.now, answer = self.answers.pop(0)
        return answer


def test_the_time_left_is_when_the_budget_stops_the_apply(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """At 00f0efb it was the items left at the items' rate: 8 s here, while the budget stops the
    apply 3.5 s on."""
    def answer(done: int, spooled: int, state: str = "running") -> dict[str, Any]:
        return {"importId": "i-1", "state": state, "stopReason": None, "done": done,
                "total": 100, "notes": 0, "conversations": 0, "skipped": 0,
                "spooledTokens": spooled, "budget": 1000, "problems": []}

    backend = Answers([(1.0, answer(10, 100)), (2.0, answer(20, 300)),
                       (3.0, answer(30, 1000, "stopped"))])
    # the module's clock only (not the process's): ``time`` as the module sees it
    monkeypatch.setattr(cli_importing, "time", SimpleNamespace(monotonic=lambda: backend.now))
    result = cli_importing._apply(backend, ImportApplyParams(path="/x"))
    assert result.state == "stopped"
    lines = capsys.readouterr().err.splitlines()
    assert lines[1] == ("importing i-1: 20/100 items, 10.0/s, about 4 s left (then the budget "
                        "stops it)")


# -- a long reading stops when the sidecar does --------------------------------------------------

CONVERSATION = b'{"id": 1, "title": "' + b"x" * 4000 + b'"},'  # a few per KiB: quick to cut


class Endless(io.RawIOBase):
    """A stream of small conversations without end; ``reached`` is set once it has given
    ``after`` bytes."""

    def __init__(self, after: int) -> None:
        self.given, self.after, self.reached = 0, after, threading.Event()

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if self.given == 0:
            self.given = 1
            return b"["
        self.given += size
        if self.given > self.after:
            self.reached.set()
        return (CONVERSATION * (size // len(CONVERSATION) + 1))[:size]


def test_an_endless_export_scan_stops_when_asked() -> None:
    """At 00f0efb a scan in the sidecar's worker thread could not be stopped: a shutdown
    waited for it to end."""
    stream = Endless(after=1)  # stopped once it reads: it would never end by itself
    stop = threading.Event()
    outcome: list[BaseException | int] = []

    def scan() -> int:
        return len(list(json_list.elements(cast(IO[bytes], stream), "conversations.json")))

    def work() -> None:
        try:
            outcome.append(cancel.run(stop, scan))
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    assert stream.reached.wait(GUARD)
    stop.set()
    thread.join(GUARD)
    assert not thread.is_alive(), "the scan did not stop"
    assert len(outcome) == 1
    assert isinstance(outcome[0], cancel.Stopped)


def test_an_import_read_stops_between_items(monkeypatch: pytest.MonkeyPatch, home: Home,
                                            tmp_path: Path) -> None:
    many = threading.Event()

    def endless(kind: str, path: Path, *, agent: str) -> Iterator[Note]:
        n = 0
        while True:
            n += 1
            if n == 1000:
                many.set()
            yield Note(f"memory-core:x#{n}", "fact", f"fact {n}", None, "x.md")

    monkeypatch.setattr(registry, "read", endless)
    stop = threading.Event()
    source = importer.Source("memory-core", tmp_path, "main")
    outcome: list[BaseException | object] = []

    def work() -> None:
        try:
            outcome.append(cancel.run(stop, lambda: reading.read(home, source)))
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    assert many.wait(GUARD)
    stop.set()
    thread.join(GUARD)
    assert not thread.is_alive(), "the reading did not stop"
    assert isinstance(outcome[0], cancel.Stopped)


@pytest.mark.usefixtures("_no_openclaw_config")
def test_a_long_scan_says_how_far_it_got(monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str],
                                         site: list[str], tmp_path: Path) -> None:  # noqa: F811
    """At 00f0efb a plan of a large export said nothing until it was done."""
    monkeypatch.setattr(json_list, "PROGRESS_BYTES", 1 << 20)
    export = tmp_path / "conversations.json"
    export.write_bytes(orjson.dumps([chat([("user", "x" * 20_000), ("assistant", "ok")])
                                     | {"id": f"c{i}", "conversation_id": f"c{i}"}
                                     for i in range(160)]))  # 3.2 MB in few conversations
    rc, _, err = run(capsys, *site, "import", "chatgpt", str(export))
    assert rc == 0, err
    assert "reading conversations.json: 1 MiB so far" in err
    assert "reading conversations.json: 3 MiB so far" in err
