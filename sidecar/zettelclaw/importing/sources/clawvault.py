"""A ClawVault vault: a folder of Markdown pages in category folders, with YAML frontmatter
(the layout: shared/design/clawvault-vault-structure.md). What each page becomes:
``clawvault_pages.py``.

Which pages are read: every ``*.md`` under the vault, but not the vault's own state
(``.clawvault/`` and any folder whose name starts with a dot), ``templates/``, the root
``README.md`` (generated), ``ledger/raw/`` (copies of session transcripts: import the sessions
themselves with the OpenClaw source), ``ledger/reflections/`` and ``ledger/archive/`` (rewritten
from the observations, which are read). Symbolic links are not followed.

The frontmatter is read by a small parser of the subset ClawVault writes (it uses gray-matter /
js-yaml): ``key: value`` with plain, single- or double-quoted scalars, ``null``/``~``, booleans;
flow lists ``[a, "b"]``; block lists (``- item`` lines under the key); block scalars
(``|`` and ``>``); comments; nested mappings are skipped. Numbers stay strings. A page whose
frontmatter is not closed or has a line outside that subset is a Problem naming the line, and is
not imported; so is a page that is not UTF-8 or larger than ``PAGE_CAP``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

from zettelclaw.importing.items import Item, Problem
from zettelclaw.importing.sources.clawvault_pages import KNOWN, SOURCE, Page, items
from zettelclaw.safe_open import read_regular

PAGE_CAP = 4 << 20
_SKIPPED_DIRS = {"templates", "node_modules"}
_SKIPPED_LEDGER = {"raw", "reflections", "archive"}
_KEY = re.compile(r"([A-Za-z_][\w.-]*)\s*:(?:\s+(.*))?$")
_ITEM = re.compile(r"-(?:\s+(.*))?$")

Scalar = str | bool | None
Value = Scalar | list[Scalar]


class FrontmatterError(ValueError):
    """A frontmatter line outside the supported subset; ``line`` counts from 1 in the file."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


def detect(path: Path) -> str | None:
    """"clawvault" when ``path`` is a vault: it holds ``.clawvault.json`` or ``.clawvault/``,
    or three of ClawVault's category folders."""
    if not path.is_dir():
        return None
    if (path / ".clawvault.json").is_file() or (path / ".clawvault").is_dir():
        return SOURCE
    known = sum(1 for name in KNOWN if (path / name).is_dir())
    return SOURCE if known >= 3 else None


def read(path: Path) -> Iterator[Item]:
    """The notes and conversations of the vault at ``path``, page by page, in path order."""
    if not path.is_dir():
        yield Problem(str(path), "not a folder: a ClawVault vault is a folder of pages")
        return
    unreadable: list[OSError] = []
    for file in _pages(path, unreadable):
        rel = file.relative_to(path).as_posix()
        page = _load(file, rel)
        if isinstance(page, Problem):
            yield page
        else:
            yield from items(page)
    for error in unreadable:
        where = Path(error.filename).relative_to(path).as_posix() if error.filename else str(path)
        yield Problem(where, f"folder cannot be read: {error.strerror or error}; left out")


def parse_frontmatter(text: str) -> tuple[dict[str, Value], str, int]:
    """The frontmatter's fields, the body after it and the body's first line in the file;
    raises FrontmatterError."""
    if not text.startswith("---") or text[3:4] not in ("\n", "\r", ""):
        return {}, text, 1
    lines = text.splitlines(keepends=True)
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        raise FrontmatterError(1, "the frontmatter opened by '---' is never closed")
    fields = _fields([line.rstrip("\r\n") for line in lines[1:end]])
    return fields, "".join(lines[end + 1:]), end + 2


def _fields(lines: list[str]) -> dict[str, Value]:
    fields: dict[str, Value] = {}
    i = 0
    while i < len(lines):
        line, number = lines[i], i + 2  # the file's line: after the opening '---'
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if "\t" in line[: len(line) - len(line.lstrip())]:
            raise FrontmatterError(number, "a tab in the indentation: YAML allows spaces only")
        if line[0] == " ":
            raise FrontmatterError(number, f"indented line without a key above it: {line!r}")
        found = _KEY.match(line)
        if found is None:
            raise FrontmatterError(number, f"not 'key: value': {line!r}")
        key, raw = found.group(1), (found.group(2) or "").strip()
        block = []
        while i < len(lines) and (not lines[i].strip() or lines[i][0] in " -"):
            if lines[i].startswith("-") and raw:
                break
            block.append((i + 2, lines[i]))
            i += 1
        fields[key] = _value(raw, block, number)
    return fields


