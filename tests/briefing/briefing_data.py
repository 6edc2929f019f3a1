"""A fixed log and clock for the briefing's tests, with the block each section must give.

``NOW`` is 2026-02-21T08:00:00Z (03:00 in America/Detroit, the zone of these tests). Windows from
there: active since 02-07 08:00Z, decisions since 02-14 08:00Z, stale before 01-22 08:00Z,
references since 02-14 08:00Z. Ids tell the type (d decision, f fact, t task, q question,
h handoff).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from tests.direct import Direct
from zettelclaw.briefing.sections import Sections, compute
from zettelclaw.config import BriefingConfig
from zettelclaw.home import Home

NOW = datetime(2026, 2, 21, 8, 0, tzinfo=UTC).timestamp()
ZONE = "America/Detroit"

SUBJECTS = {
    "auth-migration": {"display": "Auth Migration", "type": "project"},
    "whisper-stt": {"display": "Whisper STT", "type": "system"},
    "zettelclaw": {"display": "Zettelclaw", "type": "project"},
    "billing": {"display": "Billing", "type": "project"},
    "max": {"display": "Max", "type": "person"},
}


def e(id: str, timestamp: str, type: str, content: str, **fields: Any) -> dict[str, Any]:
    value = {"id": id, "timestamp": timestamp, "type": type, "content": content,
             "session": fields.pop("session", "s-1"), **fields}
    if type == "task":
        value.setdefault("status", "open")
    return value


LOG = [
    e("f00000000max", "2025-12-01T15:00:00Z", "fact", "Max prefers async standups",
      subject="max"),
    e("f0000whisper", "2026-01-08T10:00:00Z", "fact", "Whisper runs on the old GPU box",
      subject="whisper-stt"),
    e("f000billing1", "2026-01-15T10:00:00Z", "fact", "Invoices go out on the 1st",
      subject="billing"),
    e("t0000000tls1", "2026-01-20T10:00:00Z", "task", "Renew the TLS certificate",
      subject="billing"),
    e("d0000000sync", "2026-02-01T12:00:00Z", "decision", "Synchronous retries with 5 max",
      detail="simplest thing first", subject="auth-migration"),
    e("d0000000yarn", "2026-02-02T12:00:00Z", "decision", "Use yarn for the monorepo",
      subject="zettelclaw"),
    e("q000000queue", "2026-02-10T12:00:00Z", "question", "Which queue library?",
      subject="auth-migration"),
    e("d00000000go1", "2026-02-12T12:00:00Z", "decision", "Keep the auth service in Go",
      subject="auth-migration"),
    e("d000000queue", "2026-02-15T03:00:00Z", "decision", "Queue-based retries with 3 max",
      detail="sync retries cascaded under load", subject="auth-migration",
      replaces="q000000queue", session="s-2"),
    e("d000000bun01", "2026-02-18T09:00:00Z", "decision", "Bun over yarn — 3-4x faster",
      subject="zettelclaw", replaces="d0000000yarn", session="s-3"),
    e("t0000rotate1", "2026-02-19T09:00:00Z", "task", "Rotate webhook secret", status="done",
      subject="auth-migration", session="s-3"),
    e("f00mention01", "2026-02-19T11:00:00Z", "fact",
      "Asked Max whether whisper-stt could move to the new box", subject="zettelclaw",
      session="s-3"),
    e("t000backfill", "2026-02-20T15:10:00Z", "task",
      "Write backfill script for 47 failed webhook jobs", subject="auth-migration",
      session="s-4"),
    e("q000000burst", "2026-02-20T15:15:00Z", "question",
      "Is the retry strategy sufficient for 10k/min bursts?", subject="auth-migration",
      session="s-4"),
    e("h00000000001", "2026-02-20T15:30:00Z", "handoff",
      "Auth migration — retry logic done, backfill script not started",
      detail="Backoff works in staging.", subject="auth-migration", session="s-4"),
]

SECTIONS = {
    "active": [
        "## Active",
        "- auth-migration — Auth migration — retry logic done, backfill script not started",
        "- zettelclaw — Asked Max whether whisper-stt could move to the new box",
    ],
    "decisions": [
        "## Recent Decisions",
        "- 2026-02-18: Bun over yarn — 3-4x faster [zettelclaw]",
        "- 2026-02-14: Queue-based retries with 3 max [auth-migration]",  # 02-15 03:00Z
    ],
    "pending": [
        "## Pending",
        "- Write backfill script for 47 failed webhook jobs [auth-migration]",
        "- Renew the TLS certificate [billing]",
    ],
    "questions": [
        "## Open Questions",
        "- Is the retry strategy sufficient for 10k/min bursts? [auth-migration]",
    ],
    "stale": [
        "## Stale",
        "- max — last entry 2025-12-01, mentioned again 2026-02-19",
        "- whisper-stt — last entry 2026-01-08, mentioned again 2026-02-19",
    ],
}
CONTRADICTION = ('- auth-migration: "Synchronous retries with 5 max" (2026-02-01, d0000000sync) '
                 'may conflict with "Queue-based retries with 3 max" (2026-02-14, d000000queue)')


def block(*sections: list[str]) -> list[str]:
    """Sections joined as the block has them: a blank line between two."""
    lines: list[str] = []
    for section in sections:
        if lines:
            lines.append("")
        lines += section
    return lines


DETERMINISTIC = block(*SECTIONS.values())


def write(home: Home, write_log: Callable[..., Any], log: list[dict[str, Any]] = LOG) -> None:
    home.subjects.write_bytes(orjson.dumps(SUBJECTS))
    write_log(*log)


def compute_sections(home: Home, workspace: Path, write_log: Callable[..., Any], *,
                     log: list[dict[str, Any]] = LOG, now: float = NOW,
                     config: BriefingConfig | None = None) -> Sections:
    """The sections of ``log`` (written to the data directory first) as of ``now``."""
    write(home, write_log, log)
    memory = Direct.open(home, workspace)
    try:
        memory.sync()
        displays = {slug: s.display for slug, s in memory.subjects.load().items()}
        with memory.index.read() as conn:
            return compute(conn, now, config or BriefingConfig(), displays)
    finally:
        memory.close()
