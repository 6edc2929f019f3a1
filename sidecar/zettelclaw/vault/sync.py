"""``vault sync``: a person's edits of rendered lines become corrections in the log.

Each rendered line is compared with what the build wrote (``state.py``); a line that differs is
an edit of the entry its block id names:

- a ticked (or unticked) task: the task again, ``done`` (or ``open``), replacing it;
- changed text: the entry again, same type, with the new text, replacing it;
- text struck through (``~~...~~``): the entry hidden, as ``memory.forget`` hides (one
  ``forget`` record, ``by: vault``, naming the entry's current version and every other version;
  ``zettelclaw forget --undo`` gives them back); the edit is then settled, not reported again;
- a deleted line: nothing (removing a line from the view does not forget the entry); its text
  leaves ``vault-state/``;
- a line whose only change is a link's target (Obsidian renamed the page it links to:
  ``links.py``): nothing, its item takes the line as it is now;
- a line whose text is longer than an entry may be: refused, naming the page and line.

What the state keeps of an edited line is scrubbed of secrets (``zettelclaw.scrub``), as the
correction is: a secret typed into the vault reaches neither the log nor ``vault-state/``.

A correction replaces the entry's *current* version (the newest in its chain), is appended as a
new entry (``session: vault``) through ``log.schema.validate_entry`` and ``LogStore`` under the
data lock, as extraction appends; the log is never rewritten. An edited page is not touched: the
person's line now stands for the correction, so the build does not add it to that page again.

Before the edits: a page renamed or moved is followed (``moves.py``), added lines a crash cut
short are finished (``added.py``), and a page saved from a stale copy loses the lines of purged
entries again (``purged.py``). After them, the list items the person added become entries, and
their lines get block ids: the one write sync makes to a page (``added.py``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

from zettelclaw import lock
from zettelclaw.errors import NotFoundError
from zettelclaw.index import entries
from zettelclaw.log.schema import Entry, InvalidEntry, new_id, now_timestamp, validate_entry
from zettelclaw.log.store import LogStore
from zettelclaw.scrub import scrub
from zettelclaw.vault import added, blocks, links, moves, pages
from zettelclaw.vault import purged as remembered
from zettelclaw.vault.memory import Memory
from zettelclaw.vault.state import Item, PageState, load, lock_path, save
from zettelclaw.vault.where import check_root, default_root

SESSION = "vault"
_BOX = re.compile(r"^(\s*[-*+] \[)([ xX])(\] )")
_MARKER = re.compile(r"^\s*[-*+]\s+(\[[ xX]\]\s+)?")


@dataclass
class Edit:
    page: str
    block: str
    entry_id: str
    body: str  # the line as it is now, without the block id
    item: Item  # as rendered
    row: int = 0  # its line number on the page (1: the first)

    def as_rendered(self) -> Item:
        """The item the line stands for now: its text, with its prefix's and suffix's lengths
        (the rendered ones when the person changed them)."""
        old, plen, slen = self.item
        lengths = links.split(self.body, old, plen, slen)
        return [self.body, *(lengths or (plen, slen))]


def _checked(body: str) -> bool | None:
    found = _BOX.match(body)
    return None if found is None else found.group(2) in "xX"


def _text(edit: Edit) -> tuple[str, bool | None, bool | None]:
    """The entry's text in the edited line, and the checkbox before and after (None: none)."""
    old, plen, slen = edit.item
    was, now = _checked(old), _checked(edit.body)
    body = edit.body
    if was is not None and now is not None:  # compare the rest with the box as rendered
        body = _BOX.sub(lambda m: m.group(1) + old[m.start(2)] + m.group(3), body, count=1)
    lengths = links.split(body, old, plen, slen)  # (a link rewritten in them changes nothing)
    if lengths is not None:
        return body[lengths[0]:len(body) - lengths[1]].strip(), was, now
    prefix, suffix = old[:plen], old[len(old) - slen:] if slen else ""
    if body.startswith(prefix) and body.endswith(suffix) and len(body) >= plen + slen:
        return body[plen:len(body) - slen].strip(), was, now
    # the person changed the prefix or the suffix too: take off what is left of each
    body = body[plen:] if body.startswith(prefix) else _MARKER.sub("", body)
    if suffix and body.endswith(suffix):
        body = body[:-slen]
    return body.strip(), was, now


