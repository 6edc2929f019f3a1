"""Where forgotten text still lives outside the log: lines of the workspace's memory files
(``MEMORY.md``, ``memory/*.md``) that hold it. They are the person's own files (an imported
workspace's notes, say): a forget does not edit them, and search finds them until they are
edited, so the answer names each line, and the way to take it out (``methods/forget.py``).

A line is named when it holds a forgotten entry's content, or the text the forget was asked
for, in any case and spacing. MEMORY.md's generated block (written again after a forget) is
left out: it is Zettelclaw's, not a copy the person keeps.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from zettelclaw.errors import ZettelclawError
from zettelclaw.files import atomic_write_bytes
from zettelclaw.workspace.markers import BEGIN, END
from zettelclaw.workspace.memory_files import list_files, read_slice

MAX_COPIES = 50  # lines named; past it the answer says there are more
MIN_NEEDLE = 3  # characters: shorter text would name half the files' lines
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Copy:
    path: str  # relative to the workspace
    line: int  # 1-based
    text: str  # the line, cut to 160 characters


def take_out(workspace: Path, copies: list[Copy]) -> set[tuple[str, int]]:
    """Delete the lines ``copies`` names from their files (asked for: ``editFiles``), each
    file replaced atomically, its mode kept, unless it changed since it was read (a save
    meanwhile: left as it is, its lines not deleted). A line whose text is no longer the one
    named, and a file too large to read whole, are left too. The lines deleted."""
    done: set[tuple[str, int]] = set()
    files = dict(list_files(workspace))
    for relative in sorted({c.path for c in copies} & files.keys()):
        with contextlib.suppress(ZettelclawError, OSError):
            real = files[relative]
            before = real.stat()
            part = read_slice(workspace, relative)
            if part.truncated:
                continue
            rows = part.text.splitlines(keepends=True)
            gone = {c.line for c in copies if c.path == relative and c.line <= len(rows)
                    and rows[c.line - 1].rstrip("\r\n").startswith(c.text.removesuffix("…"))}
            if not gone:
                continue
            kept = "".join(row for n, row in enumerate(rows, start=1) if n not in gone)
            if atomic_write_bytes(real, kept.encode(), before.st_mode & 0o777,
                                  still=partial(_unchanged, real, before)):
                done |= {(relative, n) for n in gone}
    return done


def _unchanged(path: Path, before: os.stat_result) -> bool:
    st = path.stat()
    return (st.st_mtime_ns, st.st_size) == (before.st_mtime_ns, before.st_size)


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip().casefold()


def in_memory_files(workspace: Path, texts: Iterable[str]) -> list[Copy]:
    """The lines of the memory files holding any of ``texts`` (at most ``MAX_COPIES``)."""
    needles = {n for n in (_norm(t) for t in texts) if len(n) >= MIN_NEEDLE}
    if not needles:
        return []
    found: list[Copy] = []
    for relative, _ in sorted(list_files(workspace)):
        with contextlib.suppress(ZettelclawError, OSError):  # gone, or not a readable file
            part = read_slice(workspace, relative)
            generated = False
            for number, row in enumerate(part.text.splitlines(), start=1):
                marker = _norm(row)
                generated = (generated or marker == _norm(BEGIN)) and marker != _norm(END)
                if not generated and any(n in marker for n in needles):
                    found.append(Copy(relative, number, row if len(row) <= 160
                                      else row[:160] + "…"))
                    if len(found) > MAX_COPIES:
                        return found
    return found