def _value(raw: str, block: list[tuple[int, str]], number: int) -> Value:
    if raw in ("|", ">", "|-", ">-", "|+", ">+"):
        texts = [line.strip() for _, line in block]
        return ("\n" if raw[0] == "|" else " ").join(texts).strip()
    if raw and not raw.startswith("#"):
        if any(line.strip() for _, line in block):
            first = next(n for n, line in block if line.strip())
            raise FrontmatterError(first, "an indented line after a value on one line")
        return _flow(raw, number)
    items: list[Scalar] = []
    nested = False
    for line_number, line in block:
        content = line.strip()
        if not content or content.startswith("#"):
            continue
        item = _ITEM.match(content)
        if item is not None and not nested:
            items.append(_scalar(item.group(1) or "", line_number))
        elif _KEY.match(content) is not None and not items:
            nested = True  # a nested mapping: not used by ClawVault's readers, left out
        else:
            raise FrontmatterError(line_number, f"not a list item: {content!r}")
    return items if items and not nested else None


def _flow(raw: str, number: int) -> Value:
    if raw.startswith("["):
        if not raw.rstrip().endswith("]"):
            raise FrontmatterError(number, "a list opened by '[' is not closed on its line")
        inner = raw.strip()[1:-1]
        parts = re.findall(r'\s*("(?:[^"\\]|\\.)*"|\'(?:[^\']|\'\')*\'|[^,]+)\s*(?:,|$)', inner)
        return [_scalar(part.strip(), number) for part in parts if part.strip()]
    if raw.startswith("{"):
        return None  # a flow mapping: left out, like a nested one
    return _scalar(raw, number)


def _scalar(raw: str, number: int) -> Scalar:
    raw = raw.strip()
    if raw.startswith('"'):
        end = re.match(r'"((?:[^"\\]|\\.)*)"\s*(?:#.*)?$', raw)
        if end is None:
            raise FrontmatterError(number, f"a double-quoted value is not closed: {raw!r}")
        try:
            decoded = json.loads(f'"{end.group(1)}"')
        except ValueError:
            return end.group(1)
        return decoded if isinstance(decoded, str) else end.group(1)
    if raw.startswith("'"):
        end = re.match(r"'((?:[^']|'')*)'\s*(?:#.*)?$", raw)
        if end is None:
            raise FrontmatterError(number, f"a single-quoted value is not closed: {raw!r}")
        return end.group(1).replace("''", "'")
    plain = re.sub(r"\s+#.*$", "", raw).strip()
    if plain in ("", "~", "null", "Null", "NULL"):
        return None
    if plain in ("true", "True", "TRUE", "false", "False", "FALSE"):
        return plain.lower() == "true"
    return plain


def _pages(root: Path, unreadable: list[OSError]) -> Iterator[Path]:
    for folder, dirs, files in os.walk(root, onerror=unreadable.append):
        here = Path(folder)
        rel = here.relative_to(root).parts
        dirs[:] = sorted(name for name in dirs if _walked((*rel, name)))
        for name in sorted(files):
            file = here / name
            if name.endswith(".md") and not file.is_symlink() and (rel or name != "README.md"):
                yield file


def _walked(parts: tuple[str, ...]) -> bool:
    name = parts[-1]
    if name.startswith(".") or (len(parts) == 1 and name in _SKIPPED_DIRS):
        return False
    return not (len(parts) == 2 and parts[0] == "ledger" and name in _SKIPPED_LEDGER)


def _load(file: Path, rel: str) -> Page | Problem:
    try:
        data = read_regular(file, PAGE_CAP + 1, follow=False)
    except OSError as error:
        return Problem(rel, f"cannot be read: {error.strerror or error}")
    if len(data) > PAGE_CAP:
        return Problem(rel, f"larger than {PAGE_CAP:,} bytes: not a page; left out")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        return Problem(f"{rel}, line {line}", f"not UTF-8 (byte {error.start}): left out; "
                                              "save it as UTF-8 and import again")
    text = text.removeprefix("\ufeff")
    try:
        meta, body, first = parse_frontmatter(text)
    except FrontmatterError as error:
        return Problem(f"{rel}, line {error.line}",
                       f"broken frontmatter: {error}; the page is left out")
    first += body[: len(body) - len(body.lstrip())].count("\n")
    return Page(rel, meta, body.strip(), hashlib.sha256(data).hexdigest()[:16], first)


