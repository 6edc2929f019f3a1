"""A purge's step in the vault: the purged entries' lines leave its pages and its state.

The vault is append-only for the build, but what the owner purges leaves every copy: each page
whose state (``vault-state/pages/*.json``) names a purged entry's block id loses every line that
carries that block id (the rendered line, and a line the person edited that still ends with it:
a copy of the purged text), then its state loses the items. Per page: the page is replaced
atomically first, then its state file; run again after a crash between the two, the page holds
nothing more to drop and the state is written. So the step is safe to run again (``purge.py``).

Only the lines carrying a purged block id are touched; the rest of the page, the person's own
lines included, stays byte for byte. A page whose file had changed since the build wrote it or
``vault sync`` last read it keeps that stamp, so the person's edits are still read at the next
sync.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePath

from zettelclaw.errors import LockTimeoutError
from zettelclaw.home import Home
from zettelclaw.vault import blocks, moves, pages
from zettelclaw.vault import purged as remembered
from zettelclaw.vault.state import load, save, state_dir

# a block id as a line carries it: ``^zc...`` after a space or at the start, not a link's
# ``#^zc...`` (the line of another entry pointing at it)
_BLOCK_IN_LINE = re.compile(r"(?:^|\s)\^(" + blocks.PREFIX + r"[a-z0-9-]+)(?=\s|$)")


# reads of a page that a person keeps saving before a purge gives up on it (the purge's intent
# stays, so it runs again; purge.py)
ATTEMPTS = 5


@dataclass
class Scrubbed:
    pages: int = 0
    lines: int = 0
    items: int = 0


def written_dirs(home: Home) -> list[Path]:
    """The directories the vault's writers (the build, sync, this step) replace files in, all
    under the vault's lock: its state's and the folders of its pages, where a write a kill cut
    short leaves its temp file (``files.remove_stale_temps``)."""
    state = load(home)
    if state is None:
        return []
    root = Path(state.root)
    folders = dict.fromkeys(root / PurePath(rel).parent for rel in state.pages)
    return [state_dir(home), state_dir(home) / "pages", *folders]


def _carries(row: str, purged: frozenset[str]) -> bool:
    return any(m.group(1) in purged for m in _BLOCK_IN_LINE.finditer(row))


def scrub_locked(home: Home, ids: frozenset[str]) -> Scrubbed:
    """The lines and items of the entries ``ids`` out of the vault built for ``home`` (none
    built: nothing). The caller holds the vault's lock (``state.lock_path``), then the data
    lock, in that order (as ``vault build`` and ``vault sync`` take them)."""
    done = Scrubbed()
    state = load(home)
    if state is None or not ids:
        return done
    purged = frozenset(blocks.encode(i) for i in ids)
    remembered.remember(home, purged)  # before any page: a stale copy saved later loses them
    root = Path(state.root)
    followed = moves.follow(root, state)  # a renamed page loses its purged lines too
    for rel, known in state.pages.items():
        gone = purged & known.items.keys()
        if not gone:
            continue
        page = PurePath(rel)
        for _ in range(ATTEMPTS):
            stamp = pages.page_stamp(root, page)
            text = pages.read_page(root, page)
            if text is None:
                break
            rows = text.split("\n")
            kept = [row for row in rows if not _carries(row, gone)]
            if len(kept) == len(rows):
                break
            if pages.write_page(root, page, "\n".join(kept), stamp):
                done.lines += len(rows) - len(kept)
                done.pages += 1
                if stamp == known.stamp:  # no edit left unread: the new file is as known
                    known.stamp = pages.page_stamp(root, page)
                break
            # saved by a person since it was read: read it again, their save and all
        else:
            raise LockTimeoutError(f"{root / page} changed {ATTEMPTS} times while its purged lines"
                                 " were taken off it; run the purge again once it is saved")
        for block in gone:
            del known.items[block]
        done.items += len(gone)
        known.dirty = True
    if done.items or followed:
        save(home, state)
    return done