def find_edits(root: Path, state_pages: dict[str, PageState],
               purged: Callable[[], frozenset[str]] = frozenset,
               ) -> tuple[list[Edit], dict[str, list[int]], list[added.Found]]:
    """The edited rendered lines, the stamps of the pages read, and the lines the person added
    to them (``added.py``). A page whose stamp has not
    moved since the build wrote it or the last sync read it is not read again. A line whose
    only change is a link rewritten (a page renamed: ``links.py``) is no edit: its item takes
    the line as it is now. A page carrying lines of purged entries (``purged``: their block
    ids, asked only then; a stale copy saved) loses them again first."""
    found, seen, adding = [], {}, []
    for rel, known in state_pages.items():
        stamp = pages.page_stamp(root, PurePath(rel))  # before reading: a later edit shows
        if stamp is None or stamp == known.stamp:
            continue
        text = pages.read_page(root, PurePath(rel))
        if text is None:
            continue
        if remembered.unknown(text, known.items) and remembered.carries(text, gone := purged()):
            text = remembered.drop(root, rel, text, stamp, gone)
            stamp = pages.page_stamp(root, PurePath(rel))
            if text is None or stamp is None:
                continue  # saved again since: read at the next sync
        seen[rel] = stamp
        if new_lines := added.find(known.kind, text):
            adding.append(added.Found(rel, stamp, text, new_lines))
        found += _edits_on_page(rel, known, text)
    return found, seen, adding


def _edits_on_page(rel: str, known: PageState, text: str) -> list[Edit]:
    """The edited lines of one page read; a link rewrite updates its item instead, and the
    text of each line gone from the page leaves the state (``_forget_deleted``)."""
    found: list[Edit] = []
    on_page = set()
    for number, row in enumerate(text.split("\n"), 1):
        match = blocks.BLOCK_AT_END.search(row)
        if match is None:
            continue
        on_page.add(match.group(1))
        item = known.items.get(match.group(1))
        if item is None or item[0] is None:
            continue
        body = row[:match.start()]
        entry_id = blocks.decode(match.group(1))
        if body == item[0] or entry_id is None:
            continue
        # what the state keeps of a line is scrubbed: a secret typed into it is not
        # copied into vault-state/ (nor into the receipt, nor the correction)
        body = scrub(body)
        if body == item[0]:
            continue
        edit = Edit(rel, match.group(1), entry_id, body, item, number)
        if links.relinked(body, item[0]):
            known.items[edit.block] = edit.as_rendered()
            known.dirty = True
        else:
            found.append(edit)
    _forget_deleted(known, on_page)
    return found


def _forget_deleted(known: PageState, on_page: set[str]) -> None:
    """The text of each line deleted from the page leaves its state (what the person typed
    into it and then removed is not kept); its block id stays, so the build does not put the
    line back. A line put back later is not followed (as a line shown by another)."""
    for block, item in known.items.items():
        if item[0] is not None and block not in on_page and not block.startswith("s:"):
            item[0], item[1], item[2] = None, 0, 0
            known.dirty = True


# Hides an entry (and its versions) under the data lock already held, as ``memory.forget``
# does, by ``vault``; returns the ids it hid. ``forget.service.hide_for_vault``, given by the
# caller: forget/ reaches into vault/ when it purges, so vault/ does not import forget/.
Hide = Callable[[Memory, str, str], list[str]]


@dataclass
class Receipt:
    """What became of one edited line: its page, the line, the id it shows (``of``), the
    action, whether it was applied, and (as it went) the entry it replaced, the entry appended,
    the ids hidden or why it was not applied."""

    page: str
    line: str
    of: str
    action: str  # done, reopen, correct, hide, conflict, none; add (a line the person added)
    applied: bool
    replaces: str | None = None
    entry: Entry | None = None
    hidden: list[str] | None = None
    reason: str | None = None


@dataclass(frozen=True)
class Synced:
    vault: str
    receipts: list[Receipt]
    corrections: int  # the receipts applied, hides included

    def hid(self) -> bool:
        """Whether a struck line hid something (the MEMORY.md block is then written again)."""
        return any(r.action == "hide" and r.hidden for r in self.receipts)


@dataclass(frozen=True)
class _Asked:
    """What one edit asks of the log: its receipt, and the entry to append or the id to hide."""

    receipt: Receipt
    draft: dict[str, Any] | None = None  # the entry to append, before validation
    hide: str | None = None  # the current version to hide, with every other of its chain


def sync(app: Memory, root: Path | None = None, *, hide: Hide) -> Synced:
    root = check_root(app, root or default_root(app))
    with lock.exclusive(lock_path(app.home)):
        state = load(app.home)
        if state is None or state.root != str(root):
            raise NotFoundError(f"no vault was built at {root}: `zettelclaw vault build` first")
        followed = moves.follow(root, state)  # a renamed page's edits are read where it is
        recovered = added.recover(app, root, state)  # added lines a crash cut short
        edits, seen, adding = find_edits(root, state.pages,
                                         functools.cache(lambda: remembered.known(app.home)))
        receipts, made, settled = _apply(app, edits, hide) if edits else ([], [], [])
        taken = added.take(app, root, state, adding, SESSION) if adding else []
        receipts += [_added(t) for t in taken]
        marked = {t.page for t in taken if t.entry is not None}  # their stamps are taken
        for edit, entry in made:
            known = state.pages[edit.page]
            known.items[edit.block] = edit.as_rendered()
            known.items[blocks.encode(entry.id)] = [None, 0, 0]
            known.dirty = True
        for edit in settled:
            state.pages[edit.page].items[edit.block] = edit.as_rendered()
            state.pages[edit.page].dirty = True
        # a page with an edit still to report is read again next time
        pending = {r.page for r in receipts if not r.applied and r.action != "conflict"}
        # read, and nothing left to report: not read again (a page given block ids has its new
        # stamp already); given ids with something still to report: its stamp as read, so
        # that it is read again
        for rel, stamp in seen.items():
            if (rel in pending) == (rel in marked):
                state.pages[rel].stamp = stamp
        if made or settled or seen or followed or recovered:
            save(app.home, state)
        if recovered or marked:
            added.clear_intent(app.home)
    return Synced(vault=str(root), receipts=receipts,
                  corrections=sum(1 for r in receipts if r.applied))


