"""A sidecar killed with SIGKILL (or by the OOM killer) runs no clean-up: the next one, started
in its place (by the OpenClaw plugin, or a person), says in `status` that the one before died."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.cli.test_cli import clean_env

pytestmark = pytest.mark.slow  # `zettelclaw serve` processes

ZETTELCLAW = Path(sys.executable).with_name("zettelclaw")


def test_a_sidecar_started_after_one_was_killed_says_so_in_status(
        tmp_path: Path, short_dir: Path) -> None:
    home, socket = tmp_path / "home", short_dir / "s.sock"
    (tmp_path / "ws").mkdir()
    env = clean_env()
    serve = [os.fspath(ZETTELCLAW), "serve", "--home", os.fspath(home), "--workspace",
             os.fspath(tmp_path / "ws"), "--socket", os.fspath(socket)]

    def start() -> subprocess.Popen[str]:
        proc = subprocess.Popen(serve, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True)
        assert proc.stdout is not None
        assert "listening on" in proc.stdout.readline()
        return proc

    def previous_exit() -> str | None:
        done = subprocess.run([os.fspath(ZETTELCLAW), "status", "--json", "--socket",
                               os.fspath(socket), "--home", os.fspath(home)], env=env,
                              capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0, done.stderr
        said: str | None = orjson.loads(done.stdout)["server"].get("previousExit")
        return said

    def stop(proc: subprocess.Popen[str], how: signal.Signals) -> int:
        proc.send_signal(how)
        code = proc.wait(timeout=60)
        assert proc.stdout is not None
        proc.stdout.close()
        return code

    killed = start()
    stop(killed, signal.SIGKILL)
    second = start()
    try:
        said = previous_exit()
        assert said is not None
        assert f"(pid {killed.pid}) ended without stopping" in said
    finally:
        assert stop(second, signal.SIGTERM) == 0
    third = start()  # after a clean stop: nothing to say
    try:
        assert previous_exit() is None
    finally:
        assert stop(third, signal.SIGTERM) == 0
