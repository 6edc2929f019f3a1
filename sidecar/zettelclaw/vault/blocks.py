"""Entry ids as Obsidian block ids, and back.

Obsidian's block ids (``^id`` at the end of a line; Obsidian keeps them and hides them in
reading view) may hold Latin letters, digits and dashes only, and its links to them are not
reliably case-sensitive. Entry ids use ``[0-9A-Za-z_-]``, so they are mapped: a lowercase
letter or a digit stays, an uppercase letter becomes ``-`` and its lowercase, ``-`` becomes
``-1`` and ``_`` becomes ``-2``. Every escape is two characters, so decoding is unambiguous,
and the whole is prefixed with ``zc`` so a rendered line is told from a person's own block id.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from zettelclaw.log.schema import ID_RE

PREFIX = "zc"
# a rendered line ends with " ^zc..." (the block id), perhaps followed by spaces
BLOCK_AT_END = re.compile(r"\s\^(" + PREFIX + r"[a-z0-9-]+)\s*$")
# a block id anywhere in a text; ``carried`` keeps those after a space or at the start (a line
# carries it), not a link's ``#^zc...`` (another entry's line pointing at it). Led by the literal
# ``^``, so a search skips along a long line (a lookbehind first is 50 times slower)
_ANYWHERE = re.compile(r"\^(" + PREFIX + r"[a-z0-9-]+)(?=\s|$)", re.MULTILINE)


def carried(text: str) -> Iterator[str]:
    """The block ids the lines of ``text`` carry (at their end or anywhere as ``^zc...``)."""
    for found in _ANYWHERE.finditer(text):
        at = found.start()
        if at == 0 or text[at - 1].isspace():
            yield found.group(1)


_ESCAPES = str.maketrans({"-": "-1", "_": "-2",
                          **{c: "-" + c.lower() for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}})


def encode(entry_id: str) -> str:
    return PREFIX + entry_id.translate(_ESCAPES)


def decode(block: str) -> str | None:
    """The entry id of a block id this module made, or None."""
    if not block.startswith(PREFIX):
        return None
    text, out, i = block[len(PREFIX):], [], 0
    while i < len(text):
        char = text[i]
        if char != "-":
            out.append(char)
            i += 1
            continue
        nxt = text[i + 1:i + 2]
        if nxt == "1":
            out.append("-")
        elif nxt == "2":
            out.append("_")
        elif nxt.isalpha() and nxt.islower():
            out.append(nxt.upper())
        else:
            return None
        i += 2
    entry_id = "".join(out)
    return entry_id if ID_RE.match(entry_id) else None
