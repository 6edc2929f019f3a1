"""Sync through git with real git and a bare repository on a path as the remote: two and three
machines (data directories of their own) share one memory; each line once everywhere; the
sync repository holds one file per machine and nothing of a machine's own state; a remote
that is unreachable or corrupt is a clear error with the local memory untouched."""

from __future__ import annotations

import shutil
import threading
from collections import Counter
from pathlib import Path

import pytest

from tests.replicate.sync_machines import Machine, bare
from zettelclaw.errors import SyncError
from zettelclaw.replicate import git_sync, layout
from zettelclaw.replicate.settings import repo_path

pytestmark = pytest.mark.slow


def machines(tmp_path: Path, *names: str) -> tuple[Path, list[Machine]]:
    remote = bare(tmp_path / "remote.git")
    made = [Machine(tmp_path, name) for name in names]
    for machine in made:
        git_sync.init(machine.home, str(remote))
    return remote, made


def test_two_machines_share_one_memory(tmp_path: Path) -> None:
    _remote, (a, b) = machines(tmp_path, "a", "b")
    from_a = a.write(3)
    assert a.sync().pushed == 3
    assert b.sync().pulled == 3
    from_b = b.write(2)
    assert b.sync().pushed == 2
    assert a.sync().pulled == 2
    expected = sorted(e["id"] for e in from_a + from_b)
    assert sorted(a.ids()) == expected
    assert sorted(b.ids()) == expected
    assert a.sync().pushed == 0  # nothing new: nothing pushed back
    clone = repo_path(a.home)
    files = sorted(p.relative_to(clone).as_posix() for p in clone.rglob("*")
                   if p.is_file() and ".git" not in p.parts)
    assert set(files) == {layout.MARKER, *(f"machines/{m}/000001.jsonl"
                                           for m in layout.machines(clone)),
                          *(f"acks/{m}.json" for m in layout.machines(clone))}
    assert len(layout.machines(clone)) == 2  # one file per machine; no index, spool, jobs
    for path in (a.home.root / "replicate").rglob("*"):  # the clone holds the memory too
        assert path.stat().st_mode & 0o077 == 0, path


def test_three_machines_syncing_at_once_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    _, trio_of = machines(tmp_path, "a", "b", "c")
    written: list[str] = []
    errors: list[BaseException] = []

    def work(machine: Machine) -> None:
        try:
            for round_ in range(4):
                written.extend(e["id"] for e in machine.write(25, f"{machine.name} r{round_}"))
                machine.sync()
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(m,)) for m in trio_of]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    for machine in trio_of + trio_of:  # twice round: the last pushes reach everyone
        machine.sync()
    for machine in trio_of:
        counts = Counter(machine.ids())
        assert sorted(counts) == sorted(written)
        assert max(counts.values()) == 1


def test_a_machine_offline_catches_up_with_ten_thousand_entries(tmp_path: Path) -> None:
    _, (a, b, c) = machines(tmp_path, "a", "b", "c")
    c.sync()
    written = []
    for _ in range(5):
        written += [e["id"] for e in a.write(1000)]
        a.sync()
        written += [e["id"] for e in b.write(1000)]
        b.sync()
    before = c.ids()
    report = c.sync()
    assert report.pulled == 10_000
    assert sorted(c.ids()) == sorted(before + written)
    assert len(set(c.ids())) == len(c.ids())


def test_an_unreachable_remote_is_a_clear_error_and_nothing_changes(tmp_path: Path) -> None:
    machine = Machine(tmp_path, "a")
    machine.write(2)
    before = machine.texts()
    with pytest.raises(SyncError, match="cannot reach the remote"):
        git_sync.init(machine.home, str(tmp_path / "nowhere.git"))
    assert not (machine.home.root / "replicate" / "sync.json").exists()
    remote, (a,) = machines(tmp_path / "ok", "a")
    a.write(2)
    a.sync()
    shutil.rmtree(remote)
    before = a.texts()
    with pytest.raises(SyncError, match="cannot reach the remote"):
        a.sync()
    assert a.texts() == before


def test_a_corrupt_remote_is_a_clear_error_and_nothing_changes(tmp_path: Path) -> None:
    remote, (a, b) = machines(tmp_path, "a", "b")
    a.write(3)
    a.sync()
    b.write(1)
    before = b.texts()
    for obj in (remote / "objects").rglob("*"):
        if obj.is_file() and obj.parent.name != "info":
            obj.write_bytes(b"garbage")
    with pytest.raises(SyncError) as raised:
        b.sync()
    assert "git" in raised.value.message
    assert b.texts() == before


def test_a_remote_that_is_not_ours_is_refused(tmp_path: Path) -> None:
    remote = bare(tmp_path / "other.git")
    work = tmp_path / "work"
    import subprocess
    subprocess.run(["git", "clone", "-q", str(remote), str(work)], check=True,
                   capture_output=True)
    (work / "README").write_text("someone else's project\n")
    subprocess.run(["git", "-C", str(work), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(work), "-c", "user.name=x", "-c", "user.email=x@x",
                    "commit", "-qm", "x"], check=True)
    subprocess.run(["git", "-C", str(work), "push", "-q", "origin", "HEAD:main"], check=True,
                   capture_output=True)
    a = Machine(tmp_path, "a")
    git_sync.init(a.home, str(remote))
    with pytest.raises(SyncError, match="not a Zettelclaw sync repository"):
        a.sync()
