"""Shared fixtures: a data directory, a workspace, log writing helpers, a running server."""

from __future__ import annotations

import gc
import itertools
import os
import shutil
import tempfile
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest
import trio

from tests import timing
from tests.pg_server import pg_cluster, pg_team  # noqa: F401  (fixtures: a real Postgres 15)
from zettelclaw import freed_memory, lock
from zettelclaw.config import load_config
from zettelclaw.home import Home
from zettelclaw.index.database import Index
from zettelclaw.search import local_model
from zettelclaw.serve import Ready, ServerConfig, serve
from zettelclaw.state import update_state_locked

_ids = itertools.count(1)

# A memory's start (state.json ``since``) before every fixed past ``updatedAt`` the tests send:
# the gateway's sweep leaves out the sessions it has never seen that are older than it.
LONG_AGO = "1970-01-01T00:00:00Z"


def pytest_configure(config: pytest.Config) -> None:
    """One factor for the whole run: the workers (xdist) and the processes tests start inherit
    the one measured here."""
    os.environ.setdefault(timing.ENV, f"{timing.FACTOR:.2f}")


def pytest_report_header() -> str:
    """The factor every wait of the suite is scaled by (tests/timing.py), and why."""
    return f"waits scaled x{timing.FACTOR:.1f} ({timing.HOW})"


def make_id(n: int | None = None) -> str:
    """A valid, readable 12-character id: ``e00000000001`` and so on."""
    return f"e{next(_ids) if n is None else n:011d}"


def entry(type: str = "fact", content: str = "something learned", **fields: Any) -> dict[str, Any]:
    """A valid entry as a dict; any field can be overridden or added."""
    value: dict[str, Any] = {
        "id": make_id(),
        "timestamp": "2026-02-20T14:00:00Z",
        "type": type,
        "content": content,
        "session": "sess-1",
    }
    if type == "task":
        value["status"] = "open"
    value.update(fields)
    return {k: v for k, v in value.items() if v is not None}


def line(value: dict[str, Any]) -> bytes:
    return orjson.dumps(value) + b"\n"


@pytest.fixture(autouse=True)
def _no_real_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may reach a real model API, whatever the developer's environment holds; and
    sidecars started by tests (in-process or as subprocesses) load no embedding model unless
    the test asks for semantic search (tests/search/test_semantic.py does)."""
    for var in list(os.environ):
        if var.startswith(("ANTHROPIC_", "ZETTELCLAW_")):
            monkeypatch.delenv(var)
    monkeypatch.setenv("ZETTELCLAW_SEARCH_SEMANTIC", "off")


@pytest.fixture(autouse=True)
def _no_shared_model_left() -> Iterator[None]:
    """The embedding model is one per process (search/local_model.shared): a test that leaves
    its hold behind (or a stand-in a test put in place of the model) would hand it to every
    later test in this worker, and change what they count. Whatever is left is let go."""
    yield
    with local_model._shared_lock:
        left = [model for model, _ in local_model._shared.values()]
        local_model._shared.clear()
    for model in left:
        model.close()


@pytest.fixture(autouse=True)
def _thawed() -> Iterator[None]:
    """A sidecar started in-process freezes the objects that exist (long_lived.py): given back
    to the collector after each test, so that one test's garbage cycles are not kept for the
    rest of the session."""
    yield
    gc.unfreeze()


@pytest.fixture
def trims(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The heap trims asked for (freed_memory.give_back), recorded instead of done."""
    calls: list[int] = []

    def give_back() -> bool:
        calls.append(1)
        return True

    monkeypatch.setattr(freed_memory, "give_back", give_back)
    return calls


@pytest.fixture
def home(tmp_path: Path) -> Home:
    h = Home(tmp_path / "home")
    h.ensure()
    return h


def started(home: Home, since: str = LONG_AGO) -> Home:
    """Record ``home``'s memory as started at ``since`` (before the app first opens it: the
    start is recorded once and kept), as if Zettelclaw had been installed then."""
    home.ensure()
    with lock.exclusive(home.lock):
        update_state_locked(home, lambda state: setattr(state, "since", since))
    return home


@pytest.fixture
def index(home: Home) -> Iterator[Index]:
    """The SQLite index of ``home``, open for the test."""
    idx = Index(home.index)
    yield idx
    idx.close()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "workspace"
    (ws / "memory").mkdir(parents=True)
    return ws


@pytest.fixture
def write_log(home: Home) -> Callable[..., list[dict[str, Any]]]:
    """Append entries (dicts) or raw bytes to the log, as a person or another tool would."""

    def write(*items: dict[str, Any] | bytes) -> list[dict[str, Any]]:
        with home.log.open("ab") as f:
            for item in items:
                f.write(item if isinstance(item, bytes) else line(item))
        return [i for i in items if isinstance(i, dict)]

    return write


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A directory with a short path: Unix socket paths must fit in 107 bytes."""
    path = Path(tempfile.mkdtemp(prefix="zc-", dir="/tmp"))
    os.chmod(path, 0o700)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def server_config(home: Home, workspace: Path, short_dir: Path) -> ServerConfig:
    return ServerConfig(home=home, workspace=workspace, socket=short_dir / "s.sock",
                        max_message_bytes=64 * 1024,
                        settings=load_config(home, env={}, overrides=["search.semantic=off"]),
                        transcript_roots=(home.root.parent / "transcripts",))


@pytest.fixture
async def server(server_config: ServerConfig) -> AsyncIterator[Ready]:
    """A sidecar serving on a real Unix socket, started with ``nursery.start``."""
    async with trio.open_nursery() as nursery:
        ready: Ready = await nursery.start(serve, server_config)
        yield ready
        nursery.cancel_scope.cancel()


def nice_of_threads(pid: int | str = "self") -> dict[int, int]:
    """A process's threads and their nice values (Linux keeps one per thread)."""
    nice = {}
    for stat in Path(f"/proc/{pid}/task").glob("*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended meanwhile
            continue
        nice[int(stat.parent.name)] = int(fields[16])  # field 19 of stat: nice
    return nice


@contextmanager
def held_by_another_thread(index: Index) -> Iterator[None]:
    """For the block, another thread holds ``index`` (as a write or a worker's read would)."""
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with index.read():
            held.set()
            release.wait(10)

    other = threading.Thread(target=hold)
    other.start()
    try:
        assert held.wait(10), "the other thread never took the index"
        yield
    finally:
        release.set()
        other.join()
