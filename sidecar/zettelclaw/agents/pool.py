"""The open memories: each opened on first use, kept while used, closed when idle, at most
``agents.maxOpen`` of them.

A memory is an ``App`` (app.py) on its own data directory. The pool opens one when a call first
names an agent that uses it, and, when serving, starts its background work (the index's first
catch-up, the extraction loop, the vectorizer, the tail mender, the vault watcher) under the
pool's nursery. A
memory that no call has used for ``agents.idleSeconds`` and that has no extraction work to do
now is closed: its background work cancelled, its index closed. So fifty agents with small logs
cost what the few in use cost (bench/README.md#agents). ``main`` stays open.

Open memories are bounded: opening one when ``agents.maxOpen`` are open first closes the one
used least recently that no call holds and whose extraction is not running a job (even with
jobs waiting). Every open memory costs threads (tantivy's, one per term shard) and memory; 1,970
agents once meant 7,904 threads, and the process died when no more could be made
(tests/agents/test_pool.py).

Extraction jobs are the pool's to schedule across memories: a closed memory with jobs in its
spool (after a restart, or closed as above) is remembered with the time its first job is due,
and opened for them, ``WORK_AT_ONCE`` memories at a time; such a memory closes again as soon as
it has nothing to do now (done, or waiting for a model or a retry), and the next one opens.
A start opens ``main`` only: the memories with waiting jobs follow, a few at a time.

Calls hold a lease while they use a memory: a memory is never closed under a call. When the
host moves an agent's workspace, its memory is reopened with it at the first moment no call
holds it (until then calls go on with the old one: a call never waits for another to finish).
The model router is shared: the host's model serves every memory's extraction; so is the
embedding model (search/local_model.py ``shared``).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import trio

from zettelclaw.agent_ids import MAIN
from zettelclaw.agents.background import serve_memory
from zettelclaw.agents.memory import (
    Slot,
    first_due,
    memories_in_teams,
    memories_with_work,
    open_memory,
)
from zettelclaw.agents.roster import Roster, memory_home
from zettelclaw.agents.upgrade import move_foreign_jobs
from zettelclaw.app import App, build_router
from zettelclaw.config import Config
from zettelclaw.errors import UnknownAgentError
from zettelclaw.home import Home, resolve_openclaw_state_dir
from zettelclaw.index import entries
from zettelclaw.llm.route import Router
from zettelclaw.openclaw.agents import ConfiguredWorkspaces
from zettelclaw.panics import is_panic
from zettelclaw.replicate import team
from zettelclaw.session_keys import TurnFacts

logger = logging.getLogger(__name__)

SWEEP_SECONDS = 30.0  # how often idle memories are looked for (at most)
LEASE_WAIT_SECONDS = 30.0  # at shutdown, for the calls still using a memory
WORK_AT_ONCE = 2  # memories opened for their waiting extraction jobs alone, at most at once
WORK_SWEEP_SECONDS = 1.0  # how often, while jobs wait in closed memories or run in such ones
RETRY_OPEN_SECONDS = 60.0  # a memory that failed to open for its jobs is tried again after this


def open_agents(root: Home, main_workspace: Path, settings: Config, *, serving: bool,
                transcript_roots: Sequence[Path] = (), main_workspace_explicit: bool = True,
                env: Mapping[str, str] = os.environ) -> Agents:
    """The pool for a data directory. ``main``'s workspace is ``main_workspace`` when it was
    given (``--workspace``, ``$ZETTELCLAW_WORKSPACE``), else what openclaw.json says, else the
    default; the others' come from openclaw.json and, live, from the host."""
    openclaw = ConfiguredWorkspaces(env)
    configured = openclaw.first()
    if not main_workspace_explicit and MAIN in configured:
        main_workspace = configured[MAIN]
    roster = Roster(root, main_workspace, share=settings.agents.share, openclaw=configured,
                    reread=openclaw.changed)
    return Agents(root, roster, settings, build_router(settings, root), serving=serving,
                  transcript_roots=transcript_roots,
                  state_dir=resolve_openclaw_state_dir(env))


