"""``vault build``: the log rendered into journals and topic pages, appended to, never rewritten.

Layout (docs/09-vault.md#what-it-holds): ``01 Notes/<Subject>.md`` (topic pages),
``03 Journal/<YYYY-MM-DD>.md`` (daily journals, by the entry's date in UTC), ``Subjects.md``
(the subjects by type), and the empty ``00 Inbox/``, ``04 Templates/``, ``05 Attachments/`` for
the person's own use.

Every line the build writes ends with its entry's block id (``blocks.py``). A rebuild renders
only the entries past the last line it rendered and inserts them at the end of their sections:
what a person changed or deleted stays as they left it. An entry replaced after it was rendered
keeps its line; its replacement is added with ``(replaces ~~old text~~)``. An entry that is
already replaced when it is first rendered is shown struck, with a link to its replacement.
A page the person renamed or moved gets its lines where it is now (``moves.py``); the entries
hidden since the last build leave the pages (``hidden.py``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePath

from zettelclaw import lock
from zettelclaw.index import vault_reads
from zettelclaw.vault import blocks, hidden, moves, pages, where
from zettelclaw.vault.memory import Memory
from zettelclaw.vault.placing import INDEX, JOURNAL, Placed, Renderer, day
from zettelclaw.vault.state import (
    Item,
    PageState,
    VaultState,
    load,
    lock_path,
    save,
    state_path,
)

EMPTY_FOLDERS = ("00 Inbox", "04 Templates", "05 Attachments")
JOURNAL_SECTIONS = ("Log", "Todo", "Questions", "Sessions")
TOPIC_SECTIONS = ("Log", "Pending", "Open Questions", "Decisions")
MANY_PAGES = 50  # more pages than this: written without fsync each, then one os.sync()
Progress = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class SkippedPage:
    page: str
    reason: str


# why a page got none of its new lines this time (``skippedPages``): a person saved it between
# the build's read and its write; the next build adds them
EDITED_MEANWHILE = ("saved by someone while the build wrote it: its new lines come with the next"
                    " build")


@dataclass
class Report:
    vault: str
    entries: int = 0
    lines_added: int = 0
    pages_created: list[str] = field(default_factory=list)
    pages_updated: list[str] = field(default_factory=list)
    skipped_pages: list[SkippedPage] = field(default_factory=list)
    moved_aside: str | None = None
    seconds: float = 0.0


def build(app: Memory, root: Path | None = None, *, from_scratch: bool = False,
          force: bool = False, progress: Progress | None = None) -> Report:
    started = time.monotonic()
    root = where.check_root(app, root or where.default_root(app))
    with lock.exclusive(lock_path(app.home)):
        state = load(app.home)
        if state is not None and state.root != str(root):
            where.start_over(app.home)  # another folder: this one starts a vault of its own
            state = None
        report = Report(str(root))
        if from_scratch:
            report.moved_aside = where.clear(root, state, force)
            where.start_over(app.home)
            state = None
        state = state or VaultState(str(root))
        followed = moves.follow(root, state)  # a renamed page gets its lines where it is now
        root.mkdir(parents=True, exist_ok=True, mode=0o700)
        for folder in EMPTY_FOLDERS:
            pages.ensure_dirs(root, PurePath(folder))
        if app.freshness.needs_sync():
            app.freshness.sync()
        with app.index.read() as conn:
            last, epoch = vault_reads.last_line(conn), vault_reads.epoch(conn)
            # the index started over (the log rewritten: a purge, a replaced file; a reindex):
            # line numbers may have moved, so every entry is rendered again, and each page
            # adds only those it has not shown (its items), deleted lines included
            start = state.line if epoch == state.epoch and last >= state.line else 0
            rows = list(vault_reads.entries_after(conn, start))
            wanted = {r[key] for r in rows for key in ("replaced_by", "supersedes") if r[key]}
            related = {r["id"]: r for r in rows}
            related |= vault_reads.entries_by_id(conn, sorted(wanted - related.keys()))
            hidden_now = vault_reads.hidden_ids(conn)
        # the entries hidden since the last build leave the pages (vault/hidden.py)
        taken = hidden.take_off(root, state, hidden_now)
        renderer = Renderer(app, state)
        placed: dict[str, list[Placed]] = {}
        dates: dict[str, list[str]] = {}
        for done, row in enumerate(rows, 1):
            for p in renderer.place(row, related):
                placed.setdefault(p.page, []).append(p)
                dates.setdefault(p.page, []).append(day(row["timestamp"]))
            if progress is not None and (done % 2000 == 0 or done == len(rows)):
                progress(done, len(rows))
        for p in renderer.index_lines():
            placed.setdefault(p.page, []).append(p)
        report.entries = len(rows)
        if _write(root, state, renderer, placed, dates=dates, report=report):
            # a page put off: the state keeps its place in the log, so the next build places
            # these entries again (the pages written now have their items and add nothing)
            save(app.home, state)
        elif (report.lines_added or followed or taken.changed or state.line != last
                or state.epoch != epoch or not state_path(app.home).exists()):
            state.line, state.epoch = last, epoch
            save(app.home, state)
    report.seconds = time.monotonic() - started
    return report


def _write(root: Path, state: VaultState, renderer: Renderer, placed: dict[str, list[Placed]],
           *, dates: dict[str, list[str]], report: Report) -> bool:
    """Every page's new lines, on the page and in its state; True when a page was put off
    (saved by a person between its read and its write: EDITED_MEANWHILE)."""
    durable = len(placed) <= MANY_PAGES
    put_off = False
    for rel, lines in placed.items():
        page = PurePath(rel)
        known = state.pages.get(rel)
        kind = pages.page_kind(root, page)
        if kind == "other" or (known is None and kind == "file"):
            report.skipped_pages.append(SkippedPage(rel, "a page the build did not write"
                                                    if kind == "file" else "not a regular file"))
            continue
        page_dates = sorted(dates.get(rel, []))
        first = page_dates[0] if page_dates else datetime.now(UTC).date().isoformat()
        newest = page_dates[-1] if page_dates else first
        new = known is None
        if known is None:
            known = PageState(_kind_of(rel), first, newest)
        fresh = [p for p in lines if p.block not in known.items]
        if not fresh:
            continue
        before = pages.page_stamp(root, page) if kind == "file" else None
        text = pages.read_page(root, page) if kind == "file" else None
        adding = fresh if text is None else _not_on(text, fresh)
        text = _with_lines(text, adding, known=known, rel=rel, renderer=renderer, newest=newest)
        if adding and not pages.write_page(root, page, text, before, durable=durable):
            # saved by a person since it was read: their save stays, and this page's lines
            # wait for the next build (its state does not take them; the caller keeps its
            # place in the log)
            report.skipped_pages.append(SkippedPage(rel, EDITED_MEANWHILE))
            put_off = True
            continue
        if new:
            state.pages[rel] = known
        (report.pages_created if kind != "file" else report.pages_updated).append(rel)
        known.updated = max(known.updated, newest)
        if before is None or before == known.stamp:
            known.stamp = pages.page_stamp(root, page)
        # else the person edited it since the build wrote it or sync read it: it keeps the
        # old stamp, so the next sync still reads the edits (this write does not hide them)
        for p in fresh:
            item: Item = [p.body, p.prefix, p.suffix]
            known.items[p.block] = item
        known.dirty = True
        report.lines_added += len(adding)
    if not durable:
        os.sync()  # the pages are on disk before the state says they were written
    return put_off


def _with_lines(text: str | None, adding: list[Placed], *, known: PageState, rel: str,
                renderer: Renderer, newest: str) -> str:
    """The page's text (None: a new page) with ``adding`` at the ends of their sections."""
    by_section: dict[str, list[str]] = {}
    for p in adding:
        by_section.setdefault(p.section, []).append(_line(p))
    if text is None:
        return pages.new_page(_head(known, rel, renderer), _sections(known), by_section)
    text = pages.insert_in_sections(text, by_section)
    if known.kind == "topic" and newest > known.updated:
        text = pages.set_updated(text, known.updated, newest)
    return text


