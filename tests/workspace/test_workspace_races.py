"""The workspace's memory files under attack: a file swapped for a link
to a secret or for a FIFO between the check and the read, and a huge sparse file."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.timing import scaled
from zettelclaw.errors import NotFoundError, PathNotAllowedError
from zettelclaw.safe_open import read_capped
from zettelclaw.workspace.memory_files import read_slice

OUTSIDE_BYTES = "BYTES-FROM-A-FILE-OUTSIDE-THE-WORKSPACE"


def flipper(path: Path, secret: Path, stop: threading.Event) -> None:
    """Swap ``path`` between a memory file and a link to the secret, as fast as it can."""
    spare = path.with_name(".spare")
    link = path.with_name(".link")
    while not stop.is_set():
        spare.write_text("# notes\nordinary memory\n")
        os.replace(spare, path)
        link.unlink(missing_ok=True)
        link.symlink_to(secret)
        os.replace(link, path)


@pytest.mark.slow
def test_a_file_swapped_for_a_link_never_yields_the_links_target(tmp_path: Path) -> None:
    """c7e1242 returned the outside file's bytes in 638 of 4,775 gets."""
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    secret = tmp_path / "secret.txt"
    secret.write_text(OUTSIDE_BYTES)
    target = workspace / "memory" / "x.md"
    target.write_text("# notes\n")
    stop = threading.Event()
    thread = threading.Thread(target=flipper, args=(target, secret, stop))
    thread.start()
    outcomes = {"read": 0, "refused": 0}
    try:
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            try:
                got = read_slice(workspace, "memory/x.md")
            except (NotFoundError, PathNotAllowedError):
                outcomes["refused"] += 1
                continue
            assert OUTSIDE_BYTES not in got.text
            outcomes["read"] += 1
    finally:
        stop.set()
        thread.join()
    assert outcomes["read"] > 50, outcomes  # the race was run: both sides were seen
    assert outcomes["refused"] > 50, outcomes


def test_a_file_swapped_for_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    fifo = workspace / "memory" / "x.md"
    os.mkfifo(fifo)
    # listed as a FIFO it is not a memory file; reached by its path it is refused, at once
    started = time.monotonic()
    with pytest.raises((NotFoundError, PathNotAllowedError)):
        read_slice(workspace, "memory/x.md")
    assert time.monotonic() - started < scaled(5)  # c7e1242 blocked in open() for a writer


def test_a_fifo_behind_a_checked_path_does_not_block_the_open(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    """The check saw a regular file; a FIFO took its place before the open."""
    from zettelclaw.workspace import memory_files

    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    path = workspace / "memory" / "x.md"
    path.write_text("# notes\n")
    real_resolve = memory_files.resolve

    def then_swap(ws: Path, p: str) -> tuple[Path, str]:
        found = real_resolve(ws, p)
        path.unlink()
        os.mkfifo(path)
        return found

    monkeypatch.setattr(memory_files, "resolve", then_swap)
    with pytest.raises(PathNotAllowedError, match="not a regular file"):
        read_slice(workspace, "memory/x.md")


def test_a_read_is_capped(tmp_path: Path) -> None:
    big = tmp_path / "big"
    with big.open("wb") as f:
        f.truncate(10 << 20)
    fd = os.open(big, os.O_RDONLY)
    try:
        assert len(read_capped(fd, 1 << 20)) == 1 << 20
    finally:
        os.close(fd)


# The peak from /proc (VmHWM, this process's own): getrusage's ru_maxrss after exec still
# holds the parent's peak, which in a full pytest run is over a gigabyte.
INDEX_A_HUGE_FILE = """
import re, sys
from pathlib import Path
from zettelclaw.index.database import Index
from zettelclaw.index.file_chunks import WorkspaceIndexer
root = Path(sys.argv[1])
indexer = WorkspaceIndexer(Index(root / "index.sqlite"), root / "ws")
synced = indexer.sync()
peak_kib = int(re.search(r"VmHWM:\\s+(\\d+) kB", Path("/proc/self/status").read_text())[1])
print(synced, peak_kib // 1024)
"""


@pytest.mark.slow  # a process indexing a 1 GiB file: its peak RSS is the measure
def test_a_huge_sparse_memory_file_costs_its_cap_not_its_size(tmp_path: Path) -> None:
    """c7e1242: a 1 GiB sparse file took the process from 54 MiB to 1.1 GiB."""
    (tmp_path / "ws" / "memory").mkdir(parents=True)
    huge = tmp_path / "ws" / "memory" / "huge.md"
    with huge.open("wb") as f:
        f.write(b"# huge\nsome words at the start\n")
        f.truncate(1 << 30)
    done = subprocess.run([sys.executable, "-c", INDEX_A_HUGE_FILE, str(tmp_path)],
                          capture_output=True, text=True, timeout=scaled(300), check=True)
    indexed, peak_mib = map(int, done.stdout.split())
    assert indexed == 1
    assert peak_mib < 400, f"peak RSS {peak_mib} MiB"
