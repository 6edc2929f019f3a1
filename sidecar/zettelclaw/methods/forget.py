"""``memory.forget`` and ``memory.unforget``: the owner takes entries out of recall (hide, an
append-only record in the log, reversible) or off the disk (purge). Only where memory may be
shown: a call from a chat others can read, or from someone else's session, is -32012.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import trio

from zettelclaw.agents.pool import Agents
from zettelclaw.app import App
from zettelclaw.briefing.service import rewrite_block
from zettelclaw.forget import service
from zettelclaw.forget.copies import in_memory_files, take_out
from zettelclaw.forget.purge import Removed as Counts
from zettelclaw.forget.select import Criteria
from zettelclaw.methods.edge import refuse_restricted
from zettelclaw.protocol.dispatcher import Method
from zettelclaw.protocol.params import ForgetParams, UnforgetParams
from zettelclaw.protocol.results import (
    FileCopy,
    Forgot,
    ForgotEntry,
    Removed,
    RemovedFiles,
    RemovedIndex,
    RemovedLog,
    RemovedSpool,
    RemovedVault,
)


async def forget(agents: Agents, params: ForgetParams) -> Forgot:
    refuse_restricted(agents, params, changing=True)
    criteria = Criteria(ids=tuple(params.ids or ()), session=params.session,
                        subject=params.subject, text=params.text)
    async with agents.lease(params.agent()) as app:
        run = service.purge if params.purge else service.hide
        found = await trio.to_thread.run_sync(
            lambda: run(app, criteria, dry_run=params.dry_run))
        briefing = await rebrief(app) if not params.dry_run and found.changed else None
        # after the block is written again: only the person's own lines are named
        texts = [m.content for m in found.entries] + ([params.text] if params.text else [])
        kept = await trio.to_thread.run_sync(in_memory_files, app.workspace, texts)
        deleted = (await trio.to_thread.run_sync(take_out, app.workspace, kept)
                   if params.edit_files and not params.dry_run else set())
    return answer(found, briefing, [FileCopy(path=c.path, line=c.line, text=c.text,
                                             deleted=(c.path, c.line) in deleted)
                                    for c in kept])


async def unforget(agents: Agents, params: UnforgetParams) -> Forgot:
    refuse_restricted(agents, params, changing=True)
    async with agents.lease(params.agent()) as app:
        found = await trio.to_thread.run_sync(
            lambda: service.unhide(app, list(params.ids), dry_run=params.dry_run))
        briefing = await rebrief(app) if not params.dry_run and found.changed else None
    return answer(found, briefing)


def methods(agents: Agents) -> dict[str, Method]:
    return {
        "memory.forget": Method(ForgetParams, partial(forget, agents)),
        "memory.unforget": Method(UnforgetParams, partial(unforget, agents)),
    }


def answer(found: service.Forgotten, briefing: bool | None,
           copies: list[FileCopy] | None = None) -> Forgot:
    """The answer: ``removed`` only for a purge, ``briefing`` only when the block was looked
    at (a change that was not a dry run)."""
    fields: dict[str, Any] = {
        "action": found.action, "dry_run": found.dry_run, "by": found.by,
        "entries": [ForgotEntry(id=m.id, line=m.line, type=m.type, session=m.session,
                                subject=m.subject, content=m.snippet(), hidden=m.hidden)
                    for m in found.entries],
        "changed": found.changed}
    if found.removed is not None:
        fields["removed"] = removed(found.removed)
    elif found.transcripts is not None:
        fields["removed"] = Removed(transcripts=found.transcripts)
    if briefing is not None:
        fields["briefing"] = briefing
    if copies is not None:
        fields["in_memory_files"] = copies
    return Forgot(**fields)


def removed(counts: Counts) -> Removed:
    return Removed(log=RemovedLog(lines=counts.log_lines, bytes=counts.log_bytes),
                   transcripts=RemovedFiles(files=counts.transcripts,
                                            bytes=counts.transcript_bytes),
                   spool=RemovedSpool(jobs=counts.spool_jobs, entries=counts.spool_entries),
                   vault=RemovedVault(pages=counts.vault_pages, lines=counts.vault_lines),
                   index=RemovedIndex(rows=counts.index_rows, vectors=counts.vectors),
                   seconds=round(counts.seconds, 3))


async def rebrief(app: App) -> bool:
    """Write the MEMORY.md block again when the workspace has one (what it showed may be gone);
    True when it was written."""
    return await rewrite_block(app.workspace, app.briefing)
