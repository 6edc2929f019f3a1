"""freed_memory.py: the heap's free pages go back to the system (glibc's malloc_trim); and the
work that frees a lot gives them back: a large catch-up, a rebuild (index/syncer.py). The
vectorizer's pass: tests/search/test_vectorizer.py."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import entry
from tests.direct import open_app
from tests.timing import scaled
from zettelclaw import freed_memory
from zettelclaw.app import App
from zettelclaw.home import Home


def resident_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_freed_heap_pages_go_back_to_the_system() -> None:
    # 1-KB objects come from malloc's heap (Python's own allocator takes those up to 512
    # bytes); one kept in every 64 pins the heap's top, as the index's live objects do
    blocks = [bytes(1024) for _ in range(150_000)]
    kept = blocks[::64]
    del blocks
    before = resident_mb()
    assert freed_memory.give_back()
    assert before - resident_mb() > 50, "~140 MB were free in the heap"
    assert kept


@pytest.fixture
def app(home: Home, workspace: Path) -> Iterator[App]:
    made = open_app(home, workspace, serving=True)
    yield made
    made.close()


async def test_a_large_catch_up_gives_back_what_it_freed(
        app: App, write_log: Callable[..., Any], trims: list[int],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(freed_memory, "AFTER_ENTRIES", 5)
    write_log(*[entry() for _ in range(4)])
    await app.syncer.fresh()
    assert trims == [], "a small catch-up frees little"
    write_log(*[entry() for _ in range(5)])
    await app.syncer.fresh()
    assert trims == [1]


async def test_a_rebuild_gives_back_what_it_freed(
        app: App, write_log: Callable[..., Any], trims: list[int]) -> None:
    write_log(entry())
    await app.syncer.exclusive(app.freshness.rebuild)
    assert trims == [1]


ARENAS_SCRIPT = r"""
import ctypes, ctypes.util, sys, threading
from zettelclaw import freed_memory
if sys.argv[1] == "limited":
    assert freed_memory.limit_arenas()
libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
libc.malloc.restype = ctypes.c_void_p
barrier = threading.Barrier(8)
def one():
    barrier.wait()  # all alive at once: each one's first malloc looks for an arena
    libc.malloc(4096)
    barrier.wait()
threads = [threading.Thread(target=one) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
libc.malloc_stats()  # one "Arena N:" block per arena, on stderr
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")
@pytest.mark.parametrize("mode", ["limited", "default"])
def test_serve_limits_glibcs_malloc_arenas(mode: str) -> None:
    """Threads of many memories, an arena each (64 MB of address space each)."""
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    done = subprocess.run([sys.executable, "-c", ARENAS_SCRIPT, mode], env=env,
                          capture_output=True, text=True, timeout=scaled(60), check=True)
    arenas = done.stderr.count("Arena ")
    if mode == "limited":
        assert 1 <= arenas <= freed_memory.ARENAS
    else:
        assert arenas > freed_memory.ARENAS, "the test would see a limit that is not set"
