"""A ClawVault vault: a folder of Markdown pages in category folders, with YAML frontmatter
(the layout: shared/design/clawvault-vault-structure.md). What each page becomes:
``clawvault_pages.py``.

Which pages are read: every ``*.md`` under the vault, but not the vault's own state
(``.clawvault/`` and any folder whose name starts with a dot), ``templates/``, the root
``README.md`` (generated), ``ledger/raw/`` (copies of session transcripts: import the sessions
themselves with the OpenClaw source), ``ledger/reflections/`` and ``ledger/archive/`` (rewritten
from the observations, which are read). Symbolic links are not followed.

The frontmatter is YAML (ClawVault writes it with gray-matter / js-yaml), read by PyYAML's safe
loader narrowed to what a page needs (``_FrontmatterLoader``): scalars stay strings but for
``null``/``~``/empty and ``true``/``false`` (so a number or a date is the text written), no
tags beyond the safe ones, no aliases (a page cannot expand into gigabytes), at most
``MAX_DEPTH`` levels and ``FRONTMATTER_CAP`` bytes. A top-level value is a string, a boolean,
None or a list of those (a list's other items are left out); a nested mapping is None. A page
whose frontmatter is not closed, is not YAML or is not a mapping is a Problem naming the line,
and is not imported; so is a page that is not UTF-8 or larger than ``PAGE_CAP``.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from zettelclaw.importing.items import Item, Problem
from zettelclaw.importing.sources.clawvault_pages import KNOWN, SOURCE, Page, items
from zettelclaw.safe_open import read_regular

PAGE_CAP = 4 << 20
FRONTMATTER_CAP = 256 << 10  # ClawVault's are a few hundred bytes
MAX_DEPTH = 16
_SKIPPED_DIRS = {"templates", "node_modules"}
_SKIPPED_LEDGER = {"raw", "reflections", "archive"}

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
    source = "".join(lines[1:end])
    if len(source.encode()) > FRONTMATTER_CAP:
        raise FrontmatterError(2, f"larger than {FRONTMATTER_CAP:,} bytes")
    try:
        loaded = yaml.load(source, Loader=_FrontmatterLoader)  # noqa: S506  (a safe loader)
    except yaml.MarkedYAMLError as error:
        # where the construct began (a quote never closed) rather than where YAML gave up
        mark = error.context_mark or error.problem_mark
        line = 2 + (mark.line if mark is not None else 0)  # after the opening '---'
        said = ", ".join(str(part) for part in (error.context, error.problem) if part)
        raise FrontmatterError(line, said or "not YAML") from None
    except yaml.YAMLError as error:
        raise FrontmatterError(2, str(error)) from None
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, dict):
        raise FrontmatterError(2, "not 'key: value' lines")
    fields = {str(key): _field(value) for key, value in loaded.items()}
    return fields, "".join(lines[end + 1:]), end + 2


class _FrontmatterLoader(yaml.SafeLoader):
    """PyYAML's safe loader, without aliases, deeper than ``MAX_DEPTH``, and with only the
    null and boolean scalars resolved (YAML 1.2's spellings: ``yes`` is a string)."""

    yaml_implicit_resolvers: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
    _depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
            raise yaml.composer.ComposerError(None, None, "an alias (*name) is not read here",
                                              mark)
        if self._depth >= MAX_DEPTH:
            raise yaml.composer.ComposerError(None, None, f"nested deeper than {MAX_DEPTH}",
                                              self.peek_event().start_mark)  # type: ignore[no-untyped-call]
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


_FrontmatterLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
_FrontmatterLoader.add_implicit_resolver(
    "tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""])


def _field(value: object) -> Value:
    if isinstance(value, list):
        return [_scalar(item) for item in value if _is_scalar(item)]
    return _scalar(value) if _is_scalar(value) else None


def _is_scalar(value: object) -> bool:
    return value is None or isinstance(value, str | bool)


def _scalar(value: Any) -> Scalar:
    return value.strip() if isinstance(value, str) else value


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


