"""The vault kept in step while the sidecar serves its memory (docs/09-vault.md): an edit of a
page becomes corrections without ``zettelclaw vault sync``, and what extraction adds to the log
reaches the pages without ``zettelclaw vault build``.

Every ``vault.watchSeconds`` the pages' stamps (mtime, size) are compared with those the vault
state keeps (what the build wrote or sync last read): one ``stat`` a page, nothing read. A page
whose stamp moved is synced once it has stopped moving for one more look (an editor saves a page
in several writes; Obsidian saves as you type), so a sync runs one to two periods after the last
write. The sync is ``vault.sync.sync``, under the locks it takes (the vault's, then the data
lock); each receipt is logged. A hide writes the MEMORY.md block again, as ``vault.sync`` does.

Then, when the log changed since the last look (an extraction, a correction, a
``memory.add``), the vault is rebuilt incrementally: a rebuild with nothing new writes nothing.
The sync always comes first, and a build never marks a page read whose edits no sync has read
(``build._write``), so a rebuild cannot hide an edit from the next sync.

A page gone from its place starts a sync at once, which follows it if it was renamed or moved
(``moves.py``); a page deleted is looked for once, until another page goes.

Nothing runs for a memory with no vault (no ``vault-state/``): one ``stat`` a period.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path, PurePath

import trio

from zettelclaw.index.log_fingerprint import LogStat
from zettelclaw.vault import pages
from zettelclaw.vault.build import build
from zettelclaw.vault.memory import Memory
from zettelclaw.vault.state import load, state_path
from zettelclaw.vault.sync import Hide, Receipt, sync

logger = logging.getLogger(__name__)


class VaultWatcher:
    def __init__(self, app: Memory, period: float, *, name: str, hide: Hide,
                 rebrief: Callable[[], Awaitable[object]]) -> None:
        """``hide``: how a struck line's entry is hidden (forget's, given by the caller, since
        vault/ sits below forget/); ``rebrief``: the MEMORY.md block written again after a
        hide."""
        self.app = app
        self.name = name
        self.period = period
        self._hide = hide
        self._rebrief = rebrief
        self._moving: dict[str, list[int]] = {}  # edited pages seen at the last look: stamps
        self._synced: dict[str, list[int]] = {}  # the stamps a sync here last read
        self._log: tuple[int, int] | None = None  # the log's (size, mtime) at the last build
        self._lost: frozenset[str] = frozenset()  # pages gone from their place at the last look
        self.syncs = 0  # (tests, status)
        self.builds = 0

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> None:
        task_status.started()
        if self.period <= 0:
            return
        while True:
            await trio.sleep(self.period)
            hidden = await trio.to_thread.run_sync(self.look)
            if hidden:
                await self._rebrief()

    def look(self) -> bool:
        """One look (blocking: a worker thread): sync the pages edited and since left alone,
        then rebuild when the log changed. True when a sync hid an entry."""
        if not state_path(self.app.home).exists():
            return False
        state = load(self.app.home)
        if state is None:
            return False
        root = Path(state.root)
        edited: dict[str, list[int]] = {}
        lost = set()
        for rel, known in state.pages.items():
            stamp = pages.page_stamp(root, PurePath(rel))
            if stamp is None:
                lost.add(rel)
            elif stamp != known.stamp and stamp != self._synced.get(rel):
                edited[rel] = stamp
        hidden = False
        settled = edited and edited == self._moving
        self._moving = {} if settled else edited
        # a page gone from its place may have been renamed (a rename is one step: no waiting):
        # the sync follows it (vault/moves.py); a deleted page is looked for once
        renamed = bool(lost - self._lost)
        self._lost = frozenset(lost)
        if settled or renamed:
            hidden = self._sync(root, edited if settled else {})
        if not edited or settled:
            self._build(root)
        return hidden

    def _sync(self, root: Path, edited: dict[str, list[int]]) -> bool:
        result = sync(self.app, root, hide=self._hide)
        self.syncs += 1
        self._synced.update(edited)  # an edit left unapplied is not reported again each look
        for receipt in result.receipts:
            logger.info("vault %s: %s", self.name, _receipt_line(receipt))
        return result.hid()

    def _build(self, root: Path) -> None:
        log = LogStat.of(self.app.home.log)
        now = None if log is None else (log.size, log.mtime_ns)
        if now == self._log:
            return
        report = build(self.app, root)
        self._log = now
        self.builds += 1
        if report.lines_added:
            logger.info("vault %s: %d lines added (%d pages)", self.name,
                        report.lines_added, len(report.pages_created) + len(report.pages_updated))


def _receipt_line(receipt: Receipt) -> str:
    what = f"{receipt.page}: {receipt.action} of {receipt.of}"
    if receipt.applied:
        entry = receipt.entry
        if entry is not None:
            return f"{what}: appended {entry.id} ({getattr(entry, 'status', None) or entry.type})"
        return f"{what}: hidden {', '.join(receipt.hidden or [])}"
    return f"{what}: not applied ({receipt.reason or ''})"