def _not_on(text: str, fresh: list[Placed]) -> list[Placed]:
    """The lines ``text`` does not hold yet: a build cut short by a crash may have written some
    before its state was saved."""
    there = {m.group(1) for row in text.split("\n") if (m := blocks.BLOCK_AT_END.search(row))}
    return [p for p in fresh if p.block not in there]


def _line(p: Placed) -> str:
    return p.body if p.block.startswith("s:") else f"{p.body} ^{p.block}"


def _kind_of(rel: str) -> str:
    return "journal" if rel.startswith(JOURNAL + "/") else "index" if rel == INDEX else "topic"


def _sections(known: PageState) -> tuple[str, ...]:
    if known.kind == "journal":
        return JOURNAL_SECTIONS
    if known.kind == "topic":
        return TOPIC_SECTIONS
    return ()


def _head(known: PageState, rel: str, renderer: Renderer) -> str:
    if known.kind == "journal":
        return pages.frontmatter([("type", "journal"), ("tags", "[journals]"),
                                  ("created", known.created)])
    if known.kind == "index":
        return pages.frontmatter([("type", "index"), ("tags", "[subjects]")]) + \
            "\nThe subjects of this memory, by type.\n"
    slug = next(s for s, page in renderer.state.subjects.items() if page == rel)
    kind = renderer.subject_type(slug)
    return pages.frontmatter([
        ("type", pages.yaml_scalar(kind)), ("tags", f"[{pages.yaml_scalar(_plural(kind))}]"),
        ("subject", pages.yaml_scalar(slug)), ("created", known.created),
        ("updated", known.updated)])


def _plural(kind: str) -> str:
    return {"person": "people", "project": "projects"}.get(kind, kind + "s")
