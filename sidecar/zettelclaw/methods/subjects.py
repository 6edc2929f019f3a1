"""``subjects.*``: the subject registry (subjects.json) beside what the log says of each.

``subjects.rename`` rewrites the log (the one rewrite there is, under the data lock, atomic);
the index adopts the new slug in place instead of indexing the log again.
"""

from __future__ import annotations

from functools import partial

import trio

from zettelclaw import lock
from zettelclaw.agents.pool import Agents
from zettelclaw.app import App
from zettelclaw.errors import SubjectNotFoundError
from zettelclaw.index import entries
from zettelclaw.protocol.dispatcher import Method
from zettelclaw.protocol.params import SubjectsAddParams, SubjectsListParams, SubjectsRenameParams
from zettelclaw.protocol.results import (
    SubjectAdded,
    SubjectInfo,
    SubjectRenamed,
    SubjectRow,
    SubjectsList,
)
from zettelclaw.subjects.registry import DEFAULT_TYPE, Subject, title_case
from zettelclaw.subjects.rename import rewrite_subject_locked


async def subjects_list(agents: Agents, params: SubjectsListParams) -> SubjectsList:
    async with agents.lease(params.agent()) as app:
        await app.syncer.fresh()
        return await trio.to_thread.run_sync(list_subjects, app)


async def subjects_add(agents: Agents, params: SubjectsAddParams) -> SubjectAdded:
    async with agents.lease(params.agent()) as app:
        return await trio.to_thread.run_sync(add_subject, app, params)


async def subjects_rename(agents: Agents, params: SubjectsRenameParams) -> SubjectRenamed:
    async with agents.lease(params.agent()) as app:
        return await trio.to_thread.run_sync(rename_subject, app, params.from_, params.to)


def methods(agents: Agents) -> dict[str, Method]:
    return {
        "subjects.list": Method(SubjectsListParams, partial(subjects_list, agents)),
        "subjects.add": Method(SubjectsAddParams, partial(subjects_add, agents)),
        "subjects.rename": Method(SubjectsRenameParams, partial(subjects_rename, agents)),
    }


def list_subjects(app: App) -> SubjectsList:
    registry = app.subjects.load()
    with app.index.read() as conn:
        stats = entries.subject_stats(conn)
    rows = []
    for slug in sorted(set(registry) | set(stats)):
        known = registry.get(slug)
        count, last = stats.get(slug, (0, None))
        rows.append(SubjectRow(slug=slug, display=known.display if known else title_case(slug),
                               type=known.type if known else None, registered=known is not None,
                               entries=count, last_entry=last))
    return SubjectsList(subjects=rows)


def add_subject(app: App, params: SubjectsAddParams) -> SubjectAdded:
    subject = app.subjects.add(params.slug, params.type, params.display)
    return SubjectAdded(subject=_info(params.slug, subject))


def rename_subject(app: App, old: str, new: str) -> SubjectRenamed:
    with lock.exclusive(app.home.lock):
        app.freshness.sync(locked=True)
        registry = app.subjects.load()
        with app.index.read() as conn:
            in_log = entries.subject_entries(conn, old)
        if old not in registry and not in_log:
            raise SubjectNotFoundError(f"no subject {old!r} in the registry or the log",
                                       {"slug": old})
        merged = new in registry
        if not merged:  # the new slug takes the old one's type, and its display if custom
            source = registry.get(old)
            if source is None or source.display == title_case(old):
                display = title_case(new)
            else:
                display = source.display
            registry[new] = Subject(display=display, type=source.type if source else DEFAULT_TYPE)
            app.subjects.save_locked(registry)
        rewritten = 0
        if in_log:
            result = rewrite_subject_locked(app.home, old, new)
            app.freshness.adopt_rewrite(old, new, result.new_offset)
            rewritten = result.rewritten
        registry.pop(old, None)
        app.subjects.save_locked(registry)
        app.freshness.subjects_saved()  # the index has the new names already
    return SubjectRenamed(from_=old, to=new, merged=merged, entries_rewritten=rewritten,
                          subject=_info(new, registry[new]))


def _info(slug: str, subject: Subject) -> SubjectInfo:
    return SubjectInfo(slug=slug, display=subject.display, type=subject.type)
