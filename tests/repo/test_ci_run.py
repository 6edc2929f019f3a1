""".ci/run runs README.md's two commands in the README's order: scripts/serve until it is ready
(on a new HOME), stopped with SIGTERM, then scripts/test (CI once ran only scripts/test, so
`scripts/serve` then `scripts/test` on a fresh clone, what a newcomer does, never ran).

The two scripts are stand-ins that record what they were run with; .ci/run is the real one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.timing import scaled

pytestmark = pytest.mark.slow  # bash processes, and a stand-in sidecar it waits for

REPO = Path(__file__).resolve().parents[2]

SERVE = """#!/usr/bin/env bash
echo "serve HOME=$HOME" >>"$RECORD"
[ -n "${SERVE_FAILS:-}" ] && { echo "zettelclaw: the install into .venv failed"; exit 1; }
trap 'echo "serve stopped by TERM" >>"$RECORD"; exit 0' TERM
echo "zettelclaw 0.1.0: listening on $HOME/sock (home ..., pid $$)"
while :; do sleep 0.05; done
"""

TEST = """#!/usr/bin/env bash
echo "test $*" >>"$RECORD"
"""


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    (tmp_path / ".ci").mkdir()
    shutil.copy(REPO / ".ci" / "run", tmp_path / ".ci" / "run")
    (tmp_path / "scripts").mkdir()
    for name, text in (("serve", SERVE), ("test", TEST)):
        (tmp_path / "scripts" / name).write_text(text)
        (tmp_path / "scripts" / name).chmod(0o755)
    return tmp_path


def ci_run(clone: Path, *args: str, **env: str) -> tuple[subprocess.CompletedProcess[str],
                                                         list[str]]:
    record, tmp = clone / "record", clone / "tmp"  # its work directory in the test's own
    tmp.mkdir(exist_ok=True)                        # (another job once removed one in /tmp)
    done = subprocess.run([str(clone / ".ci" / "run"), *args], capture_output=True, text=True,
                          timeout=scaled(120), check=False,
                          env={**os.environ, "RECORD": str(record), "TMPDIR": str(tmp), **env})
    return done, record.read_text().splitlines() if record.exists() else []


def test_serve_until_ready_then_stopped_then_test(clone: Path) -> None:
    done, record = ci_run(clone, "--fast")
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line.split("=")[0] for line in record] == [
        "serve HOME", "serve stopped by TERM", "test --fast"]
    home = record[0].removeprefix("serve HOME=")
    assert home != os.environ.get("HOME")  # a new, empty HOME
    assert not Path(home).exists()  # removed after
    assert "listening on" in done.stdout


def test_a_serve_that_fails_fails_the_run_before_the_tests(clone: Path) -> None:
    done, record = ci_run(clone, SERVE_FAILS="1")
    assert done.returncode == 1, done.stdout + done.stderr
    assert record, done.stdout + done.stderr
    assert record[-1].startswith("serve HOME=")  # scripts/test never ran
    assert "the install into .venv failed" in done.stdout
    assert "scripts/serve exited 1 before it was ready" in done.stderr
