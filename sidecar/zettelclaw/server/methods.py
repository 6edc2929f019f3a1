"""The method table: each JSON-RPC method name, its params model, and its trio handler.

Handlers run the blocking parts (files, SQLite) in worker threads, so one slow search never
holds up the hook of another connection. ``hook.beforePromptBuild`` stays on the event loop:
it answers from a cached string after one ``stat`` of the log.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import trio

from zettelclaw.briefing.service import Briefing
from zettelclaw.config import load_config
from zettelclaw.errors import RestrictedError
from zettelclaw.extraction.service import Extraction
from zettelclaw.memory import Memory
from zettelclaw.protocol.dispatcher import Method
from zettelclaw.protocol.params import (
    BeforePromptBuildParams,
    GetParams,
    IndexRebuildParams,
    SearchParams,
    StatusParams,
    SubjectsAddParams,
    SubjectsListParams,
    SubjectsRenameParams,
)
from zettelclaw.server.briefing_methods import briefing_methods
from zettelclaw.server.extraction_methods import extraction_methods
from zettelclaw.server.host_methods import host_methods
from zettelclaw.server.syncer import Syncer

T = TypeVar("T")


def build_methods(memory: Memory, syncer: Syncer, server_info: Callable[[], dict[str, Any]],
                  extraction: Extraction | None = None,
                  notify: Callable[[], None] | None = None, *,
                  briefing: Briefing | None = None) -> dict[str, Method]:
    """The whole table. Without ``extraction``, one is made from the data directory's config;
    ``notify`` wakes the extraction loop (none runs in the CLI's files mode)."""
    if extraction is None:
        extraction = Extraction(memory, load_config(memory.home).extraction)
    wake = notify or (lambda: None)
    if briefing is None:  # the CLI's files mode: the same runs, no scheduler
        briefing = Briefing(memory, load_config(memory.home), syncer, router=extraction.router)

    async def in_thread(fn: Callable[..., T], *args: Any) -> T:
        return await trio.to_thread.run_sync(fn, *args)

    async def search(params: SearchParams) -> dict[str, Any]:
        reason = params.restriction()
        if reason is not None:  # a chat others can read, or someone else's: nothing is shown
            return {"results": [], "mode": "restricted", "restricted": {"reason": reason}}
        await syncer.fresh()
        return await in_thread(memory.search, params)

    async def get(params: GetParams) -> dict[str, Any]:
        reason = params.restriction()
        if reason is not None:
            raise RestrictedError(f"memory is not available in this chat: {reason}",
                                  {"reason": reason})
        path = params.path.strip()
        if path.startswith("session:"):  # provenance: the conversation an entry came from
            return await in_thread(extraction.transcript, path.removeprefix("session:"),
                                   params.from_, params.lines)
        await syncer.fresh()
        return await in_thread(memory.get, params)

    async def subjects_list(_: SubjectsListParams) -> dict[str, Any]:
        await syncer.fresh()
        return await in_thread(memory.subjects_list)

    async def subjects_add(params: SubjectsAddParams) -> dict[str, Any]:
        return await in_thread(memory.subjects_add, params)

    async def subjects_rename(params: SubjectsRenameParams) -> dict[str, Any]:
        return await in_thread(memory.subjects_rename, params)

    async def before_prompt_build(params: BeforePromptBuildParams) -> dict[str, Any]:
        await syncer.fresh_if_quick()
        return {"prependContext": memory.handoff_context(params)}

    async def index_rebuild(_: IndexRebuildParams) -> dict[str, Any]:
        return await syncer.exclusive(memory.rebuild)

    async def status(_: StatusParams) -> dict[str, Any]:
        await syncer.fresh_if_quick()  # during a long index build: answer with its progress
        result = await in_thread(memory.status)
        return {**result, "extraction": await in_thread(extraction.status),
                "briefing": await in_thread(briefing.status), "server": server_info()}

    return {
        "memory.search": Method(SearchParams, search),
        "memory.get": Method(GetParams, get),
        "subjects.list": Method(SubjectsListParams, subjects_list),
        "subjects.add": Method(SubjectsAddParams, subjects_add),
        "subjects.rename": Method(SubjectsRenameParams, subjects_rename),
        "hook.beforePromptBuild": Method(BeforePromptBuildParams, before_prompt_build),
        "status": Method(StatusParams, status),
        "index.rebuild": Method(IndexRebuildParams, index_rebuild),
        **extraction_methods(extraction, wake),
        **briefing_methods(briefing),
        **host_methods(extraction.router),
    }
