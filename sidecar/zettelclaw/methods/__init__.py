"""The method table, by the protocol's namespaces: one module per section of protocol.md.

``hooks`` (``hook.*``), ``memory`` (``memory.*``), ``subjects`` (``subjects.*``), ``jobs``
(``jobs.*``), ``briefing`` (``briefing.*``), ``admin`` (``status``, ``index.rebuild``) and
``host`` (``host.offer``). Each module registers its methods (``methods(app)``) and holds their
handlers: a handler turns params into domain arguments, runs the blocking parts (files, SQLite)
in a worker thread, and returns a result model of ``protocol/results.py`` (or a plain dict
where the result is not modelled yet). So one slow search never holds up the hook of another
connection; ``hook.beforePromptBuild`` stays on the event loop: it answers from a cached string
after one ``stat`` of the log.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from zettelclaw.app import App
from zettelclaw.methods import admin, briefing, hooks, host, jobs, memory, subjects
from zettelclaw.protocol.dispatcher import Method

ServerInfo = Callable[[], dict[str, Any]]


def build_methods(app: App, server_info: ServerInfo) -> dict[str, Method]:
    """The whole table; ``server_info`` is the ``server`` object of ``status``."""
    return {
        **hooks.methods(app),
        **memory.methods(app),
        **subjects.methods(app),
        **jobs.methods(app),
        **briefing.methods(app),
        **admin.methods(app, server_info),
        **host.methods(app),
    }
