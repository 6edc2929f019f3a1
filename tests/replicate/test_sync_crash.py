"""kill -9 during a sync (`zettelclaw sync`, the CLI without a sidecar), at every crash point of
replication: the next sync finishes the work; every line is in every log once and in the
remote once."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import orjson
import pytest

from tests.replicate.sync_machines import Machine, bare
from zettelclaw import failpoints
from zettelclaw.replicate import git_sync, layout
from zettelclaw.replicate.settings import repo_path

pytestmark = pytest.mark.slow
ZETTELCLAW = str(Path(sys.executable).parent / "zettelclaw")
POINTS = [*failpoints.REPLICATE_POINTS, "torn-append"]


def cli_sync(machine: Machine, failpoint: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZETTELCLAW_")}
    if failpoint:
        env[failpoints.ENV] = failpoint
    return subprocess.run([ZETTELCLAW, "--home", str(machine.home.root), "--workspace",
                           str(machine.workspace), "--no-sidecar", "sync", "--json"],
                          env=env, capture_output=True, text=True, check=False, timeout=300)


def remote_lines(machine: Machine) -> Counter[str]:
    """How often each id is on the remote, in every machine's files (a fresh fetch)."""
    repo = repo_path(machine.home)
    subprocess.run(["git", "-C", str(repo), "pull", "-q", "--ff-only", "origin", "main"],
                   check=False, capture_output=True)
    counts: Counter[str] = Counter()
    for name in layout.machines(repo):
        for path in layout.segments(repo, name):
            for raw in path.read_bytes().splitlines():
                counts[orjson.loads(raw)["id"]] += 1
    return counts


@pytest.mark.parametrize("point", POINTS)
def test_kill_during_a_sync_loses_and_duplicates_nothing(tmp_path: Path, point: str) -> None:
    remote = bare(tmp_path / "remote.git")
    a, b = Machine(tmp_path, "a"), Machine(tmp_path, "b")
    for m in (a, b):
        git_sync.init(m.home, str(remote))
    written = [e["id"] for e in a.write(200)]
    a.sync()
    written += [e["id"] for e in b.write(100)]
    killed = cli_sync(b, point)
    assert killed.returncode == -9, killed.stderr
    done = cli_sync(b)
    assert done.returncode == 0, done.stderr
    a.sync()
    for m in (a, b):
        assert sorted(m.ids()) == sorted(written), (m.name, point)
    counts = remote_lines(a)
    assert sorted(counts) == sorted(written)
    assert max(counts.values()) == 1
