"""``zettelclaw serve`` as a process: its ready line, its signals, and the socket path's safety.

Readiness is the ready line on stdout, read as soon as it is written; nothing here sleeps.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import pytest

from tests.timing import scaled
from zettelclaw.client import Client

pytestmark = pytest.mark.slow  # starts zettelclaw serve processes

ZETTELCLAW = Path(sys.executable).with_name("zettelclaw")
TIMEOUT = scaled(60)  # a guard against a hung process, never a timing check


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ZETTELCLAW_", "OPENCLAW_"))}
    env["ZETTELCLAW_SEARCH_SEMANTIC"] = "off"  # no embedding model in these sidecars
    return env


class Serve:
    """One ``zettelclaw serve`` process."""

    def __init__(self, home: Path, sock: Path, workspace: Path) -> None:
        self.socket = sock
        self.proc = subprocess.Popen(
            [os.fspath(ZETTELCLAW), "serve", "--home", os.fspath(home), "--socket",
             os.fspath(sock), "--workspace", os.fspath(workspace)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
        self.out = ""
        self.err = ""

    def ready_line(self) -> str:
        """The first line on stdout (empty if the process ended without one)."""
        assert self.proc.stdout is not None
        readable, _, _ = select.select([self.proc.stdout], [], [], TIMEOUT)
        assert readable, "no ready line and no exit"
        return self.proc.stdout.readline()

    def finish(self) -> int:
        """Wait for the process to end; keep the rest of its output."""
        out, err = self.proc.communicate(timeout=TIMEOUT)
        self.out += out
        self.err += err
        return self.proc.returncode

    def stop(self, signum: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signum)
        return self.finish()


class Spawner(Protocol):
    def __call__(self, home: str = "home", sock: Path | None = None) -> Serve: ...


@pytest.fixture
def spawn(tmp_path: Path, short_dir: Path) -> Iterator[Spawner]:
    """Start serve processes (``spawn()``); any still running at the end are killed."""
    started: list[Serve] = []

    class Spawn(Serve):
        def __init__(self, home: str = "home", sock: Path | None = None) -> None:
            super().__init__(tmp_path / home, sock or short_dir / "s.sock",
                             tmp_path / "workspace")
            started.append(self)

    yield Spawn
    for server in started:
        if server.proc.poll() is None:
            server.proc.kill()
        server.finish()


def status(sock: Path) -> dict[str, object]:
    with Client(sock, timeout=TIMEOUT) as client:
        result: dict[str, object] = client.call("status")
    return result


def is_socket(path: Path) -> bool:
    return stat.S_ISSOCK(os.lstat(path).st_mode)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_one_ready_line_then_a_clean_exit_on_signal(spawn: Spawner, short_dir: Path,
                                                    signum: int) -> None:
    server = spawn()
    line = server.ready_line()
    assert f"listening on {short_dir / 's.sock'} " in line
    assert f"pid {server.proc.pid}" in line
    assert is_socket(server.socket)
    assert status(server.socket)["pid"] == server.proc.pid  # ready means it answers
    assert server.stop(signum) == 0
    assert server.out == ""  # exactly one line on stdout: the ready line
    assert "stopped" in server.err
    assert "Traceback" not in server.err
    assert not os.path.lexists(server.socket)


def test_a_second_serve_on_the_same_home_exits_4_naming_the_first(spawn: Spawner,
                                                                   short_dir: Path) -> None:
    first = spawn()
    first.ready_line()
    second = spawn(sock=short_dir / "second.sock")
    assert second.finish() == 4
    assert f"pid {first.proc.pid}" in second.err
    assert second.out == ""
    assert not os.path.lexists(short_dir / "second.sock")
    assert status(first.socket)["pid"] == first.proc.pid  # the first serves on, undisturbed


def test_a_second_serve_on_a_live_socket_exits_4_and_leaves_it(spawn: Spawner) -> None:
    first = spawn()
    first.ready_line()
    second = spawn(home="other-home")  # another data directory, the same socket path
    assert second.finish() == 4
    assert "already listening" in second.err
    assert status(first.socket)["pid"] == first.proc.pid


def test_a_socket_left_by_sigkill_is_replaced_by_the_next_serve(spawn: Spawner) -> None:
    killed = spawn()
    killed.ready_line()
    assert killed.stop(signal.SIGKILL) == -signal.SIGKILL
    assert is_socket(killed.socket)  # stale: nobody answers on it
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with probe, pytest.raises(ConnectionRefusedError):
        probe.connect(os.fspath(killed.socket))

    successor = spawn()
    assert "listening on" in successor.ready_line()
    assert status(successor.socket)["pid"] == successor.proc.pid


def test_a_regular_file_at_the_socket_path_is_never_deleted(spawn: Spawner,
                                                            short_dir: Path) -> None:
    path = short_dir / "s.sock"
    path.write_text("not a socket")
    server = spawn()
    assert server.finish() == 5
    assert "not a socket" in server.err
    assert server.out == ""
    assert path.read_text() == "not a socket"


def test_a_socket_path_over_107_bytes_exits_5_saying_why(spawn: Spawner,
                                                        short_dir: Path) -> None:
    server = spawn(sock=short_dir / ("s" * 110))
    assert server.finish() == 5
    assert "Unix sockets allow 107" in server.err
    assert "--socket" in server.err
    assert "Traceback" not in server.err
