"""Lines the person adds to a page, as entries: a list item written under one of the build's
sections of a journal or a topic page, without a block id, becomes an entry of that section's
type (a checkbox: a task, open or done), of the topic page's subject (a journal's: none), and
the line gets the new entry's block id, so that it is the entry's line from then on (an edit of
it is a correction, a struck line hides it, a purge takes it off).

| section | journal | topic page |
|---|---|---|
| Log | fact (``Decided: ...``: decision) | fact |
| Todo / Pending | task | task |
| Questions / Open Questions | question | question |
| Decisions | | decision |

Only top-level list items (``- ``, ``* ``, ``+ ``) count: an indented one, a paragraph, a line
under a heading of the person's own, the frontmatter and the Sessions section stay the
person's notes.

Taking them is crash-safe (``vault.sync``): the new entries are written to
``vault-state/adding.json`` first; then the page gets the block ids (replaced only if it is
still as read), then the log the entries, then the state the items; the intent goes last. Run
again after a crash, an entry whose block id is on its page and not in the log is appended; one
whose id never reached the page is dropped (its line, still without an id, is taken again), and
so is one purged meanwhile (``purged.py``: its line leaves the page at that sync).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

import orjson

from zettelclaw import lock
from zettelclaw.files import atomic_write_bytes
from zettelclaw.home import Home
from zettelclaw.index import entries
from zettelclaw.log.schema import Entry, InvalidEntry, new_id, now_timestamp, validate_entry
from zettelclaw.log.store import LogStore
from zettelclaw.vault import blocks, pages
from zettelclaw.vault import purged as remembered
from zettelclaw.vault.memory import Memory
from zettelclaw.vault.state import VaultState, state_dir

# the longest entry text a line may give, as ``memory.remember`` takes (protocol/params/)
MAX_TEXT = 16_384

SECTIONS = {
    "journal": {"Log": "fact", "Todo": "task", "Questions": "question"},
    "topic": {"Log": "fact", "Pending": "task", "Open Questions": "question",
              "Decisions": "decision"},
}
_ITEM = re.compile(r"^([-*+] (?:\[([ xX])\] )?)(.*)$")
DECIDED = "Decided: "


@dataclass(frozen=True)
class Added:
    row: int  # its line number on the page (1: the first)
    line: str  # as on the page, trailing spaces off
    marker: str  # what comes before the text: ``- ``, ``- [ ] ``, ``- Decided: ``
    text: str
    type: str
    status: str | None  # a task's


def find(kind: str, text: str) -> list[Added]:
    """The lines of a page of this kind (``journal``, ``topic``) that the person added."""
    types = SECTIONS.get(kind)
    if types is None:
        return []
    section: str | None = None
    out = []
    for number, raw in enumerate(text.split("\n"), 1):
        row = raw.rstrip()
        if row.startswith("#"):
            section = types.get(row[3:].strip()) if row.startswith("## ") else None
            continue
        found = _ITEM.match(row) if section is not None else None
        if found is None or next(blocks.carried(row), None) is not None:
            continue
        marker, box, body = found.group(1), found.group(2), found.group(3).strip()
        if not body or (body.startswith("~~") and body.endswith("~~")):
            continue
        kind_of = "task" if box is not None else section
        if kind == "journal" and kind_of == "fact" and body.startswith(DECIDED):
            kind_of, marker, body = "decision", marker + DECIDED, body[len(DECIDED):].strip()
        status = ("done" if box in ("x", "X") else "open") if kind_of == "task" else None
        out.append(Added(number, row, marker, body, str(kind_of), status))
    return out


def draft(added: Added, subject: str | None, session: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": new_id(), "timestamp": now_timestamp(), "type": added.type,
                             "content": added.text, "session": session}
    if added.status is not None:
        entry["status"] = added.status
    if subject is not None:
        entry["subject"] = subject
    return entry


def subject_of(state: VaultState, rel: str) -> str | None:
    return next((slug for slug, page in state.subjects.items() if page == rel), None)


def marked(text: str, ids: dict[int, str]) -> str:
    """The page with each added line (by number) ending with its new entry's block id."""
    rows = text.split("\n")
    for number, entry_id in ids.items():
        rows[number - 1] = f"{rows[number - 1].rstrip()} ^{blocks.encode(entry_id)}"
    return "\n".join(rows)


def item_of(row: str) -> list[Any] | None:
    """The state's item for a line the person added that now carries its block id."""
    found = blocks.BLOCK_AT_END.search(row)
    item = _ITEM.match(row)
    if found is None or item is None:
        return None
    body = row[:found.start()]
    marker = item.group(1)
    if body[len(marker):].startswith(DECIDED):
        marker += DECIDED
    return [body, len(marker), 0]


