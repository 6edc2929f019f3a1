"""Hidden entries leave the vault's pages: a ``forget`` (or a struck line) takes an entry out of
every reader, and the vault is one. At each build, the entries hidden since the last one (the
index's ``hidden`` table, compared with the ids the state has taken off) lose every line that
carries their block id, on every page whose state names them, and their items; a page saved by a
person meanwhile is left for the next build. Given back (``forget --undo``), an entry is no
longer hidden: the index reads the log again, every entry is placed again, and each page adds
what it does not show, this entry's lines among them.

The pages' states are all read only when something was hidden since the last build.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePath

from zettelclaw.vault import blocks, pages
from zettelclaw.vault import purged as lines_of
from zettelclaw.vault.state import VaultState


@dataclass
class TakenOff:
    pages: int = 0
    lines: int = 0
    changed: bool = False  # the state changed (to be saved)


def take_off(root: Path, state: VaultState, hidden: set[str]) -> TakenOff:
    """The lines of the entries hidden now and not yet taken off (``hidden``: every hidden id)
    off the pages, their items out of the state; ``state.hidden`` becomes ``hidden`` unless a
    page could not be written (it is tried again at the next build)."""
    done = TakenOff()
    new = hidden - set(state.hidden)
    if not new:
        if set(state.hidden) != hidden:  # given back: hidden again later, taken off again
            state.hidden, done.changed = sorted(hidden), True
        return done
    gone_all = frozenset(blocks.encode(i) for i in new)
    complete = True
    for rel, known in state.pages.items():
        gone = gone_all & known.items.keys()
        if not gone:
            continue
        page = PurePath(rel)
        stamp = pages.page_stamp(root, page)
        text = pages.read_page(root, page)
        if text is not None and stamp is not None and lines_of.carries(text, frozenset(gone)):
            after = lines_of.drop(root, rel, text, stamp, frozenset(gone))
            if after is None:
                complete = False  # saved by the person since it was read: the next build
                continue
            done.pages += 1
            done.lines += text.count("\n") - after.count("\n")
            if stamp == known.stamp:  # no edit left unread: the new file is as known
                known.stamp = pages.page_stamp(root, page)
        for block in gone:
            del known.items[block]
        known.dirty = done.changed = True
    if complete:
        state.hidden, done.changed = sorted(hidden), True
    return done
