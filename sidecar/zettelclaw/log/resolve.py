"""Replacement resolution: which entries are current, which were replaced.

Why by reference: docs/03-log.md#corrections-replaces.

The rule, in one place: an entry replaces the entry named by its ``replaces`` only when that
entry appears EARLIER in the log and is not the entry itself. Edges therefore always point back
in log order, so no cycle can form, whatever a hand-edited log says; a ``replaces`` that names
a later, unknown or its own id is dangling: it hides nothing, and the entry that carries it is
shown as usual. When two entries replace the same one (a fork: two machines corrected it while
apart, docs/14-sync.md), the one with the later (timestamp, id) wins, whatever their order in
the log, so every machine shows the same version: the replaced entry points to it, and the
other correction is shown as replaced by it (the briefing's Contradictions section names the
fork until the winner is replaced in turn). An entry that replaces the losing correction on
purpose continues that branch. The index applies it as it ingests (``index/ingest.py``);
tests/oracles.py's ``Resolver`` is the plain forward pass the index is checked against.
"""

from __future__ import annotations

from collections.abc import Callable


def effective_target(entry_id: str, replaces: str | None,
                     seen: Callable[[str], bool]) -> str | None:
    """The id ``entry_id`` really replaces, given the ids seen before it, or None."""
    if replaces is None or replaces == entry_id or not seen(replaces):
        return None
    return replaces