def _intent(home: Home) -> Path:
    return state_dir(home) / "adding.json"


def write_intent(home: Home, pages: dict[str, list[dict[str, Any]]]) -> None:
    """The entries about to be taken, per page (validated: secrets already scrubbed)."""
    atomic_write_bytes(_intent(home), orjson.dumps(pages))


def read_intent(home: Home) -> dict[str, list[dict[str, Any]]]:
    try:
        raw = orjson.loads(_intent(home).read_bytes())
    except (FileNotFoundError, NotADirectoryError, orjson.JSONDecodeError):
        return {}
    return raw if isinstance(raw, dict) else {}


def clear_intent(home: Home) -> None:
    _intent(home).unlink(missing_ok=True)


@dataclass(frozen=True)
class Found:
    """A page read with the lines the person added to it."""

    page: str
    stamp: list[int]  # as read
    text: str
    added: list[Added]


@dataclass
class Taken:
    """What became of one added line: the entry appended, or why not."""

    page: str
    added: Added
    entry: Entry | None = None
    reason: str | None = None


def too_long(page: str, row: int, text: str) -> str | None:
    if len(text) <= MAX_TEXT:
        return None
    return (f"line {row} of {page} holds {len(text):,} characters; an entry holds at most "
            f"{MAX_TEXT:,}: not taken (shorten the line)")


def take(app: Memory, root: Path, state: VaultState, found: list[Found], session: str
         ) -> list[Taken]:
    """The added lines as entries (under the vault's lock, which the caller holds): the intent,
    each page's block ids, the log, the items; the caller saves the state, then clears the
    intent."""
    taken: list[Taken] = []
    drafts: dict[str, list[Taken]] = {}
    for page in found:
        subject = subject_of(state, page.page)
        for line in page.added:
            one = Taken(page.page, line)
            taken.append(one)
            one.reason = too_long(page.page, line.row, line.text)
            if one.reason is not None:
                continue
            try:
                one.entry = validate_entry(draft(line, subject, session))
            except InvalidEntry as exc:
                one.reason = exc.reason
                continue
            drafts.setdefault(page.page, []).append(one)
    if not drafts:
        return taken
    write_intent(app.home, {rel: [t.entry.model_dump(exclude_none=True) for t in ones
                                  if t.entry is not None] for rel, ones in drafts.items()})
    written: list[Taken] = []
    for page in found:
        ones = drafts.get(page.page, [])
        ids = {t.added.row: t.entry.id for t in ones if t.entry is not None}
        if ids and pages.write_page(root, PurePath(page.page), marked(page.text, ids),
                                    page.stamp):
            written += ones
            known = state.pages[page.page]
            for t in ones:
                assert t.entry is not None
                known.items[blocks.encode(t.entry.id)] = [t.added.line, len(t.added.marker), 0]
            known.dirty = True
            known.stamp = pages.page_stamp(root, PurePath(page.page))
            continue
        for t in ones:  # saved by the person since it was read: their save stands
            t.entry, t.reason = None, "the page was saved again while it was read: taken " \
                                      "at the next sync"
    if written:
        with lock.exclusive(app.home.lock):
            LogStore(app.home).append_locked([t.entry for t in written if t.entry is not None])
        app.freshness.sync()
    return taken


def recover(app: Memory, root: Path, state: VaultState) -> bool:
    """Finish the taking of added lines a crash cut short (its intent is there): an entry whose
    block id is on its page gets its item, and is appended when the log lacks it. True when
    there was one (the caller saves the state, then clears the intent)."""
    intent = read_intent(app.home)
    if not intent:
        return False
    missing: list[Entry] = []
    purged = remembered.known(app.home)  # purged since: never appended again
    with lock.exclusive(app.home.lock):
        app.freshness.sync(locked=True)
        with app.index.read() as conn:
            for rel, drafted in intent.items():
                known = state.pages.get(rel)
                text = pages.read_page(root, PurePath(rel)) if known is not None else None
                if known is None or text is None:
                    continue
                rows = {m.group(1): row for row in text.split("\n")
                        if (m := blocks.BLOCK_AT_END.search(row))}
                for raw in drafted:
                    entry = validate_entry(raw)
                    row = rows.get(blocks.encode(entry.id))
                    item = item_of(row) if row is not None else None
                    if item is None or blocks.encode(entry.id) in purged:
                        continue  # its id never reached the page: the line is taken again
                    known.items[blocks.encode(entry.id)] = item
                    known.dirty = True
                    if entries.get_entry(conn, entry.id) is None and \
                            not entries.is_hidden(conn, entry.id):
                        missing.append(entry)
        if missing:
            LogStore(app.home).append_locked(missing)
    app.freshness.sync()
    return True
