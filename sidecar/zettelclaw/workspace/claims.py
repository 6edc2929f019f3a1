"""Whose workspace is whose: isolation needs distinct workspaces, none inside another
(tests/workspace/test_workspace_claims.py).

An agent's workspace is where its ``MEMORY.md`` is written and its ``memory/**/*.md`` indexed.
Two memories with the same workspace read each other's notes (the generated block included);
a workspace inside another's ``memory/`` makes its briefing searchable by the other. So:

- Paths are compared by ``os.path.realpath`` (symbolic links resolved): ``/ws`` and a link to it
  are the same workspace. Two workspaces *overlap* when they are the same, or when one lies
  inside the other's ``memory/`` (at any depth; ``memory/`` itself resolved too), where the
  other's search reads it. A workspace elsewhere inside another is not an overlap: OpenClaw's
  own layout with ``agents.defaults.workspace`` puts agent ``<id>`` at ``<default>/<id>``, and
  neither reads the other's files there.
- **Ownership**: ``main`` owns its workspace (``--workspace``, openclaw.json, the default); an
  agent configured in ``openclaw.json`` owns the workspace configured for it; any other agent
  owns the workspace it registered first (``agents.register``, a hook's ``workspaceDir``).
- A registration of a workspace that overlaps one owned by an agent of **another memory** is
  refused (agents that share a memory through ``agents.share`` may share a workspace): the
  agent keeps what it had. ``briefing.generate`` with such a ``workspaceDir`` is ``-32602``.
- What the user configured so in ``openclaw.json`` (both workspaces from the configuration) is
  accepted, since it is the user's word, and warned about loudly: in ``status``
  (``workspaceConflicts``), in the sidecar's log and by ``zettelclaw init``.
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from zettelclaw.workspace.memory_files import MEMORY_DIR


@dataclass(frozen=True)
class Claim:
    agent: str
    memory: str
    workspace: Path
    configured: bool  # from openclaw.json or --workspace: the user's word
    real: str  # realpath
    notes: str  # realpath of its memory/


def claim(agent: str, memory: str, workspace: Path, configured: bool) -> Claim:
    real = os.path.realpath(workspace)
    return Claim(agent, memory, workspace, configured, real,
                 os.path.realpath(os.path.join(real, MEMORY_DIR)))


def _within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def relation(mine: Claim, other: Claim) -> str | None:
    """How ``mine`` stands to ``other``: "same", "inside" (other's memory/), "contains" (other
    lies in mine's memory/), or None."""
    if mine.real == other.real:
        return "same"
    if _within(mine.real, other.notes):
        return "inside"
    if _within(other.real, mine.notes):
        return "contains"
    return None


class Claims:
    """Claims looked up by path: the ones a claim could overlap are those at its real path,
    those whose memory/ is it or above it, and those inside its own memory/ (a prefix scan of
    a sorted list), so a check costs the path's depth plus a bisection, not one per claim."""

    def __init__(self, claims: Iterable[Claim] = ()) -> None:
        self.by_agent: dict[str, Claim] = {}
        self._by_real: dict[str, list[Claim]] = {}
        self._by_notes: dict[str, list[Claim]] = {}
        self._reals: list[str] = []  # sorted
        for c in claims:
            self.add(c)

    def add(self, new: Claim) -> None:
        old = self.by_agent.pop(new.agent, None)
        if old is not None:
            self._by_real[old.real].remove(old)
            self._by_notes[old.notes].remove(old)
            if not self._by_real[old.real]:
                del self._by_real[old.real]
                self._reals.remove(old.real)
        self.by_agent[new.agent] = new
        if new.real not in self._by_real:
            bisect.insort(self._reals, new.real)
        self._by_real.setdefault(new.real, []).append(new)
        self._by_notes.setdefault(new.notes, []).append(new)

    def near(self, new: Claim) -> list[Claim]:
        """The claims that may overlap ``new`` (a superset; ``relation`` decides)."""
        above = [new.real, *(str(p) for p in Path(new.real).parents)]
        found = [*self._by_real.get(new.real, []),
                 *(c for directory in above for c in self._by_notes.get(directory, []))]
        prefix = new.notes.rstrip(os.sep)
        i = bisect.bisect_left(self._reals, prefix)
        while i < len(self._reals) and self._reals[i].startswith(prefix):
            found.extend(self._by_real[self._reals[i]])
            i += 1
        return found

    def owner_against(self, new: Claim) -> tuple[Claim, str] | None:
        """The claim of another memory that ``new`` overlaps, with how; None when it overlaps
        none, or only ones the user configured so as ``new`` itself is."""
        for other in self.near(new):
            if other.agent == new.agent or other.memory == new.memory:
                continue
            how = relation(new, other)
            if how is not None and not (new.configured and other.configured):
                return other, how
        return None


@dataclass(frozen=True, slots=True)
class Conflict:
    """Two agents of different memories whose workspaces are the same or nested (``status``'s
    ``workspaceConflicts``); ``configured``: both as the user configured them."""

    agents: list[str]
    workspaces: list[str]
    relation: str
    configured: bool


def conflicts(claims: Iterable[Claim]) -> list[Conflict]:
    """Every pair of claims of different memories that overlap. Each claim is looked up by the
    directories above it (a dict of paths), so n claims cost n times their depth, not n^2."""
    listed = sorted(claims, key=lambda c: c.agent)
    index = Claims(listed)
    found: list[Conflict] = []
    seen: set[tuple[str, str]] = set()
    for current in listed:
        for other in index.near(current):
            pair = (min(current.agent, other.agent), max(current.agent, other.agent))
            if other.memory == current.memory or pair in seen:
                continue
            how = relation(current, other)
            if how is None:
                continue
            seen.add(pair)
            found.append(Conflict(agents=[current.agent, other.agent],
                                  workspaces=[str(current.workspace), str(other.workspace)],
                                  relation=how,
                                  configured=current.configured and other.configured))
    return found


def describe(found: Conflict) -> str:
    a, b = found.agents
    wa, wb = found.workspaces
    if found.relation == "same":
        where = f"share the workspace {wa}"
    elif found.relation == "inside":
        where = f"have nested workspaces ({wa} lies in {wb}/memory)"
    else:
        where = f"have nested workspaces ({wb} lies in {wa}/memory)"
    return (f"agents {a} and {b} {where}: each reads the other's MEMORY.md and memory notes; "
            "give each agent its own workspace in openclaw.json")
