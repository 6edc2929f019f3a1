"""The method table, by the protocol's namespaces: one module per section of protocol.md.

``hooks`` (``hook.*``), ``memory`` (``memory.*``), ``subjects`` (``subjects.*``), ``jobs``
(``jobs.*``), ``briefing`` (``briefing.*``), ``admin`` (``status``, ``index.rebuild``) and
``host`` (``host.offer``), ``agents`` (``agents.*``), ``vault`` (``vault.*``), ``artifacts``
(``artifacts.list``), ``importing`` (``import.*``). Each module
registers its methods (``methods(agents)``, each handler a module-level function bound to the
pool with ``functools.partial``) and holds their handlers: a handler picks the memory of the
agent the call names (``agents.lease``), turns params into domain arguments, runs the blocking parts
(files, SQLite) in a worker thread, and returns a result model of ``protocol/results/``
(``protocol/contract.py`` names which; tests/protocol/test_protocol_schema.py checks every handler's
annotation against it). So one slow search never holds up the hook of another connection;
``hook.beforePromptBuild`` stays on the event loop: it answers from a cached string after one
``stat`` of the log.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from zettelclaw.agents.pool import Agents
from zettelclaw.methods import (
    admin,
    artifacts,
    briefing,
    forget,
    hooks,
    host,
    importing,
    jobs,
    memory,
    receipts,
    remember,
    subjects,
    sync,
    vault,
)
from zettelclaw.methods import agents as agents_methods
from zettelclaw.protocol.dispatcher import Method

ServerInfo = Callable[[], dict[str, Any]]


def build_methods(agents: Agents, server_info: ServerInfo) -> dict[str, Method]:
    """The whole table; ``server_info`` is the ``server`` object of ``status``."""
    return {
        **hooks.methods(agents),
        **memory.methods(agents),
        **forget.methods(agents),
        **remember.methods(agents),
        **receipts.methods(agents),
        **subjects.methods(agents),
        **jobs.methods(agents),
        **briefing.methods(agents),
        **admin.methods(agents, server_info),
        **host.methods(agents),
        **agents_methods.methods(agents),
        **vault.methods(agents),
        **artifacts.methods(agents),
        **importing.methods(agents),
        **sync.methods(agents),
    }