def _apply(app: Memory, edits: list[Edit], hide: Hide
           ) -> tuple[list[Receipt], list[tuple[Edit, Entry]], list[Edit]]:
    """The receipts of the edits; the corrections appended (each with its edit); the edits that
    need nothing more (the log already says it, or a conflict reported once)."""
    receipts: list[Receipt] = []
    made: list[tuple[Edit, Entry]] = []
    settled: list[Edit] = []
    hiding: list[tuple[Edit, Receipt, str]] = []
    with lock.exclusive(app.home.lock):
        app.freshness.sync(locked=True)
        corrected: dict[str, str] = {}  # current id -> the page that corrected it
        with app.index.read() as conn:
            for edit in edits:
                asked = _correction(edit, entries.get_entry(conn, edit.entry_id), corrected)
                if asked is None:
                    settled.append(edit)
                    continue
                receipt = asked.receipt
                receipts.append(receipt)
                if receipt.action == "conflict":
                    settled.append(edit)  # reported once, not again
                if asked.hide is not None:
                    hiding.append((edit, receipt, asked.hide))
                    continue
                if asked.draft is None:
                    continue
                try:
                    receipt.entry = validate_entry(asked.draft)
                except InvalidEntry as exc:
                    receipt.applied, receipt.reason = False, exc.reason
                    continue
                made.append((edit, receipt.entry))
        new = [entry for _, entry in made]
        if new:
            LogStore(app.home).append_locked(new)
        for edit, receipt, current in hiding:  # through the hide mechanism, under the lock held
            receipt.applied, receipt.hidden = True, hide(app, current, SESSION)
            settled.append(edit)
    app.freshness.sync()
    return receipts, made, settled


def _added(taken: added.Taken) -> Receipt:
    entry = taken.entry
    return Receipt(page=taken.page, line=_shown(taken.added.line),
                   of=entry.id if entry is not None else "", action="add",
                   applied=entry is not None, entry=entry, reason=taken.reason)


def _shown(line: str, most: int = 1000) -> str:
    """A line as a receipt shows it: a long one cut (the page holds it whole)."""
    return line if len(line) <= most else line[:most] + "…"


def _refused(edit: Edit, text: str) -> str | None:
    """Why the line's text cannot be an entry's (None: it can)."""
    if not text:
        return "the line has no text"
    return added.too_long(edit.page, edit.row, text)


def _correction(edit: Edit, found: entries.Chain | None, corrected: dict[str, str]
                ) -> _Asked | None:
    """What one edit asks: its receipt, with the entry to append or the id to hide; None when
    the edit asks for nothing the log does not already say."""
    def receipt(action: str, applied: bool, **more: Any) -> Receipt:
        return Receipt(page=edit.page, line=_shown(edit.body), of=edit.entry_id, action=action,
                       applied=applied, **more)

    if found is None:
        return _Asked(receipt("none", False, reason="the entry is not in the log (rewritten?)"))
    current = found.newest
    text, was, now = _text(edit)
    old_text = edit.item[0][edit.item[1]:len(edit.item[0]) - edit.item[2]].strip()
    if text.startswith("~~") and text.endswith("~~") and not old_text.startswith("~~"):
        return _Asked(receipt("hide", False), hide=current["id"])
    if (refused := _refused(edit, text)) is not None:
        return _Asked(receipt("none", False, reason=refused))
    content = current["content"] if text == old_text else text
    status = current.get("status")
    if current["type"] == "task" and was is not None and now is not None and was != now:
        status = "done" if now else "open"
    if content == current["content"] and status == current.get("status"):
        return None
    if current["id"] in corrected:
        return _Asked(receipt(
            "conflict", False,
            reason=f"the entry was corrected from {corrected[current['id']]} in this sync; this "
                   "edit is left on the page, not applied (edit the line again to apply it)"))
    corrected[current["id"]] = edit.page
    entry: dict[str, Any] = {"id": new_id(), "timestamp": now_timestamp(),
                             "type": current["type"], "content": content,
                             "session": SESSION, "replaces": current["id"]}
    if status is not None:
        entry["status"] = status
    if current.get("subject"):
        entry["subject"] = current["subject"]
    if content == current["content"] and current.get("detail"):
        entry["detail"] = current["detail"]
    action = ("done" if status == "done" else "reopen") \
        if status != current.get("status") and content == current["content"] else "correct"
    return _Asked(receipt(action, True, replaces=current["id"]), draft=entry)
