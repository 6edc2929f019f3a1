"""What the build rendered, per page: derived state kept beside the index
(``vault-state.json`` in the memory's directory), so a rebuild appends only what is new and
``sync`` can tell a person's edit from what was written.

Per page: its kind, its ``created``/``updated`` dates, and per block id the line as rendered
(without the block id) with the lengths of its prefix and suffix around the entry's text
(``None`` as the line: the entry is shown on the page by another line, one the person edited
into it). Deleting the file forgets the vault: the next build starts a new one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from zettelclaw.files import atomic_write_bytes
from zettelclaw.home import Home

VERSION = 1
Item = list[Any]  # [line | None, prefix length, suffix length]


@dataclass
class PageState:
    kind: str  # journal, topic, index
    created: str
    updated: str
    items: dict[str, Item] = field(default_factory=dict)


@dataclass
class VaultState:
    root: str
    line: int = 0  # the last log line rendered
    pages: dict[str, PageState] = field(default_factory=dict)
    subjects: dict[str, str] = field(default_factory=dict)  # slug -> its page


def state_path(home: Home) -> Path:
    return home.root / "vault-state.json"


def lock_path(home: Home) -> Path:
    return home.root / "vault.lock"


def load(home: Home) -> VaultState | None:
    try:
        raw = orjson.loads(state_path(home).read_bytes())
    except (FileNotFoundError, orjson.JSONDecodeError):
        return None
    if not isinstance(raw, dict) or raw.get("version") != VERSION:
        return None
    pages = {rel: PageState(p["kind"], p["created"], p["updated"], p["items"])
             for rel, p in raw["pages"].items()}
    return VaultState(raw["root"], raw["line"], pages, raw["subjects"])


def save(home: Home, state: VaultState) -> None:
    data = {"version": VERSION, "root": state.root, "line": state.line,
            "subjects": state.subjects,
            "pages": {rel: {"kind": p.kind, "created": p.created, "updated": p.updated,
                            "items": p.items} for rel, p in state.pages.items()}}
    atomic_write_bytes(state_path(home), orjson.dumps(data))


def forget(home: Home) -> None:
    state_path(home).unlink(missing_ok=True)
