"""What a forget names: entries of the log by id, session, subject or text, with their versions.

The log is read itself (not the index): a hidden entry has no row in the index, and a purge must
find it all the same. Every version of a chosen entry (the entries it replaced and those that
replaced it) is chosen with it: forgetting a fact forgets its corrections and what they
corrected. What one writer wrote (``Written``: an import's rollback) is taken without the other
versions: a correction made later by someone else stays (``Scan.kept`` names it and what it
replaced), and an entry the writer's own replaced is current again.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from zettelclaw.errors import NotFoundError
from zettelclaw.home import Home
from zettelclaw.log import hides
from zettelclaw.log.lines import Position, read_records
from zettelclaw.log.resolve import effective_target

SNIPPET = 160


@dataclass(frozen=True)
class Criteria:
    ids: Sequence[str] = ()
    session: str | None = None
    subject: str | None = None
    text: str | None = None

    def by(self) -> str:
        return ("id" if self.ids else "session" if self.session is not None
                else "subject" if self.subject is not None else "text")

    def matches(self, record: dict[str, Any]) -> bool:
        """All the criteria given (ids: any of them)."""
        if self.ids and record["id"] not in self.ids:
            return False
        if self.session is not None and record["session"] != self.session:
            return False
        if self.subject is not None and record.get("subject") != self.subject:
            return False
        if self.text:
            needle = self.text.casefold()
            hay = f"{record['content']}\n{record.get('detail') or ''}".casefold()
            if needle not in hay:
                return False
        return True


@dataclass(frozen=True)
class Written:
    """What one writer wrote: entries by id, and every entry of the sessions it made (an
    import's rollback: importing/importer.py)."""

    ids: frozenset[str] = frozenset()
    sessions: frozenset[str] = frozenset()

    def by(self) -> str:
        return "import"

    def matches(self, record: dict[str, Any]) -> bool:
        return record["id"] in self.ids or record["session"] in self.sessions


@dataclass(frozen=True)
class Match:
    id: str
    line: int
    type: str
    session: str
    subject: str | None
    content: str
    hidden: bool

    def snippet(self) -> str:
        """The content as the answer shows it: cut to ``SNIPPET`` characters."""
        return self.content if len(self.content) <= SNIPPET else self.content[:SNIPPET] + "…"


@dataclass(frozen=True)
class Kept:
    """An entry not chosen that replaced a chosen one: it stays, its ``replaces`` dangling."""

    id: str
    content: str
    replaced: str
    replaced_content: str


@dataclass
class Scan:
    matches: list[Match] = field(default_factory=list)
    hidden: set[str] = field(default_factory=set)  # every id hidden now
    kept: list[Kept] = field(default_factory=list)  # (Written only) later versions left
    known: set[str] = field(default_factory=set)  # every entry id the log holds

    def refuse_unknown(self, ids: Sequence[str]) -> None:
        """NotFoundError naming those of ``ids`` the log does not hold (purged, or never
        written): a forget of nothing is not a success."""
        unknown = [i for i in dict.fromkeys(ids) if i not in self.known]
        if unknown:
            raise NotFoundError(
                f"no entry with id {', '.join(unknown)} in the log (purged, or never written); "
                "nothing was changed", {"ids": unknown})

    @property
    def ids(self) -> list[str]:
        return [m.id for m in self.matches]


def select(home: Home, criteria: Criteria | Written) -> Scan:
    """The entries ``criteria`` names, with every version of each, in log order."""
    try:
        fd = os.open(home.log, os.O_RDONLY)
    except FileNotFoundError:
        return Scan()
    records: list[tuple[int, dict[str, Any]]] = []
    seen: set[str] = set()
    links: dict[str, set[str]] = {}
    hidden: set[str] = set()
    try:
        for line, _ in read_records(fd, Position(), os.fstat(fd).st_size):
            record = line.entry
            if record is None:
                if line.error is None and hides.looks_like(line.data):
                    hide = hides.parse(line.data)
                    (hidden.update if hide.hides else hidden.difference_update)(hide.ids)
                continue
            if record["id"] in seen:  # a duplicate id: not an entry (the first wins)
                continue
            target = effective_target(record["id"], record.get("replaces"), seen.__contains__)
            if target is not None:
                links.setdefault(target, set()).add(record["id"])
                links.setdefault(record["id"], set()).add(target)
            seen.add(record["id"])
            records.append((line.number, dict(record)))
    finally:
        os.close(fd)
    chosen = {found["id"] for _, found in records if criteria.matches(found)}
    todo = [] if isinstance(criteria, Written) else list(chosen)
    while todo:  # every version, both ways
        for other in links.get(todo.pop(), ()):
            if other not in chosen:
                chosen.add(other)
                todo.append(other)
    return _scan(records, chosen, hidden, links, seen)


def _scan(records: list[tuple[int, dict[str, Any]]], chosen: set[str], hidden: set[str],
          links: dict[str, set[str]], known: set[str]) -> Scan:
    scan = Scan(hidden=hidden, known=known)
    contents: dict[str, str] = {}
    for number, found in records:
        if found["id"] in chosen:
            contents[found["id"]] = found["content"]
            scan.matches.append(Match(found["id"], number, found["type"], found["session"],
                                      found.get("subject"), found["content"],
                                      found["id"] in hidden))
            continue
        target = next((t for t in links.get(found["id"], ()) if t in contents), None)
        if target is not None:  # (links point back in log order: a target is seen before)
            scan.kept.append(Kept(found["id"], found["content"], target, contents[target]))
    return scan
