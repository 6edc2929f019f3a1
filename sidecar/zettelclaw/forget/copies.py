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
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from zettelclaw.errors import ZettelclawError
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
