"""Output for a person, one module per job. ``--json`` output bypasses this package entirely.
"""

from __future__ import annotations

from zettelclaw.cli.render.changes import (
    briefing_run,
    forgot,
    receipts,
    trace,
    vault_build,
    vault_sync,
)
from zettelclaw.cli.render.entries import (
    DETAIL_LABEL,
    entries,
    entry_block,
    got,
    result_block,
    subjects,
    wrap,
)
from zettelclaw.cli.render.status import (
    agents,
    briefing,
    budget_line,
    extraction,
    host_embeddings,
    jobs,
    outcomes,
    status,
)

__all__ = [
    "DETAIL_LABEL",
    "agents",
    "briefing",
    "briefing_run",
    "budget_line",
    "entries",
    "entry_block",
    "extraction",
    "forgot",
    "got",
    "host_embeddings",
    "jobs",
    "outcomes",
    "receipts",
    "result_block",
    "status",
    "subjects",
    "trace",
    "vault_build",
    "vault_sync",
    "wrap",
]
