"""Zstandard decompression for OpenClaw's compressed transcript events, with what is there.

OpenClaw 2026.9 stores a transcript event of 1 KiB or more zstd-compressed when its Node has
zstd (Node 24 has): a long message is usually compressed. Python has no zstd before 3.14, and the
sidecar takes no dependency for one import, so the first of these that is there decodes it:
``compression.zstd`` (Python 3.14), ``backports.zstd``, ``zstandard``, then the ``zstd`` command.
None: the event is reported (``MISSING`` says how to fix it).
"""

from __future__ import annotations

import importlib
import shutil
import subprocess
from collections.abc import Callable
from functools import cache

MISSING = ("neither Python's zstd (3.14, or the backports.zstd or zstandard package) nor the "
           "zstd command is installed to read it")
Decoder = Callable[[bytes], bytes]


@cache
def decoder() -> Decoder | None:
    """The first zstd decoder available, or None."""
    for name in ("compression.zstd", "backports.zstd"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        found: Decoder = module.decompress
        return found
    try:
        zstandard = importlib.import_module("zstandard")
    except ImportError:
        pass
    else:
        def with_zstandard(data: bytes) -> bytes:
            return bytes(zstandard.ZstdDecompressor().decompressobj().decompress(data))
        return with_zstandard
    command = shutil.which("zstd")
    if command is not None:
        def with_command(data: bytes) -> bytes:
            return subprocess.run([command, "-d", "-c", "-q"], input=data, capture_output=True,
                                  check=True, timeout=60).stdout
        return with_command
    return None


def decompress(data: bytes, size: int | None) -> str | None:
    """The event's JSON text, or None when no decoder is there or the bytes are not zstd of
    ``size`` bytes of UTF-8."""
    decode = decoder()
    if decode is None:
        return None
    try:
        raw = decode(data)
    except Exception:  # each decoder has its own (ZstdError, CalledProcessError, ...)
        return None
    if size is not None and len(raw) != size:
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
