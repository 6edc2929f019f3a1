"""Zettelclaw: long-term memory for AI agents, served by a sidecar over JSON-RPC.

The rooms of the package (docs/02-architecture.md draws them as layers, a call going down):

- ``server``      the trio server: the Unix socket, connections, the peer's uid, limits,
                  supervision of the background tasks
- ``protocol``    JSON-RPC 2.0 framing, errors, params and result models, dispatch; no I/O
- ``methods``     one handler per method, by the protocol's namespaces
- ``agents``      one memory per OpenClaw agent: the roster, the pool of open memories
- ``app``         one memory's objects, wired once (``serve`` starts the server with them)
- ``log``         the append-only event log: the entry schema, appends, replacement resolution
- ``subjects``    the subject registry (subjects.json) and subject renames
- ``extraction``  finished conversations become entries, exactly once: intake, spool, worker
- ``recall``      the handoff injected before an agent turn, and who may see it
- ``briefing``    the generated block of the workspace's MEMORY.md, and its schedule
- ``search``      keyword, semantic and hybrid search; the embedding models
- ``index``       what is derived from the log and rebuilt from it: SQLite, the term index,
                  vectors; the only place that holds SQL
- ``workspace``   the agent's workspace: MEMORY.md and memory/*.md, read and written safely
- ``llm``         the model routes shared by extraction and the briefing: the Anthropic API or
                  the host's model (``llm.complete``)
- ``cli``         the ``zettelclaw`` command
- ``openclaw``    what ``zettelclaw init`` does to an OpenClaw installation
- the foundation: ``files``, ``lock``, ``home``, ``errors``, ``failpoints``, ``config``,
  ``state``, ``safe_open``
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("zettelclaw")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"
