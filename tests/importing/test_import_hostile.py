"""The import under hostile hands, at full size, as processes (marked ``hostile``: seconds each;
in the full run and CI): files that are not files, exports that are not exports. Every process
runs under a timeout and an address-space limit, so a regression fails instead of hanging the
suite or exhausting the machine."""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import subprocess
import zipfile
from pathlib import Path

import pytest

from tests.cli.test_cli import TIMEOUT, Site, clean_env

pytestmark = [pytest.mark.hostile, pytest.mark.slow]

MEMORY_LIMIT = 2 << 30  # an import reading /dev/zero or a sparse file whole passes this


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def import_cli(site: Site, *args: str,
               timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(site.argv("import", *args, "--json"), capture_output=True, text=True,
                          env=clean_env(), timeout=timeout, preexec_fn=_limited, check=False)


@pytest.fixture
def site(tmp_path: Path, short_dir: Path) -> Site:
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "2026-01-05.md").write_text("- the car is a blue Volvo\n")
    return Site(tmp_path / "home", workspace, short_dir / "s.sock")


def test_a_fifo_in_memory_is_a_problem_and_sigterm_still_stops_the_sidecar(site: Site) -> None:
    """At 00f0efb the plan opened the FIFO and waited forever for a writer, in a worker thread
    the sidecar then waited for at SIGTERM: the sidecar could not be stopped."""
    os.mkfifo(site.workspace / "memory" / "2026-01-06.md")
    proc = subprocess.Popen(site.argv("serve", "--set", "cron.schedule=off"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=clean_env())
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], TIMEOUT)
        assert ready
        assert "listening on" in proc.stdout.readline()
        done = import_cli(site, "memory-core", os.fspath(site.workspace))
        assert done.returncode == 0, done.stderr
        plan = json.loads(done.stdout)
        assert plan["notes"] == 1
        assert [p["origin"] for p in plan["problems"]] == ["memory/2026-01-06.md"]
        assert "FIFO" in plan["problems"][0]["message"]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=TIMEOUT) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def test_a_note_linked_to_dev_zero_is_a_problem_not_a_read_without_end(site: Site) -> None:
    """At 00f0efb the size check saw 0 bytes, then ``read_bytes()`` read /dev/zero until the
    memory ran out (119 to 3,946 MiB in 30 s)."""
    (site.workspace / "memory" / "2026-01-06.md").symlink_to("/dev/zero")
    done = import_cli(site, "memory-core", os.fspath(site.workspace), "--no-sidecar")
    assert done.returncode == 0, done.stderr[-2000:]
    plan = json.loads(done.stdout)
    assert plan["notes"] == 1
    assert [p["origin"] for p in plan["problems"]] == ["memory/2026-01-06.md"]
    assert "a device" in plan["problems"][0]["message"]


def test_a_zip_of_white_space_is_refused_quickly(site: Site, tmp_path: Path) -> None:
    """At 00f0efb a 2 MB zip of white space (2 GB unpacked) got no plan in 600 s: the scanner
    stepped over white space a byte at a time in Python, uncancellable."""
    export = tmp_path / "export.zip"
    with zipfile.ZipFile(export, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive, \
            archive.open("conversations.json", "w", force_zip64=True) as member:
        member.write(b"[")
        block = b" " * (1 << 20)
        for _ in range(2048):
            member.write(block)
        member.write(b"]")
    assert export.stat().st_size < 4 << 20
    done = import_cli(site, "chatgpt", os.fspath(export), "--no-sidecar")
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr[-2000:])
    assert "export.zip" in done.stderr


def test_a_sparse_gigabyte_export_costs_neither_memory_nor_minutes(site: Site,
                                                                    tmp_path: Path) -> None:
    """At 00f0efb a 1 GiB sparse "export" (a list opened, then zero bytes) took 84.6 s and
    4,160 MiB: a scalar without end was kept whole while the buffer doubled."""
    export = tmp_path / "conversations.json"
    with export.open("wb") as out:
        out.write(b'[{"mapping": {}, "id": "x", "current_node": null, "create_time": 1}, ')
        out.truncate(1 << 30)
    done = import_cli(site, "chatgpt", os.fspath(export), "--no-sidecar")
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr[-2000:])
    assert "conversations.json" in done.stderr
