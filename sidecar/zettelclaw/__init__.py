"""Zettelclaw: long-term memory for AI agents, served by a sidecar over JSON-RPC.

The rooms of the package:

- ``log``       the append-only event log, the entry schema, replacement resolution
- ``subjects``  the subject registry (subjects.json) and subject renames
- ``search``    the SQLite index derived from the log, and queries over it
- ``recall``    what is injected before an agent turn (the last handoff), and who may see it
- ``protocol``  JSON-RPC 2.0 framing, errors, params and dispatch; no I/O
- ``server``    the trio server: the Unix socket, connections, method handlers
- ``cli``       the ``zettelclaw`` command
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("zettelclaw")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"
