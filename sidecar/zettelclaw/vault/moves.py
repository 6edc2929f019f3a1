"""Pages the person renamed or moved, found again: a page the vault state knows that is no
longer where the state says is looked for among the vault's other Markdown files, first by its
stamp (a rename keeps the file's time and size), then by its block ids (more than half of the
ids a file carries are the page's own, and it carries at least half of the lines the page
showed). The state then knows the page by its new place: its
edits are read there, the build adds to it there, and the old place is not made again.

Nothing is read while every page is where the state says (one ``lstat`` a page); a deleted page
costs a walk of the vault's folders (names only) and a read of the files the state does not
know. Obsidian's trash (``.trash/``) and every other dot-folder are not looked in: a page moved
there was deleted.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path, PurePath

from zettelclaw.vault import blocks, pages
from zettelclaw.vault.state import VaultState


def missing(root: Path, state: VaultState) -> list[str]:
    """The pages the state knows whose file is gone from its place (one ``lstat`` a page)."""
    gone = []
    for rel in state.pages:
        try:
            os.lstat(root / rel)
        except (FileNotFoundError, NotADirectoryError):
            gone.append(rel)
    return gone


def follow(root: Path, state: VaultState) -> dict[str, str]:
    """The missing pages found elsewhere in the vault, re-keyed in ``state`` (their items keep
    their file): ``{old place: new place}``."""
    gone = missing(root, state)
    if not gone:
        return {}
    others = [rel for rel in _markdown(root) if rel not in state.pages]
    found: dict[str, str] = {}
    by_stamp = {tuple(stamp): rel for rel in gone if (stamp := state.pages[rel].stamp)}
    for rel in others:
        stamp = pages.page_stamp(root, PurePath(rel))
        old = by_stamp.get(tuple(stamp)) if stamp else None
        if old is not None and old not in found:
            found[old] = rel
    left = [rel for rel in gone if rel not in found]
    ranked = []
    for rel in (o for o in others if left and o not in found.values()):
        carried = _carried(root, rel)
        for old in left:
            items = state.pages[old].items
            shared = len(carried & items.keys())
            shown = sum(1 for item in items.values() if item[0] is not None)
            # most of what the file carries is the page's, and most of what the page showed
            # is in the file: a note holding a few lines copied from a deleted page is not it
            if shared * 2 > len(carried) and shared * 2 >= shown:
                ranked.append((shared, PurePath(old).name == PurePath(rel).name, old, rel))
    for _, _, old, rel in sorted(ranked, reverse=True):
        if old not in found and rel not in found.values():
            found[old] = rel
    for old, new in found.items():
        _rekey(state, old, new)
    return found


def _rekey(state: VaultState, old: str, new: str) -> None:
    state.pages[new] = state.pages.pop(old)  # its items keep their file (state.py)
    state.subjects = {slug: new if rel == old else rel for slug, rel in state.subjects.items()}
    state.moved = {was: new if now == old else now for was, now in state.moved.items()}
    state.moved[old] = new
    state.moved = {was: now for was, now in state.moved.items() if was != now}


def _carried(root: Path, rel: str) -> set[str]:
    text = pages.read_page(root, PurePath(rel)) or ""
    return {m.group(1) for row in text.split("\n") if (m := blocks.BLOCK_AT_END.search(row))}


def _markdown(root: Path) -> Iterator[str]:
    """The vault's Markdown files (relative), links not followed, dot-folders left out."""
    for here, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name.endswith(".md"):
                yield os.path.relpath(os.path.join(here, name), root)
