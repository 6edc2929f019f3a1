"""OpenClaw memory-core's files in a workspace: ``MEMORY.md`` (the user's own part: Zettelclaw's
generated briefing block is left out, it is made from the log) and the daily notes
``memory/YYYY-MM-DD.md``.

What becomes what, without a model where the shape allows:

- a bullet line (``- ...``, ``* ...``, ``1. ...``) is a Note: a fact, a task when it is a
  checkbox (``- [ ]`` open, ``- [x]`` done), a decision when it starts ``Decision:``, a
  question when it ends with ``?``. In a daily note it is dated that day (12:00 UTC, so the day
  reads the same in every zone within 12 hours); in MEMORY.md it carries the file's modification
  time (it gives no other);
- a paragraph of prose (lines that are not bullets, under a heading or not) is not line-shaped:
  it becomes a one-message Conversation, the owner's own words, which extraction distills as it
  would a conversation (the model decides what of it is worth an entry);
- headings and blank lines only separate the rest;
- a fenced code block (between ````` or ``~~~`` lines) is neither: a bullet inside it is code,
  not an entry, and it is not sent as prose; it is left out, named in a Problem.

``source_id`` holds the file and a hash of the text (not the line number): an edit elsewhere in
the file does not make a note new.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from datetime import UTC, datetime, time
from pathlib import Path
from typing import Literal

from zettelclaw.errors import MarkersError
from zettelclaw.importing.items import Conversation, Item, Message, Note, NoteKind, Problem
from zettelclaw.safe_open import read_regular
from zettelclaw.workspace import markers

DAILY = re.compile(r"^(\d{4})-(\d{2})-(\d{2})\.md$")
BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*\S)\s*$")
CHECKBOX = re.compile(r"^\[( |x|X)\]\s+(.*)$")
HEADING = re.compile(r"^\s*#{1,6}\s")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")  # CommonMark's: closed by a fence as long or longer
MAX_FILE = 16 << 20  # a memory file larger than this is not a notes file


def read(path: Path) -> Iterator[Item]:
    """``path``: the workspace (holding MEMORY.md and memory/), or one of those files."""
    if not path.is_dir():
        if not path.exists():
            yield Problem(str(path), "no such workspace or file")
            return
        yield from _file(path, path.name)  # a FIFO or a device given: a problem naming it
        return
    memory_md = path / "MEMORY.md"
    if memory_md.is_file():
        yield from _file(memory_md, "MEMORY.md")
    daily = path / "memory"
    if daily.is_dir():
        for file in sorted(daily.glob("*.md")):
            yield from _file(file, f"memory/{file.name}")


def _file(path: Path, name: str) -> Iterator[Item]:
    try:
        data = read_regular(path, MAX_FILE + 1)
        if len(data) > MAX_FILE:
            yield Problem(name, f"more than {MAX_FILE >> 20} MiB: too large for a memory file; "
                                "skipped")
            return
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        yield Problem(f"{name}, byte {exc.start}", "not UTF-8 text; skipped")
        return
    except OSError as exc:
        yield Problem(name, f"cannot read: {exc.strerror or exc}")
        return
    day = DAILY.match(path.name)
    if day is not None:
        try:
            at = datetime.combine(datetime(int(day[1]), int(day[2]), int(day[3])).date(),
                                  time(12), UTC)
        except ValueError:
            yield Problem(name, "the name is not a real date; its lines are undated")
            at = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    else:
        at = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    lines: list[str] | Problem = text.splitlines()
    if path.name == "MEMORY.md":
        lines = _own_part(text, name)
    if isinstance(lines, Problem):
        yield lines
        return
    yield from _items(lines, name, at)


def _own_part(text: str, name: str) -> list[str] | Problem:
    """MEMORY.md without Zettelclaw's generated block (and its marker lines)."""
    try:
        parts = markers.layout(text)
    except MarkersError as exc:
        return Problem(name, f"{exc.message}; MEMORY.md was not imported")
    if not parts.found:
        return text.splitlines()
    head = parts.head.splitlines()[:-1]  # the BEGIN line
    tail = parts.tail.splitlines()[1:]  # the END line
    # blank lines where the block was keep line numbers out of step, but paragraphs apart
    return [*head, "", *tail]


def _items(lines: list[str], name: str, at: datetime) -> Iterator[Item]:
    seen: dict[str, int] = {}
    prose: list[tuple[int, str]] = []

    def key(text: str) -> str:
        digest = hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
        n = seen.get(digest, 0)
        seen[digest] = n + 1
        return f"memory-core:{name}#{digest}" + (f".{n}" if n else "")

    def flush() -> Iterator[Item]:
        if prose and any(not HEADING.match(t) for _, t in prose):
            body = "\n".join(t for _, t in prose).strip()
            yield Conversation(source_id=key(body), title=None,
                               messages=(Message("user", body, at),),
                               origin=f"{name}, lines {prose[0][0]}-{prose[-1][0]}")
        prose.clear()

    fence: tuple[str, int] | None = None  # the open fence's run and its line
    for number, line in enumerate(lines, 1):
        opened = FENCE.match(line)
        if fence is not None:
            if opened is not None and opened[1][0] == fence[0][0] and \
                    len(opened[1]) >= len(fence[0]) and not line[opened.end():].strip():
                yield _code(name, fence[1], number)
                fence = None
            continue
        if opened is not None:
            yield from flush()
            fence = (opened[1], number)
            continue
        bullet = BULLET.match(line)
        if bullet is None:
            if line.strip():
                prose.append((number, line.rstrip()))
            else:
                yield from flush()
            continue
        yield from flush()
        text = bullet[1]
        kind: NoteKind = "fact"
        status: Literal["open", "done"] | None = None
        box = CHECKBOX.match(text)
        if box is not None:
            kind, status, text = "task", ("open" if box[1] == " " else "done"), box[2].strip()
        elif text.lower().startswith("decision:"):
            kind, text = "decision", text[len("decision:"):].strip()
        elif text.endswith("?"):
            kind = "question"
        if not text:
            continue
        yield Note(source_id=key(f"{kind}\x00{text}"), kind=kind, content=text, at=at,
                   origin=f"{name}, line {number}", status=status)
    if fence is not None:  # never closed: it runs to the end, as Markdown reads it
        yield _code(name, fence[1], len(lines))
    yield from flush()


def _code(name: str, first: int, last: int) -> Problem:
    return Problem(f"{name}, lines {first}-{last}", "a fenced code block: not a note nor prose "
                                                    "to extract; left out")
