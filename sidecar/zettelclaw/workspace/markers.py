"""Replacing the generated block of MEMORY.md: a pure text function, byte for byte outside it.

The block is what lies between a line holding ``<!-- BEGIN GENERATED BRIEFING -->`` and a line
holding ``<!-- END GENERATED BRIEFING -->`` (each alone on its line, white space and case aside).
Everything before the BEGIN line's end and from the END line's start is kept exactly, marker
lines included. Without markers, they are added at the end of the file, after a blank line.

Markers that cannot be read safely (a BEGIN without an END, an END first, more than one pair)
are an error rather than a guess: a wrong guess would overwrite what a person wrote.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from zettelclaw.errors import MarkersError

BEGIN = "<!-- BEGIN GENERATED BRIEFING -->"
END = "<!-- END GENERATED BRIEFING -->"
_BEGIN_LINE = re.compile(r"^[ \t]*<!--\s*BEGIN GENERATED BRIEFING\s*-->[ \t]*\r?$",
                         re.MULTILINE | re.IGNORECASE)
_END_LINE = re.compile(r"^[ \t]*<!--\s*END GENERATED BRIEFING\s*-->[ \t]*\r?$",
                       re.MULTILINE | re.IGNORECASE)


@dataclass(frozen=True)
class Layout:
    """The file cut around its block: ``head + block + tail == text`` when ``found``."""

    head: str  # up to and including the BEGIN line (its newline too)
    block: str  # between the marker lines
    tail: str  # from the start of the END line to the end of the file
    found: bool
    newline: str  # "\r\n" when the file uses it, else "\n"


def layout(text: str) -> Layout:
    """Where the block is; MarkersError when the markers are malformed."""
    newline = "\r\n" if re.search(r"\r\n", text[: text.find("\n") + 1]) else "\n"
    begins, ends = list(_BEGIN_LINE.finditer(text)), list(_END_LINE.finditer(text))
    if not begins and not ends:
        return Layout(text, "", "", False, newline)
    problem = None
    if len(begins) > 1 or len(ends) > 1:
        problem = f"{len(begins)} BEGIN and {len(ends)} END marker lines; expected one pair"
    elif not ends:
        problem = f"a BEGIN marker (line {_line(text, begins[0].start())}) without an END"
    elif not begins:
        problem = f"an END marker (line {_line(text, ends[0].start())}) without a BEGIN"
    elif ends[0].start() < begins[0].start():
        problem = "the END marker comes before the BEGIN marker"
    if problem is not None:
        raise MarkersError(f"MEMORY.md: {problem}; fix the markers by hand (nothing was "
                           "written)", {"problem": problem})
    begin, end = begins[0], ends[0]
    head_end = begin.end() + 1  # the BEGIN line's newline: an END line follows, so there is one
    line_newline = "\r\n" if text[begin.start():begin.end()].endswith("\r") else "\n"
    return Layout(text[:head_end], text[head_end:end.start()], text[end.start():], True,
                  line_newline)


def block_text(lines: Sequence[str], newline: str = "\n") -> str:
    return "".join(line + newline for line in lines)


def splice(text: str, lines: Sequence[str]) -> str:
    """``text`` with its block replaced by ``lines`` (markers appended when absent)."""
    parts = layout(text)
    body = block_text(lines, parts.newline)
    if parts.found:
        return parts.head + body + parts.tail
    head = text
    if head and not head.endswith("\n"):
        head += parts.newline
    if head.strip() and not head.endswith(parts.newline * 2):
        head += parts.newline  # a blank line between the manual part and the block
    return head + BEGIN + parts.newline + body + END + parts.newline


def count_lines(text: str) -> int:
    """Lines as a reader counts them: a last line without a newline is a line too."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1
