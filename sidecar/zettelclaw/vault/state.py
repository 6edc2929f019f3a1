"""What the build rendered, per page: derived state kept beside the index
(``vault-state/`` in the memory's directory), so a rebuild appends only what is new and
``sync`` can tell a person's edit from what was written.

``vault-state/state.json`` holds the vault's folder, the last log line rendered, each subject's
page, each page's kind and ``created``/``updated`` dates, the pages the person moved (``moved``)
and the hidden entries taken off the pages (``hidden``). ``vault-state/pages/<key>.json``
holds, per page, each block id's line as rendered (without the block id) with the lengths of its
prefix and suffix around the entry's text (``None`` as the line: the entry is shown on the page
by another line, one the person edited into it). A page's lines are read only when the page is
touched, so a rebuild after one conversation reads and writes a few small files, not the whole
vault's. Page files are written before ``state.json``. Deleting the folder forgets the vault:
the pages already there then count as the person's (``vault build --from-scratch --force``
starts over).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from zettelclaw.files import atomic_write_bytes
from zettelclaw.home import Home

VERSION = 3
Item = list[Any]  # [line | None, prefix length, suffix length]


@dataclass
class PageState:
    kind: str  # journal, topic, index
    created: str
    updated: str
    file: Path | None = None  # where its items are kept (None: a new page, none yet)
    stamp: list[int] | None = None  # the file's [mtime_ns, size] when last written or read
    dirty: bool = False  # its items changed: written at the next save
    _items: dict[str, Item] | None = None

    @property
    def items(self) -> dict[str, Item]:
        if self._items is None:
            self._items = {}
            if self.file is not None:
                with contextlib.suppress(FileNotFoundError):
                    self._items = orjson.loads(self.file.read_bytes())
        return self._items


@dataclass
class VaultState:
    root: str
    line: int = 0  # the last log line rendered
    epoch: str | None = None  # the index's epoch when it was (vault_reads.epoch)
    pages: dict[str, PageState] = field(default_factory=dict)
    subjects: dict[str, str] = field(default_factory=dict)  # slug -> its page
    # a page the person renamed or moved: where the build would put it -> where it is now
    moved: dict[str, str] = field(default_factory=dict)
    hidden: list[str] = field(default_factory=list)  # the hidden entries taken off the pages


def state_dir(home: Home) -> Path:
    return home.root / "vault-state"


def state_path(home: Home) -> Path:
    return state_dir(home) / "state.json"


def lock_path(home: Home) -> Path:
    return home.root / "vault.lock"


def _page_file(home: Home, rel: str) -> Path:
    key = hashlib.blake2b(rel.encode(), digest_size=10).hexdigest()
    return state_dir(home) / "pages" / f"{key}.json"


def load(home: Home) -> VaultState | None:
    try:
        raw = orjson.loads(state_path(home).read_bytes())
    except (FileNotFoundError, NotADirectoryError, orjson.JSONDecodeError):
        return None
    if not isinstance(raw, dict) or raw.get("version") != VERSION:
        return None
    kept = state_dir(home) / "pages"
    pages = {rel: PageState(p["kind"], p["created"], p["updated"],
                            kept / p["file"] if p.get("file") else _page_file(home, rel),
                            p.get("stamp")) for rel, p in raw["pages"].items()}
    return VaultState(raw["root"], raw["line"], raw.get("epoch"), pages, raw["subjects"],
                      raw.get("moved", {}), raw.get("hidden", []))


def save(home: Home, state: VaultState, many: int = 50) -> None:
    """The changed pages' files, then state.json. More than ``many`` of them (a first build)
    are written without an fsync each, then flushed by one ``os.sync()`` before state.json."""
    (state_dir(home) / "pages").mkdir(parents=True, exist_ok=True, mode=0o700)
    dirty = [(rel, page) for rel, page in state.pages.items() if page.dirty]
    used = {page.file for page in state.pages.values() if page.file is not None}
    for rel, page in dirty:
        if page.file is None:
            page.file = _free_file(home, rel, used)
            used.add(page.file)
        atomic_write_bytes(page.file, orjson.dumps(page.items), durable=len(dirty) <= many)
        page.dirty = False
    if len(dirty) > many:
        os.sync()
    data = {"version": VERSION, "root": state.root, "line": state.line, "epoch": state.epoch,
            "subjects": state.subjects, "moved": state.moved,
            "hidden": state.hidden,
            "pages": {rel: {"kind": p.kind, "created": p.created, "updated": p.updated,
                            "stamp": p.stamp, **_named(home, rel, p.file)}
                      for rel, p in state.pages.items()}}
    atomic_write_bytes(state_path(home), orjson.dumps(data))


# A page's items keep their file when the page is renamed or moved (moves.py): the file is named
# by the page's first place, and state.json names it when that is not the page's place now (so a
# rename leaves no file behind, not even after a crash)
def _named(home: Home, rel: str, file: Path | None) -> dict[str, str]:
    return {"file": file.name} if file is not None and file != _page_file(home, rel) else {}


def _free_file(home: Home, rel: str, used: set[Path]) -> Path:
    """The items' file of a new page: named by its place, unless a page renamed from there
    holds that name."""
    file, n = _page_file(home, rel), 0
    while file in used:
        n += 1
        file = _page_file(home, f"{rel}\n{n}")
    return file


def forget(home: Home) -> None:
    shutil.rmtree(state_dir(home), ignore_errors=True)
