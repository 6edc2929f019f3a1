"""Pages of the vault as text, and their files: read and written beneath the vault's root
without following a symbolic link, written atomically.

A page is edited only by inserting lines at the end of a section (before the next heading and
the blank lines above it); nothing already on the page is changed, except the ``updated:`` line
of the frontmatter the build wrote, while it still reads what the build wrote.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePath

from zettelclaw.errors import PathNotAllowedError
from zettelclaw.files import atomic_write_bytes

PAGE_MODE = 0o600
# Obsidian refuses these in a file name, or they break a [[link]]
_NOT_IN_NAMES = re.compile(r'[\x00-\x1f*"\\/<>:|?#^\[\]]')
_PLAIN = re.compile(r"^[A-Za-z0-9_.-]+$")


def safe_name(display: str) -> str:
    """A page name (without ``.md``) for a display name: Obsidian's forbidden characters
    replaced, no leading dot, at most 100 characters."""
    name = _NOT_IN_NAMES.sub("-", display).strip().lstrip(".").strip()
    return name[:100].strip() or "Untitled"


def yaml_scalar(value: str) -> str:
    """A YAML scalar: plain when it cannot be misread, else a JSON string (valid YAML)."""
    return value if _PLAIN.match(value) and not value[0].isdigit() else json.dumps(value)


def frontmatter(fields: Sequence[tuple[str, str]]) -> str:
    return "---\n" + "".join(f"{key}: {value}\n" for key, value in fields) + "---\n"


def new_page(head: str, sections: Sequence[str], lines: Mapping[str, list[str]]) -> str:
    parts = [head]
    for section in [*sections, *(s for s in lines if s not in sections)]:
        parts.append(f"\n## {section}\n")
        parts.extend(line + "\n" for line in lines.get(section, []))
    return "".join(parts)


def _is_heading(line: str) -> bool:
    return line.startswith("## ") or line.startswith("# ")


def insert_in_sections(text: str, lines: Mapping[str, list[str]]) -> str:
    """``text`` with ``lines`` added at the end of their sections; a section the page lacks
    (the person removed its heading) is added at the end of the page."""
    rows = text.split("\n")
    trailing_newline = text.endswith("\n")
    if trailing_newline:
        rows.pop()
    for section, added in lines.items():
        if not added:
            continue
        heading = f"## {section}"
        at = next((i for i, row in enumerate(rows) if row.rstrip() == heading), None)
        if at is None:
            while rows and not rows[-1].strip():
                rows.pop()
            rows += ["", heading, *added]
            continue
        end = next((i for i in range(at + 1, len(rows)) if _is_heading(rows[i])), len(rows))
        while end > at + 1 and not rows[end - 1].strip():
            end -= 1
        rows[end:end] = added
    return "\n".join(rows) + "\n"


def set_updated(text: str, old: str, new: str) -> str:
    """The frontmatter's ``updated: old`` line made ``updated: new``; anything else as is."""
    if not text.startswith("---\n"):
        return text
    end = text.find("\n---", 3)
    if end < 0:
        return text
    head = text[:end + 1]
    line = f"\nupdated: {old}\n"
    if line not in head:
        return text
    return head.replace(line, f"\nupdated: {new}\n", 1) + text[end + 1:]


def _checked_parts(relative: PurePath) -> tuple[str, ...]:
    parts = relative.parts
    if not parts or relative.is_absolute() or any(p in ("", ".", "..") for p in parts):
        raise PathNotAllowedError(f"{str(relative)!r} is not a path inside the vault")
    return parts


def ensure_dirs(root: Path, relative: PurePath) -> None:
    """The folders of ``relative`` under ``root``, made when missing; one that is a link or
    not a folder is refused (a page must not land outside the vault)."""
    here = root
    for part in _checked_parts(relative):
        here = here / part
        try:
            st = os.lstat(here)
        except FileNotFoundError:
            os.mkdir(here, 0o700)
            continue
        if not stat.S_ISDIR(st.st_mode):
            raise PathNotAllowedError(f"{here} is not a folder (a link or a file): the vault "
                                      "is not written through it")


def page_kind(root: Path, relative: PurePath) -> str:
    """``missing``, ``file`` (a regular file) or ``other`` (a link, a folder, ...): only a
    regular file reached through real folders is read or replaced."""
    here = root
    parts = _checked_parts(relative)
    for i, part in enumerate(parts):
        here = here / part
        try:
            st = os.lstat(here)
        except FileNotFoundError:
            return "missing"
        if i < len(parts) - 1 and not stat.S_ISDIR(st.st_mode):
            return "other"
    return "file" if stat.S_ISREG(st.st_mode) else "other"


def page_stamp(root: Path, relative: PurePath) -> list[int] | None:
    """The page's modification time (ns) and size, or None when it is not a regular file: a
    page whose stamp has not moved since the build wrote it (or sync read it) was not edited."""
    if page_kind(root, relative) != "file":
        return None
    st = os.lstat(root / relative)
    return [st.st_mtime_ns, st.st_size]


def read_page(root: Path, relative: PurePath) -> str | None:
    """The page's text, or None when it is missing or not a regular file."""
    if page_kind(root, relative) != "file":
        return None
    fd = os.open(root / relative, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks).decode("utf-8", errors="replace")


def write_page(root: Path, relative: PurePath, text: str, read_at: list[int] | None, *,
               durable: bool = True) -> bool:
    """Replace the page atomically (a temp file renamed over it: a link in its place is
    replaced, never followed), as it was read (at ``read_at``, its ``page_stamp``; None: it was
    missing) and changed: if it has another stamp by the time the new text is on disk (a
    person saved it meanwhile), nothing is replaced and this returns False, so that the writer
    reads it again rather than overwrite the person's save."""
    if relative.parent.parts:
        ensure_dirs(root, relative.parent)
    if page_kind(root, relative) == "other":
        raise PathNotAllowedError(f"{relative} is not a regular file: not replaced")

    def unchanged() -> bool:
        if read_at is None:
            return page_kind(root, relative) == "missing"
        return page_stamp(root, relative) == read_at

    return atomic_write_bytes(root / relative, text.encode(), PAGE_MODE, durable=durable,
                              still=unchanged)
