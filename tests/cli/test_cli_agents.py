"""``--agent`` on the command line, and ``zettelclaw agents``: in both modes (a sidecar answers,
or the files are read directly), as a user types them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from tests.cli.test_cli import Pair, served_pair, short_sockets  # noqa: F401  (the fixture)
from tests.conftest import entry

pytestmark = pytest.mark.slow  # each test runs the zettelclaw command, a process, against a sidecar

WORK = [entry("fact", "the ledger database is CockroachDB", id="w00000000001",
              subject="ledger"),
        entry("task", "migrate the ledger", id="w00000000002", subject="ledger")]


@pytest.fixture(scope="module")
def agents(tmp_path_factory: pytest.TempPathFactory,
           short_sockets: Path) -> Iterator[Pair]:  # noqa: F811
    for pair in served_pair(tmp_path_factory.mktemp("cli"), short_sockets, "agents"):
        for site in (pair.files, pair.served):
            work = site.home / "agents" / "work"
            work.mkdir(mode=0o700, parents=True)
            (work / "log.jsonl").write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in WORK))
            (work / "log.jsonl").chmod(0o600)
        yield pair


def test_agent_selects_the_memory_of_every_read(agents: Pair) -> None:
    found = agents.same("search", "ledger", "--agent", "work", "--json")
    assert [r["id"] for r in found.json()["results"]] == ["w00000000002", "w00000000001"]
    agents.same("search", "CockroachDB", "--json", rc=1)  # main's memory has no such entry
    subjects = agents.same("subjects", "list", "--agent", "work", "--json")
    assert [s["slug"] for s in subjects.json()["subjects"]] == ["ledger"]
    got = agents.same("get", "w00000000001", "--agent", "work", "--json")
    assert got.json()["entry"]["content"] == WORK[0]["content"]
    agents.same("get", "w00000000001", rc=3)
    for result in agents.run("status", "--agent", "work", "--json"):
        assert result.json()["agent"] == "work"
        assert result.json()["entries"]["total"] == 2


def test_agents_lists_each_agent_with_its_counts(agents: Pair) -> None:
    agents.run("status", "--agent", "work")  # indexes work's memory in both
    for result in agents.run("agents", "--json"):
        assert result.rc == 0, result
        rows = {row["agentId"]: row for row in result.json()["agents"]}
        assert set(rows) == {"main", "work"}
        assert rows["work"]["entries"] == 2
        assert rows["work"]["memory"] == "work"
        assert rows["work"]["home"].endswith("/agents/work")
    text, _ = agents.run("agents")
    assert text.rc == 0
    assert text.out.splitlines()[0].split()[:3] == ["AGENT", "MEMORY", "ENTRIES"]
    assert any(line.split()[:3] == ["work", "work", "2"] for line in text.out.splitlines())
    status, _ = agents.run("status")
    assert "work (2 entries)" in status.out


def test_an_unknown_agent_exits_3_and_a_malformed_one_2(agents: Pair) -> None:
    for result in agents.run("search", "x", "--agent", "nobody"):
        assert result.rc == 3, result
        assert "no agent 'nobody'" in result.err
        assert "known: main, work" in result.err
    for result in agents.run("status", "--agent", "../work"):
        assert result.rc == 2, result
        assert "not an agent id" in result.err


def test_serve_and_init_refuse_agent_they_act_for_every_agent(agents: Pair) -> None:
    for command in ("serve", "init"):
        result = agents.files.run(command, "--agent", "work")
        assert result.rc == 2, result
        assert "acts for every agent" in result.err
