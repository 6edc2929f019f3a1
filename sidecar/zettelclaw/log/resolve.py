"""Replacement resolution (spec §3.3): which entries are current, which were replaced.

The rule, in one place: an entry replaces the entry named by its ``replaces`` only when that
entry appears EARLIER in the log and is not the entry itself. Edges therefore always point back
in log order, so no cycle can form, whatever a hand-edited log says; a ``replaces`` that names
a later, unknown or its own id is dangling: it hides nothing, and the entry that carries it is
shown as usual. When two entries replace the same one, the later wins ("chains resolve to the
newest"). Resolution reads the log forward once and is incremental: ``add`` one entry at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from zettelclaw.log.schema import Entry


def effective_target(entry_id: str, replaces: str | None,
                     seen: Callable[[str], bool]) -> str | None:
    """The id ``entry_id`` really replaces, given the ids seen before it, or None."""
    if replaces is None or replaces == entry_id or not seen(replaces):
        return None
    return replaces


class Resolver:
    """The forward-pass ``Map<id, replacedById>`` of the spec, built incrementally."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.replaced_by: dict[str, str] = {}  # old id -> the newest id that replaced it
        self.replaces: dict[str, str] = {}  # new id -> the id it effectively replaced
        self._seen: set[str] = set()

    def add(self, entry_id: str, replaces: str | None) -> str | None:
        """Record the next entry of the log; returns the id it effectively replaces.

        A second entry with an id already seen is not an entry (the first one wins): it is
        ignored here, as the log reader reports it as an invalid line.
        """
        if entry_id in self._seen:
            return None
        target = effective_target(entry_id, replaces, self._seen.__contains__)
        if target is not None:
            self.replaced_by[target] = entry_id
            self.replaces[entry_id] = target
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
        resolver.add(entry.id, entry.replaces)
    return resolver
