"""This data directory's machine id, and the files replication keeps beside the log.

The id is generated once per data directory, not per host: two data directories on one host
are two machines, each with its own file in a sync repository. It lives in
``HOME/replicate/machine`` (0600); it is created with a hard link from a fully written temp
file, so two processes starting at once agree on one id and a kill leaves no half-written id.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from zettelclaw.files import fsync_dir, write_all
from zettelclaw.home import DIR_MODE, FILE_MODE, Home
from zettelclaw.log.schema import ID_RE, new_id


def directory(home: Home) -> Path:
    """``HOME/replicate``: replication's own state (never synced)."""
    path = home.root / "replicate"
    path.mkdir(mode=DIR_MODE, exist_ok=True)
    return path


def machine_id(home: Home) -> str:
    """The id of this data directory, created on first use."""
    path = directory(home) / "machine"
    found = _read(path)
    if found is not None:
        return found
    tmp = path.with_name(f".machine.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    try:
        write_all(fd, new_id().encode() + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        with contextlib.suppress(FileExistsError):  # another process made it first: theirs
            os.link(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)
    found = _read(path)
    if found is None:
        raise ValueError(f"{path}: not a machine id; delete the file to make a new one")
    return found


def _read(path: Path) -> str | None:
    try:
        text = path.read_text().strip()
    except FileNotFoundError:
        return None
    if not ID_RE.match(text):
        raise ValueError(f"{path}: not a machine id ({text[:40]!r}); delete the file to make "
                         "a new one")
    return text
