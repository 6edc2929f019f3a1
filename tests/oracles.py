"""Test oracles: slower, plainer forms of what the package does fast, to check it against."""

from __future__ import annotations

from collections.abc import Iterable

from zettelclaw.log.resolve import effective_target
from zettelclaw.log.schema import Entry, parse_timestamp
from zettelclaw.methods.search_wire import search_wire
from zettelclaw.protocol.results import SearchResult
from zettelclaw.search.query import Answer


def search_result(answer: Answer) -> SearchResult:
    """``search_wire(answer)`` as the models: validated, field by field."""
    return SearchResult.model_validate(search_wire(answer))


class Resolver:
    """The forward-pass ``Map<id, replacedById>``, built incrementally (the rule:
    docs/03-log.md#corrections-replaces)."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.replaced_by: dict[str, str] = {}  # old id -> the newest id that replaced it
        self.replaces: dict[str, str] = {}  # new id -> the id it effectively replaced
        self._seen: set[str] = set()
        self._ts: dict[str, float] = {}

    def add(self, entry_id: str, replaces: str | None, ts: float = 0.0) -> str | None:
        """Record the next entry of the log (``ts``: its time); returns the id it effectively
        replaces.

        A second entry with an id already seen is not an entry (the first one wins): it is
        ignored here, as the log reader reports it as an invalid line. Two entries replacing
        one (a fork): the later by (timestamp, id) is the target's newest, and the other is
        replaced by it (log/resolve.py).
        """
        if entry_id in self._seen:
            return None
        target = effective_target(entry_id, replaces, self._seen.__contains__)
        self._ts[entry_id] = ts
        if target is not None:
            self.replaces[entry_id] = target
            existing = self.replaced_by.get(target)
            if existing is None or self.replaces.get(existing) != target:
                self.replaced_by[target] = entry_id
            elif (ts, entry_id) > (self._ts[existing], existing):
                self.replaced_by[target] = entry_id
                for other, its_target in self.replaces.items():
                    if its_target == target and self.replaced_by.get(other) == existing:
                        self.replaced_by[other] = entry_id
                self.replaced_by.setdefault(existing, entry_id)
            else:
                self.replaced_by.setdefault(entry_id, existing)
        self._seen.add(entry_id)
        self.order.append(entry_id)
        return target

    def is_current(self, entry_id: str) -> bool:
        return entry_id in self._seen and entry_id not in self.replaced_by

    def current(self) -> list[str]:
        """Ids of the entries that are not replaced, in log order."""
        return [i for i in self.order if i not in self.replaced_by]

    def newest(self, entry_id: str) -> str:
        """The current version of ``entry_id``: follow the chain forward to its end."""
        while entry_id in self.replaced_by:  # terminates: every step moves later in the log
            entry_id = self.replaced_by[entry_id]
        return entry_id

    def history(self, entry_id: str) -> list[str]:
        """The older versions ``entry_id`` stands for, nearest first."""
        chain = []
        while entry_id in self.replaces:  # terminates: every step moves earlier in the log
            entry_id = self.replaces[entry_id]
            chain.append(entry_id)
        return chain


def resolve(entries: Iterable[Entry]) -> Resolver:
    resolver = Resolver()
    for entry in entries:
        resolver.add(entry.id, entry.replaces, parse_timestamp(entry.timestamp).timestamp())
    return resolver
