"""Memory that large work freed, given back to the system.

glibc's allocator keeps what Python frees in its heap for reuse, and returns the top of the
heap only: after a cold index build, the build's transient objects (lines, dicts, rows) stay in
the sidecar's resident size for as long as it runs, although nothing uses them (bench/README.md,
"Memory"). ``give_back`` asks glibc to
return every free page; it is called after work that freed a lot (a large catch-up, a rebuild,
a pass of the embedding model over what had no vector). Elsewhere (musl, macOS) it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import sys
from collections.abc import Callable

# A catch-up that indexed this many entries is worth a trim: below it the allocator's time to
# trim buys back little (bench/README.md, "Memory").
AFTER_ENTRIES = 10_000


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


def give_back() -> bool:
    """Return the heap's free pages to the system; False where that cannot be done here. Call
    it from a worker thread: it walks the heap."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
