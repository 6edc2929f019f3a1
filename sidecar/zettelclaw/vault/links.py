"""A rendered line compared with the page's line up to its wiki-links' targets.

Obsidian rewrites every link to a page it renames or moves (``[[House]]`` becomes
``[[Home and House]]``, maybe ``[[Notes/Home and House|House]]``), in every page that links to
it. Such a line still says what the build wrote: a link rewrite is not an edit of the entry.
So each ``[[...]]`` of the rendered line matches any link in the page's line.
"""

from __future__ import annotations

import re

_LINK = re.compile(r"\[\[[^\[\]\n]*\]\]")
_ANY_LINK = r"\[\[[^\[\]\n]*\]\]"


def pattern(text: str) -> str:
    """A regular expression matching ``text`` with any link in place of each of its links."""
    out, at = [], 0
    for found in _LINK.finditer(text):
        out += [re.escape(text[at:found.start()]), _ANY_LINK]
        at = found.end()
    out.append(re.escape(text[at:]))
    return "".join(out)


def relinked(line: str, rendered: str) -> bool:
    """Whether ``line`` is ``rendered`` with only links' targets or labels changed."""
    return line != rendered and "[[" in rendered and \
        re.fullmatch(pattern(rendered), line, re.DOTALL) is not None


def split(line: str, rendered: str, prefix: int, suffix: int) -> tuple[int, int] | None:
    """The lengths of ``line``'s prefix and suffix when they are ``rendered``'s (its first
    ``prefix`` and last ``suffix`` characters) up to links; None when the person changed them."""
    head, tail = rendered[:prefix], rendered[len(rendered) - suffix:] if suffix else ""
    found = re.fullmatch(f"({pattern(head)})(.*)({pattern(tail)})", line, re.DOTALL)
    if found is None:
        return None
    return len(found.group(1)), len(found.group(3))
