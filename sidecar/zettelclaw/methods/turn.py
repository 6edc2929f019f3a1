"""What ``hook.beforePromptBuild`` injects: the handoff, then the write receipt's line (once),
recorded in the injection trace. On the event loop: strings made ahead of time, one small
unsynced append for the trace; marking the receipt told is written after the answer."""

from __future__ import annotations

import logging
from typing import Any

import trio

from zettelclaw.app import App
from zettelclaw.protocol.params import BeforePromptBuildParams
from zettelclaw.recall import receipts

logger = logging.getLogger(__name__)


def prepend(app: App, params: BeforePromptBuildParams) -> str | None:
    audience = params.audience()
    handoff = app.handoff.context(audience)  # None unless the owner's private main session
    items: list[dict[str, Any]] = []
    parts: list[str] = []
    if handoff is not None:
        parts.append(handoff)
        items.append({"kind": "handoff", "id": app.handoff.entry_id, "chars": len(handoff)})
    taken = app.receipts.take(audience) if app.receipts is not None else None
    if taken is not None:
        line, keys, ids = taken
        parts.append(line)
        items.append({"kind": "receipt", "ids": ids, "chars": len(line)})
        trio.lowlevel.spawn_system_task(_told, app, keys)
    if not parts:
        return None
    if app.trace is not None:
        app.trace.record(params.session_key, params.session_id, items,
                         "the owner's private main session")
    return "\n\n".join(parts)


async def _told(app: App, keys: list[str]) -> None:
    try:
        await trio.to_thread.run_sync(receipts.mark_told, app.home, keys)
    except Exception:  # a receipt shown once more is better than a sidecar stopped
        logger.exception("the receipt could not be marked as told")