class Agents:
    def __init__(self, root: Home, roster: Roster, settings: Config, router: Router, *,
                 serving: bool, transcript_roots: Sequence[Path] = (),
                 state_dir: Path | None = None) -> None:
        self.root = root
        # OpenClaw's state directory: where it puts an agent's workspace when none is set
        self.state_dir = state_dir or resolve_openclaw_state_dir(os.environ)
        self.roster = roster
        self.settings = settings
        self.router = router
        self.serving = serving
        self.transcript_roots = tuple(transcript_roots)
        self.idle_seconds = settings.agents.idle_seconds
        self.max_open = settings.agents.max_open
        # closed memories with extraction jobs -> when the first is due (Unix time)
        self._waiting: dict[str, float] = {}
        self._sweep = trio.Event()  # set: look at idle memories and waiting jobs now
        # set when serving ends: work a call runs in a thread that can stop early (an import's
        # reading: importing/cancel.py) stops, so the memories can close
        self.stopping = trio.Event()
        self._slots: dict[str, Slot] = {}
        self._opening: dict[str, trio.Lock] = {}
        self._nursery: trio.Nursery | None = None
        # the host's facts of a turn, for the session's calls that come without them
        self.turn_facts = TurnFacts()
        self.opened = 0  # memories opened since start (status, tests)
        self.closed = 0
        if serving:
            router.hosts.on_offer = self._route_available

    # -- which memory ------------------------------------------------------------------------

    def check_known(self, agent: str) -> None:
        if not self.roster.known(agent):
            known = ", ".join(self.roster.agents())
            raise UnknownAgentError(
                f"no agent {agent!r} here (known: {known}); agents come from OpenClaw's config, "
                "from the host, or from a first conversation", {"agentId": agent})

    def open_memories(self) -> list[str]:
        return sorted(self._slots)

    def entry_count(self, memory: str) -> int | None:
        """How many entries a memory holds (a closed one's index is peeked at, not opened)."""
        slot = self._slots.get(memory)
        if slot is not None:
            try:
                with slot.app.index.read() as conn:
                    return entries.total(conn)
            except sqlite3.ProgrammingError:  # closed meanwhile (idle): read the file instead
                pass
        return entries.peek_total(memory_home(self.root, memory).index)

    def app_if_open(self, agent: str) -> App | None:
        slot = self._slots.get(self.roster.memory_of(agent))
        return slot.app if slot is not None else None

    # -- leases --------------------------------------------------------------------------------

    @asynccontextmanager
    async def lease(self, agent: str, *, create: bool = False) -> AsyncIterator[App]:
        """The App of ``agent``'s memory, open for as long as the block runs. Reads pass
        ``create=False``: an unknown agent is an error. The host's hooks create."""
        if not create:
            self.check_known(agent)
        memory = self.roster.memory_of(agent)
        slot = self._slots.get(memory)
        if slot is None or (slot.leases == 0 and self._moved(slot)):
            slot = await self._open(memory)
        slot.leases += 1
        slot.for_work = False
        try:
            yield slot.app
        finally:
            slot.leases -= 1
            slot.last_used = time.monotonic()
            if slot.leases == 0:
                slot.unleased.set()
                slot.unleased = trio.Event()

    def calls(self) -> int:
        """How many calls hold a memory now (this one included, when asked from a call)."""
        return sum(slot.leases for slot in self._slots.values())

    def _moved(self, slot: Slot) -> bool:
        return self._workspace(slot.memory) != slot.app.workspace

    def _workspace(self, memory: str) -> Path:
        """The memory's workspace; for an agent nobody told us about, where OpenClaw puts one
        when nothing is configured (``<state>/workspace-<id>``)."""
        found = self.roster.workspace_of(memory)
        if found is not None:
            return found
        return self.state_dir / f"workspace-{memory}"

    async def _open(self, memory: str, *, for_work: bool = False) -> Slot:
        async with self._opening.setdefault(memory, trio.Lock()):
            slot = self._slots.get(memory)
            if slot is not None and not (slot.leases == 0 and self._moved(slot)):
                return slot  # opened by another call meanwhile
            if slot is not None:
                logger.info("agent %s: the workspace moved to %s; reopening its memory", memory,
                            self._workspace(memory))
                await self._close(slot)
            await self._make_room()
            app = await trio.to_thread.run_sync(self._build, memory)
            slot = Slot(memory, app, for_work=for_work)
            self._slots[memory] = slot
            self._waiting.pop(memory, None)  # its own loop runs its jobs now
            self.opened += 1
            if self.serving and self._nursery is not None:
                slot.scope = trio.CancelScope()
                await self._nursery.start(self._background, slot)
            else:
                slot.stopped.set()
            return slot

    def _build(self, memory: str) -> App:
        return open_memory(self.root, memory, self._workspace(memory), self.settings,
                           serving=self.serving, router=self.router,
                           transcript_roots=self.transcript_roots)

    def _closable(self, slot: Slot) -> bool:
        """Whether the bound may close ``slot`` for another: not ``main``, no call holds it,
        no job of it is running, nobody is opening or closing it."""
        worker = slot.app.worker
        lock = self._opening.get(slot.memory)
        return (slot.memory != MAIN and slot.leases == 0
                and not (worker is not None and worker.busy())
                and not (lock is not None and lock.locked()))

    async def _make_room(self) -> None:
        """Below ``max_open`` memories, by closing the ones used least recently; when every one
        is in use the bound is exceeded for now (a call never waits for another's memory)."""
        while len(self._slots) >= self.max_open:
            closable = [slot for slot in self._slots.values() if self._closable(slot)]
            if not closable:
                logger.warning("%d memories open, all in use (agents.maxOpen %d)",
                               len(self._slots), self.max_open)
                return
            victim = min(closable, key=lambda slot: slot.last_used)
            async with self._opening.setdefault(victim.memory, trio.Lock()):
                if self._slots.get(victim.memory) is victim and victim.leases == 0:
                    logger.info("agent %s: memory closed to stay within agents.maxOpen (%d)",
                                victim.memory, self.max_open)
                    await self._close(victim)

    async def _close(self, slot: Slot) -> None:
        self._slots.pop(slot.memory, None)
        if slot.scope is not None:
            slot.scope.cancel()  # its syncing too: a long build stops after its batch
        await slot.stopped.wait()
        # At shutdown a call may still hold the memory (a briefing whose catch-up runs in a
        # thread): closing the index under it would fail that thread. Its task is cancelled,
        # so it lets go soon; if not, the memory closes anyway.
        with trio.move_on_after(LEASE_WAIT_SECONDS):
            while slot.leases:
                await slot.unleased.wait()
        await trio.to_thread.run_sync(slot.app.close)
        self.closed += 1
        logger.info("agent %s: memory closed", slot.memory)
        if self._nursery is not None:  # serving: its waiting jobs run when their turn comes
            spool = slot.app.extraction.spool
            due = await trio.to_thread.run_sync(lambda: first_due(spool.jobs()))
            if due is not None:
                self._waiting[slot.memory] = due
                self._sweep.set()

    # -- serving -------------------------------------------------------------------------------

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Serve: move what the upgrade moves, open ``main``, note the memories with extraction
        work waiting, then, until cancelled, open those a few at a time and close idle memories
        (and all of them at the end)."""
        await trio.to_thread.run_sync(move_foreign_jobs, self.root,
                                   self.roster.memory_of)
        try:
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                await self._open(MAIN)
                for memory in await trio.to_thread.run_sync(memories_in_teams, self.root):
                    await self._open(memory)  # kept open: it follows the team's database
                self._waiting.update(await trio.to_thread.run_sync(memories_with_work,
                                                                  self.root))
                task_status.started()
                while True:
                    await self.open_for_work()
                    working = self._waiting or any(s.for_work for s in self._slots.values())
                    period = min(SWEEP_SECONDS, self.idle_seconds / 4)
                    with trio.move_on_after(WORK_SWEEP_SECONDS if working else period):
                        await self._sweep.wait()
                    self._sweep = trio.Event()
                    await self.close_idle()
        finally:
            self._nursery = None
            self.stopping.set()
            with trio.CancelScope(shield=True):
                for slot in list(self._slots.values()):
                    await self._close(slot)

    def waiting(self) -> dict[str, float]:
        """Closed memories with extraction jobs, and when the first is due (status, tests)."""
        return dict(self._waiting)

    async def open_for_work(self) -> int:
        """Open closed memories whose jobs are due, up to ``WORK_AT_ONCE`` opened for their
        jobs at once, and within ``maxOpen`` when a memory can be closed for them."""
        now = time.time()
        working = sum(slot.for_work for slot in self._slots.values())
        opened = 0
        for memory, due in sorted(self._waiting.items(), key=lambda item: item[1]):
            if working >= WORK_AT_ONCE or due > now:
                break
            if memory in self._slots:
                self._waiting.pop(memory, None)
                continue
            if len(self._slots) >= self.max_open and not any(
                    self._closable(slot) and not slot.for_work for slot in self._slots.values()):
                break  # the open ones are in use: a call's memory is not closed for jobs
            self._waiting.pop(memory, None)
            try:
                await self._open(memory, for_work=True)
            except BaseException as exc:
                if not (isinstance(exc, Exception) or is_panic(exc)):
                    raise
                logger.exception("agent %s: its memory could not be opened for its extraction "
                                 "jobs; trying again in %g s", memory, RETRY_OPEN_SECONDS)
                self._waiting[memory] = now + RETRY_OPEN_SECONDS
                continue
            working += 1
            opened += 1
        return opened

    async def close_idle(self, now: float | None = None) -> int:
        """Close the memories nobody used for ``idleSeconds`` (or that were opened for their
        jobs alone) and with no extraction work to do now; jobs due later are remembered."""
        now = time.monotonic() if now is None else now
        closed = 0
        for slot in list(self._slots.values()):
            if slot.memory == MAIN or slot.leases or team.configured(slot.app.home) or (
                    not slot.for_work and now - slot.last_used < self.idle_seconds):
                continue
            worker = slot.app.worker
            if worker is not None and worker.busy():
                continue  # a job runs
            due = first_due(await trio.to_thread.run_sync(slot.app.extraction.spool.jobs))
            if due is not None and max(due, slot.app.extraction.pause.until) <= time.time():
                continue  # a job is due now: it runs in this memory's loop
            async with self._opening.setdefault(slot.memory, trio.Lock()):
                if slot.leases == 0 and self._slots.get(slot.memory) is slot:  # still idle
                    await self._close(slot)
                    closed += 1
        return closed

    async def _background(self, slot: Slot, *,
                          task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        assert slot.scope is not None
        try:
            with slot.scope:
                await serve_memory(slot.app, self.settings, task_status=task_status)
        finally:
            slot.stopped.set()

    async def _route_available(self) -> None:
        """A host offered its model: every memory's waiting jobs may go on (the closed ones'
        when their turn comes)."""
        for memory in self._waiting:
            self._waiting[memory] = 0.0
        self._sweep.set()
        for slot in list(self._slots.values()):
            if slot.app.worker is not None:
                await slot.app.worker.route_available()

    def open_now(self, agent: str) -> App:
        """Files mode (no event loop, no background work): the memory of ``agent``, opened
        here and now when it is not open yet."""
        memory = self.roster.memory_of(agent)
        slot = self._slots.get(memory)
        if slot is None:
            slot = Slot(memory, self._build(memory))
            slot.stopped.set()
            self._slots[memory] = slot
            self.opened += 1
        return slot.app

    def close_all(self) -> None:
        """Files mode (no background work): close every open memory."""
        for slot in list(self._slots.values()):
            self._slots.pop(slot.memory, None)
            slot.app.close()
