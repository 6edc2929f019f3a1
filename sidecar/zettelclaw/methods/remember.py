"""``memory.remember``: "remember this" now. One entry, validated and scrubbed like an extracted
one (``log.schema.validate_entry``), appended at once (fsynced, under the data lock), in the
owner's private sessions only. The same text, type and subject said again in the same session
while that entry is current writes nothing: the answer is the first one's, ``existing``
true. Its ``session`` is the conversation it was said in, so that
extraction of that conversation shows it to the model as held already and drops a copy of it
(extraction/service.py).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import trio

from zettelclaw import lock
from zettelclaw.agents.pool import Agents
from zettelclaw.app import App
from zettelclaw.errors import InvalidParamsError
from zettelclaw.index import entries
from zettelclaw.log.schema import Entry, InvalidEntry, new_id, now_timestamp, validate_entry
from zettelclaw.log.store import LogStore
from zettelclaw.methods.edge import refuse_restricted
from zettelclaw.protocol.dispatcher import Method
from zettelclaw.protocol.params import RememberParams
from zettelclaw.protocol.results import LogEntry, Remembered
from zettelclaw.recall import receipts

MANUAL = "manual"


async def remember(agents: Agents, params: RememberParams) -> Remembered:
    refuse_restricted(agents, params, changing=True)
    async with agents.lease(params.agent()) as app:
        return await trio.to_thread.run_sync(write, app, params)


def methods(agents: Agents) -> dict[str, Method]:
    return {"memory.remember": Method(RememberParams, partial(remember, agents))}


def write(app: App, params: RememberParams) -> Remembered:
    value: dict[str, Any] = {
        "id": new_id(), "timestamp": now_timestamp(), "type": params.type,
        "content": params.content, "session": params.session_id or MANUAL}
    if params.type == "task":
        value["status"] = params.status or "open"
    elif params.status is not None:
        raise _invalid("status", "only a task has a status")
    for key in ("detail", "subject", "replaces"):
        if getattr(params, key) is not None:
            value[key] = getattr(params, key)
    try:
        entry = validate_entry(value)
    except InvalidEntry as exc:
        raise _invalid("content", exc.reason) from None
    with lock.exclusive(app.home.lock):
        app.freshness.sync(locked=True)
        if entry.replaces is not None:
            with app.index.read() as conn:
                if entries.get_entry(conn, entry.replaces) is None:
                    raise _invalid("replaces", f"no entry {entry.replaces} in this memory")
        same = None if entry.replaces is not None else _current_twin(app, entry)
        if same is not None:  # said twice: the one written first is the answer
            return Remembered(id=same.entry["id"], line=same.line,
                              entry=LogEntry.model_validate(same.entry), existing=True)
        if entry.subject:
            app.subjects.ensure_locked({entry.subject})
        LogStore(app.home).append_locked([entry])
        receipts.record_locked(app.home, entry.session, [entry.id], source="remember",
                               told=True)  # the answer is its receipt
        app.freshness.sync(locked=True)
        with app.index.read() as conn:
            found = entries.get_entry(conn, entry.id)
    assert found is not None
    return Remembered(id=entry.id, line=found.line, entry=LogEntry.model_validate(found.entry))


def _current_twin(app: App, entry: Entry) -> entries.Chain | None:
    """A current entry (not replaced, not hidden) of the same session with the same text, type
    and subject: ``remember`` of it again writes nothing and answers with it."""
    with app.index.read() as conn:
        twin = entries.current_twin(conn, entry.session, entry.type, entry.content,
                                    entry.subject)
        return None if twin is None else entries.get_entry(conn, twin)


def _invalid(field: str, message: str) -> InvalidParamsError:
    return InvalidParamsError(f"Invalid params: {field}: {message}",
                              [{"field": field, "message": message, "type": "value_error"}])
