"""agents/briefings.py: the schedule briefs every memory into its own workspace's MEMORY.md,
skips a memory with no workspace to write to, and records its next run in each memory."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import orjson

from tests.conftest import entry
from tests.direct import open_pool
from zettelclaw.agents.briefings import AgentBriefings
from zettelclaw.briefing import record
from zettelclaw.config import load_config
from zettelclaw.home import Home
from zettelclaw.log.schema import now_timestamp


def fill(root: Path, *items: dict[str, object]) -> None:
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    (root / "log.jsonl").write_bytes(b"".join(orjson.dumps(i) + b"\n" for i in items))
    (root / "log.jsonl").chmod(0o600)


async def test_each_memory_is_briefed_into_its_own_workspace(home: Home, workspace: Path,
                                                              tmp_path: Path) -> None:
    now = now_timestamp()
    fill(home.root, entry("task", "water the garden", timestamp=now, subject="garden"))
    fill(home.root / "agents" / "work", entry("task", "migrate the ledger", timestamp=now,
                                              subject="ledger"))
    fill(home.root / "agents" / "nowhere", entry("task", "lost", timestamp=now))
    settings = load_config(home, env={}, overrides=["agents.share=phone:main"])
    pool = open_pool(home, workspace, settings=settings)
    work_ws = tmp_path / "ws-work"
    work_ws.mkdir()
    pool.roster.register({"work": work_ws, "nowhere": tmp_path / "missing"})
    (home.root / "agents" / "phone").mkdir()  # from before it shared main's memory
    briefings = AgentBriefings(pool)
    assert briefings.memories() == ["main", "nowhere", "work"]
    result = await briefings.generate(trigger="schedule", wait=10.0)
    assert result.memories == 2
    main_md, work_md = (workspace / "MEMORY.md").read_text(), (work_ws / "MEMORY.md").read_text()
    assert "water the garden" in main_md
    assert "ledger" not in main_md
    assert "migrate the ledger" in work_md
    assert "garden" not in work_md
    assert not (tmp_path / "missing").exists(), "no MEMORY.md in a guessed place"
    when = datetime(2030, 1, 1, 3, tzinfo=UTC)
    briefings.record_next(when)
    for root in (home, Home(home.root / "agents" / "work")):
        assert record.load(root).next_run == briefings.stamp(when.timestamp())
    pool.close_all()
