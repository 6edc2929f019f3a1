"""``memory.search`` and ``memory.get``: recall, for the owner's private sessions only.

A call from a chat others can read, or from someone else's session, gets nothing: an empty
``restricted`` answer from search, the error -32012 from get. Each call reads the memory of the
agent it names, and only that one: an entry id of another agent's memory is not found.
"""

from __future__ import annotations

import os
import re
from functools import partial

import trio

from zettelclaw.agents.pool import Agents
from zettelclaw.app import App
from zettelclaw.errors import NotFoundError
from zettelclaw.index import entries
from zettelclaw.index.entries import Filters
from zettelclaw.index.read_budget import read_now
from zettelclaw.log.schema import ID_RE
from zettelclaw.methods.edge import from_domain, heard, refuse_restricted
from zettelclaw.methods.search_wire import search_wire
from zettelclaw.protocol.dispatcher import Method
from zettelclaw.protocol.params import GetParams, SearchParams, day_bounds
from zettelclaw.protocol.results import (
    EntryWithChain,
    SearchResult,
    TextSlice,
    Wire,
    restricted,
)
from zettelclaw.search.query import Answer, Request
from zettelclaw.search.searcher import NOW_SQLITE_SECONDS
from zettelclaw.workspace.memory_files import FileSlice, read_slice

# Searches in worker threads, at most one a core. Under load the GIL is what calls wait for: with
# every call in trio's default pool, a quick memory.get waited its turn among dozens of searches
# (bench/README.md#load). Searches past the cores wait in trio, where
# waiting costs nothing, and the other calls' threads get the GIL sooner.
SEARCH_THREADS = max(2, os.cpu_count() or 2)


def request_of(params: SearchParams) -> Request:
    """The params as the search engine's request (dates as Unix seconds, UTC days)."""
    filters = Filters(
        type=params.type, subject=params.subject, status=params.status, session=params.session,
        since=None if params.since is None else day_bounds(params.since, end=False),
        until=None if params.until is None else day_bounds(params.until, end=True),
        include_replaced=params.include_replaced,
    )
    text = params.query if params.query and params.query.strip() else None
    return Request(text, filters, params.max_results, params.min_score, params.searched(),
                   params.order)


async def search(agents: Agents, searches: trio.CapacityLimiter, params: SearchParams
                 ) -> SearchResult | Wire[SearchResult]:
    reason = heard(agents, params).restriction()
    if reason is not None:  # a chat others can read, or someone else's: nothing is shown
        return restricted(reason)
    async with agents.lease(params.agent()) as app:
        await app.syncer.fresh()
        await trio.lowlevel.checkpoint()  # the rest of a batch takes its leases first
        # alone, a quick search runs here: a thread hand-off would cost about as much;
        # beside other calls, in a thread (the loop stays free for their hooks)
        answer = app.searcher.search_now(request_of(params)) if agents.calls() == 1 else None
        if answer is None:
            return await trio.to_thread.run_sync(search_in, app, params, limiter=searches)
        return _wire(app, answer)


async def get(agents: Agents, params: GetParams) -> EntryWithChain | TextSlice:
    refuse_restricted(agents, params)
    path = params.path.strip()
    async with agents.lease(params.agent()) as app:
        if path.startswith("session:"):  # provenance: the conversation an entry came from
            part = await trio.to_thread.run_sync(app.extraction.transcript,
                                                 path.removeprefix("session:"),
                                                 params.from_, params.lines)
            return text_slice(part)
        await app.syncer.fresh()
        await trio.lowlevel.checkpoint()  # as in search: a batch's calls lease first
        found = entry_now(app, path) if agents.calls() == 1 else None
        if found is not None:
            return found
        return await trio.to_thread.run_sync(get_path, app, path, params)


def search_in(app: App, params: SearchParams) -> Wire[SearchResult]:
    """``search`` in this thread, blocking: the handler's path beside other calls (in a worker
    thread), and tests/direct.py's."""
    return _wire(app, app.searcher.search(request_of(params)))


def _wire(app: App, answer: Answer) -> Wire[SearchResult]:
    if answer.stale is None:
        answer.stale = app.syncer.stale
    return Wire(SearchResult, search_wire(answer))  # built directly: methods/search_wire.py


def methods(agents: Agents) -> dict[str, Method]:
    searches = trio.CapacityLimiter(SEARCH_THREADS)  # per table: one trio run's
    return {
        "memory.search": Method(SearchParams, partial(search, agents, searches)),
        "memory.get": Method(GetParams, partial(get, agents)),
    }


def entry_now(app: App, path: str) -> EntryWithChain | None:
    """An entry and its chain read on the event loop (a few rows: handing it to a thread cost
    more), when ``path`` is an entry id and the index is free; else None (a thread reads it).
    An id the log does not hold raises NotFoundError here as there."""
    if not ID_RE.match(path):
        return None
    return read_now(app.index, NOW_SQLITE_SECONDS, lambda: _entry(app, path))


# a bare word (no dot, no slash) names no file of the workspace: it was meant as an entry id
BARE_WORD_RE = re.compile(r"^[0-9A-Za-z_-]+$")


def get_path(app: App, path: str, params: GetParams) -> EntryWithChain | TextSlice:
    if ID_RE.match(path):
        return _entry(app, path)
    if BARE_WORD_RE.match(path):
        raise NotFoundError(f"no entry with id {path} in the log (an entry id has 12 "
                            "characters; memory files are MEMORY.md and memory/NAME.md)",
                            {"path": path})
    return text_slice(read_slice(app.workspace, path, params.from_, params.lines))


def text_slice(part: FileSlice) -> TextSlice:
    return TextSlice(path=part.path, text=part.text, from_=part.start, lines=part.count,
                     total_lines=part.total, truncated=part.truncated)


def _entry(app: App, entry_id: str) -> EntryWithChain:
    with app.index.read() as conn:
        found = entries.get_entry(conn, entry_id)
        hidden = found is None and entries.is_hidden(conn, entry_id)
    if hidden:  # in the log, out of recall: the owner may want it back
        raise NotFoundError(f"entry {entry_id} is hidden (forgotten); give it back with: "
                            f"zettelclaw forget --undo {entry_id}",
                            {"path": entry_id, "hidden": True})
    if found is None:
        raise NotFoundError(f"no entry with id {entry_id} in the log", {"path": entry_id})
    return from_domain(EntryWithChain, found)
