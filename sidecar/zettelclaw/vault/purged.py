"""The block ids of the entries purged from the vault, kept so that a page an editor saves from
a stale copy (still holding lines the purge took off) loses them again instead of keeping the
purged text.

A purge (``scrub.py``) adds its entries' block ids to ``vault-state/purged.json`` before it
touches a page: ids only, never text. ``vault sync`` (and so the watch, at the save) reads it
only when a page it reads carries a block id the page's state does not know, and takes every
line carrying a purged id off that page again, as the purge did.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path, PurePath

import orjson

from zettelclaw.files import atomic_write_bytes
from zettelclaw.home import Home
from zettelclaw.vault import blocks, pages
from zettelclaw.vault.state import state_dir


def _path(home: Home) -> Path:
    return state_dir(home) / "purged.json"


def known(home: Home) -> frozenset[str]:
    """The block ids purged from this vault."""
    try:
        raw = orjson.loads(_path(home).read_bytes())
    except (FileNotFoundError, NotADirectoryError, orjson.JSONDecodeError):
        return frozenset()
    return frozenset(raw) if isinstance(raw, list) else frozenset()


def remember(home: Home, purged: Iterable[str]) -> None:
    """Add block ids to those purged (the state's folder must exist: a vault was built)."""
    before = known(home)
    after = before | frozenset(purged)
    if after != before:
        atomic_write_bytes(_path(home), orjson.dumps(sorted(after)))


def carries(text: str, purged: frozenset[str]) -> bool:
    """Whether a line of the page carries a purged block id (at its end or anywhere as
    ``^zc...``, not a link's ``#^zc...``)."""
    return any(block in purged for block in blocks.carried(text))


def drop(root: Path, rel: str, text: str, read_at: list[int], purged: frozenset[str]
         ) -> str | None:
    """The page without its lines carrying purged ids, replaced if it is still as read: its new
    text; None when it changed since (the person's save stands, for the next read)."""
    rows = text.split("\n")
    kept = "\n".join(row for row in rows if not carries(row, purged))
    return kept if pages.write_page(root, PurePath(rel), kept, read_at) else None


def unknown(text: str, items: Iterable[str]) -> bool:
    """Whether the page carries a block id its state does not know (a purged one may be back)."""
    return bool(set(blocks.carried(text)) - set(items))
