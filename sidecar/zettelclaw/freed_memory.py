"""Memory that large work freed, given back to the system.

glibc's allocator keeps what Python frees in its heap for reuse, and returns the top of the
heap only: after a cold index build, the build's transient objects (lines, dicts, rows) stay in
the sidecar's resident size for as long as it runs, although nothing uses them
(bench/README.md#memory). ``give_back`` asks glibc to return every free page; it is called
after work that freed a lot (a large catch-up, a rebuild, a pass of the embedding model over
what had no vector). Elsewhere (musl, macOS) it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import sys
from collections.abc import Callable

# A catch-up that indexed this many entries is worth a trim: below it the allocator's time to
# trim buys back little (bench/README.md#memory).
AFTER_ENTRIES = 10_000
# glibc's malloc arenas at most (mallopt M_ARENA_MAX), for ``serve``. By default glibc gives
# threads up to 8 per core, each reserving 64 MB of address space and keeping its own free
# pages, so every memory's threads (tantivy's, onnxruntime's, trio's workers) ran a sidecar of
# many agents out of address space, where a Rust allocation failing aborts the process
# (bench/README.md#agents).
ARENAS = 2
M_ARENA_MAX = -8  # glibc's malloc.h


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim: Callable[[int], int] = libc.malloc_trim  # a CDLL call lets the GIL go
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        return None
    return trim


def limit_arenas(arenas: int = ARENAS) -> bool:
    """Let glibc's malloc use at most ``arenas`` arenas from now on (threads made later share
    them); False where that cannot be done here, or when ``MALLOC_ARENA_MAX`` says otherwise."""
    if not sys.platform.startswith("linux") or "MALLOC_ARENA_MAX" in os.environ:
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt: Callable[[int, int], int] = libc.mallopt
    except (OSError, AttributeError):  # not glibc
        return False
    return bool(mallopt(M_ARENA_MAX, arenas))


def give_back() -> bool:
    """Return the heap's free pages to the system; False where that cannot be done here. Call
    it from a worker thread: it walks the heap."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
