"""Two machines replacing the same entry while apart: both corrections stay in every log;
search shows the later one on both machines, whichever order each log has them in; the
briefing's Contradictions section names the fork until the shown correction is replaced."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import entry
from tests.direct import open_pool
from tests.replicate.sync_machines import Machine, bare
from zettelclaw.methods import build_methods
from zettelclaw.protocol.dispatcher import Dispatcher
from zettelclaw.replicate import git_sync

pytestmark = pytest.mark.slow


async def call(machine: Machine, method: str, params: dict[str, Any]) -> Any:
    agents = open_pool(machine.home, machine.workspace)
    try:
        return await Dispatcher(build_methods(agents, dict)).call(method, params)
    finally:
        agents.close_all()


async def shown(machine: Machine) -> list[str]:
    found = await call(machine, "memory.search", {"query": "ferry"})
    return [r["id"] for r in found["results"] if r["source"] == "log"]


async def contradictions(machine: Machine) -> str:
    block = await call(machine, "briefing.generate", {"dryRun": True,
                                                      "workspaceDir": str(machine.workspace)})
    text: str = block["block"]
    return text.split("## Contradictions", 1)[1] if "## Contradictions" in text else ""


async def test_concurrent_replaces_of_one_entry(tmp_path: Path) -> None:
    remote = bare(tmp_path / "remote.git")
    a, b = Machine(tmp_path, "a"), Machine(tmp_path, "b")
    for m in (a, b):
        git_sync.init(m.home, str(remote))
    original = entry(content="the ferry leaves at 07:40", timestamp="2026-03-01T08:00:00Z")
    a.append(original)
    a.sync()
    b.sync()
    # apart: a corrects it first, b an hour later
    from_a = entry(content="the ferry leaves at 07:50", replaces=original["id"],
                   timestamp="2026-03-02T08:00:00Z")
    from_b = entry(content="the ferry leaves at 08:10", replaces=original["id"],
                   timestamp="2026-03-02T09:00:00Z")
    a.append(from_a)
    b.append(from_b)
    b.sync()
    a.sync()
    b.sync()
    for m in (a, b):
        assert {original["id"], from_a["id"], from_b["id"]} <= set(m.ids())  # both stay
        assert await shown(m) == [from_b["id"]], m.name
        assert from_b["id"] in await contradictions(m), m.name
        assert from_a["id"] in await contradictions(m), m.name
    # a's log has b's correction after its own; b's the other way round: the same is shown
    assert a.ids().index(from_a["id"]) < a.ids().index(from_b["id"])
    assert b.ids().index(from_b["id"]) < b.ids().index(from_a["id"])

    settled = entry(content="the ferry leaves at 08:00", replaces=from_b["id"],
                    timestamp="2026-03-03T08:00:00Z")
    a.append(settled)
    a.sync()
    b.sync()
    for m in (a, b):
        assert await shown(m) == [settled["id"]]
        assert from_a["id"] not in await contradictions(m)
