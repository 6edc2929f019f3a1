"""Where each entry's lines go in the vault, and what they say: its daily journal's section, its
subject's topic page (named once, from the subject's display name), the index of subjects; an
entry replaced shown struck with a link to its replacement, a replacement saying what it
replaces (docs/09-vault.md#what-it-holds).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import PurePath

from zettelclaw.log.schema import parse_timestamp
from zettelclaw.subjects.registry import DEFAULT_TYPE, title_case
from zettelclaw.vault import blocks, pages
from zettelclaw.vault.memory import Memory
from zettelclaw.vault.state import VaultState

NOTES, JOURNAL, INDEX = "01 Notes", "03 Journal", "Subjects.md"


@dataclass
class Placed:
    page: str
    section: str
    body: str  # the line without the block id
    block: str
    prefix: int
    suffix: int



def one_line(text: str) -> str:
    return " ".join(text.split())


def day(timestamp: str) -> str:
    """The entry's date in UTC (its journal)."""
    if len(timestamp) == 20 and timestamp.endswith("Z"):  # the form writers use: no parse
        return timestamp[:10]
    return parse_timestamp(timestamp).astimezone(UTC).date().isoformat()


def clock(timestamp: str) -> str:
    return parse_timestamp(timestamp).astimezone(UTC).strftime("%H:%M")


def journal_page(date: str) -> str:
    return f"{JOURNAL}/{date}.md"


def link(page: str, label: str | None = None, block: str | None = None) -> str:
    """A wiki-link to a page (by its name, as Obsidian resolves them) and maybe a block."""
    name = page.rpartition("/")[2].removesuffix(".md")
    target = f"{name}#^{block}" if block else name
    return f"[[{target}|{label}]]" if label and label != name else f"[[{target}]]"


class Renderer:
    def __init__(self, app: Memory, state: VaultState) -> None:
        self.app = app
        self.state = state
        self.registry = app.subjects.load()
        self.new_subjects: list[str] = []

    def where(self, page: str) -> str:
        """Where a journal or the index is now (the person may have renamed or moved it)."""
        return self.state.moved.get(page, page)

    def subject_page(self, slug: str) -> str:
        page = self.state.subjects.get(slug)
        if page is None:
            # compared without case: on macOS "Auth" and "auth" are one file
            taken = {page.lower() for page in self.state.subjects.values()}
            name = pages.safe_name(self.display(slug))
            if (f"{NOTES}/{name}.md".lower() in taken or name == PurePath(INDEX).stem
                    or _looks_like_date(name)):
                name = pages.safe_name(f"{name} ({slug})")
            page = f"{NOTES}/{name}.md"
            self.state.subjects[slug] = page
            self.new_subjects.append(slug)
        return page

    def display(self, slug: str) -> str:
        known = self.registry.get(slug)
        return known.display if known else title_case(slug)

    def subject_type(self, slug: str) -> str:
        known = self.registry.get(slug)
        return known.type if known else DEFAULT_TYPE

    def place(self, row: sqlite3.Row, related: dict[str, sqlite3.Row]) -> list[Placed]:
        kind, status, date = row["type"], row["status"], day(row["timestamp"])
        block = blocks.encode(row["id"])
        text = one_line(row["content"])
        replaced = related.get(row["replaced_by"]) if row["replaced_by"] else None
        older = related.get(row["supersedes"]) if row["supersedes"] else None
        middle, tail = _versions(text, status, replaced, older, self.where)
        subject = row["subject"]
        about = ""
        if subject:
            about = " (" + link(self.subject_page(subject), self.display(subject)) + ")"
        placed = []
        # the daily journal
        jpage = self.where(journal_page(date))
        if kind in ("fact", "decision"):
            head, section = ("- Decided: " if kind == "decision" else "- "), "Log"
        elif kind == "task":
            head, section = ("- [x] " if status == "done" else "- [ ] "), "Todo"
        elif kind == "question":
            head, section = "- ", "Questions"
        else:
            # the whole session id: `zettelclaw get session:ID` needs all of it
            head, section = f"- {row['session']} — {clock(row['timestamp'])}: ", "Sessions"
        placed.append(_placed(jpage, section, head, middle, tail + about, block=block))
        # the subject's topic page
        if subject:
            spage = self.subject_page(subject)
            when = tail + f" ({link(jpage)})"
            current = replaced is None
            if kind == "task" and status == "open" and current:
                section, head = "Pending", "- [ ] "
            elif kind == "question" and current:
                section, head = "Open Questions", "- "
            elif kind == "decision":
                section, head = "Decisions", f"- {date}: "
            else:
                mark = {"task": "✓ " if status == "done" else "task: ",
                        "question": "question: ", "handoff": "session: "}.get(kind, "")
                section, head = "Log", f"- {date}: {mark}"
            placed.append(_placed(spage, section, head, middle, when, block=block))
        return placed

    def index_lines(self) -> list[Placed]:
        out = []
        for slug in self.new_subjects:
            page = self.state.subjects[slug]
            section = title_case(self.subject_type(slug))
            out.append(Placed(self.where(INDEX), section, "- " + link(page, self.display(slug)),
                              f"s:{slug}", 0, 0))
        return out


def _versions(text: str, status: str | None, replaced: sqlite3.Row | None,
              older: sqlite3.Row | None, where: Callable[[str], str]) -> tuple[str, str]:
    """The entry's text as shown and what follows it: struck with a link to its replacement,
    and what it replaces. Replaced by the same text (a task done or opened again) it is not
    struck, the link says what changed; a replacement with the same text says what it was, not
    ``(replaces ~~itself~~)``."""
    restated = replaced is not None and one_line(replaced["content"]) == text
    middle = f"~~{text}~~" if replaced is not None and not restated else text
    tail = ""
    if replaced is not None:
        label = ({"done": "done", "open": "reopened"}.get(replaced["status"] or "", "restated")
                 if restated else "replaced")
        tail += " → " + link(where(journal_page(day(replaced["timestamp"]))), label,
                             blocks.encode(replaced["id"]))
    if older is not None and one_line(older["content"]) == text:
        if older["status"] != status:
            tail += f" (was {older['status'] or 'without a status'})"
    elif older is not None:
        tail += f" (replaces ~~{one_line(older['content'])}~~)"
    return middle, tail


def _placed(page: str, section: str, head: str, middle: str, tail: str, *, block: str
            ) -> Placed:
    return Placed(page, section, head + middle + tail, block, len(head), len(tail))


def _looks_like_date(name: str) -> bool:
    try:
        datetime.strptime(name, "%Y-%m-%d")
    except ValueError:
        return False
    return True
