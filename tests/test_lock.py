"""The data-directory lock (``zettelclaw.lock.exclusive``): an flock on HOME/lock.

Covers: another process holding the lock makes ``exclusive`` raise LockTimeoutError naming the
lock file once the timeout passes, and the lock is taken once that process lets go; two opens in
one process exclude each other too; the lock is released when the body raises; the lock file is
created private; threads of one process take turns.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.timing import scaled
from zettelclaw import lock
from zettelclaw.errors import LockTimeoutError

HOLDER = """
import sys
from pathlib import Path
from zettelclaw import lock

with lock.exclusive(Path(sys.argv[1]), timeout=float(sys.argv[2])):
    print("locked", flush=True)
    sys.stdin.readline()  # hold it until told to let go
print("released", flush=True)
"""


@contextmanager
def held_by_another_process(path: Path) -> Iterator[subprocess.Popen[bytes]]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "sidecar")}
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(path), str(scaled(10))], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None
    assert proc.stdout is not None
    try:
        assert proc.stdout.readline() == b"locked\n"
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stdin.close()
        proc.stdout.close()


def release(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdin is not None
    assert proc.stdout is not None
    proc.stdin.write(b"go\n")
    proc.stdin.flush()
    assert proc.stdout.readline() == b"released\n"


@pytest.mark.slow
def test_lock_held_by_another_process_times_out_then_is_taken(tmp_path: Path) -> None:
    path = tmp_path / "lock"
    with held_by_another_process(path) as holder:
        with pytest.raises(LockTimeoutError) as info, lock.exclusive(path, timeout=0.2):
            pytest.fail("the lock was taken while another process held it")
        assert str(path) in info.value.message
        release(holder)
        entered = False
        with lock.exclusive(path, timeout=scaled(10)):
            entered = True
        assert entered
        assert holder.wait(timeout=scaled(10)) == 0


def test_two_opens_in_one_process_exclude_each_other(tmp_path: Path) -> None:
    path = tmp_path / "lock"
    with lock.exclusive(path), pytest.raises(LockTimeoutError), lock.exclusive(path, timeout=0):
        pytest.fail("the lock was taken twice")


def test_another_thread_waits_for_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "lock"
    errors: list[BaseException] = []

    def other() -> None:
        try:
            with lock.exclusive(path, timeout=0):
                pass
        except LockTimeoutError as exc:
            errors.append(exc)

    with lock.exclusive(path):
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert len(errors) == 1


def test_lock_is_released_when_the_body_raises(tmp_path: Path) -> None:
    path = tmp_path / "lock"
    with pytest.raises(KeyError), lock.exclusive(path):
        raise KeyError("boom")
    with lock.exclusive(path, timeout=0):  # free again at once
        pass


def test_lock_is_released_after_the_body(tmp_path: Path) -> None:
    path = tmp_path / "lock"
    for _ in range(3):
        with lock.exclusive(path, timeout=0):
            pass


def test_lock_file_is_created_private(tmp_path: Path) -> None:
    path = tmp_path / "lock"
    with lock.exclusive(path):
        assert path.exists()
    assert path.stat().st_mode & 0o777 == 0o600


def test_threads_of_one_process_take_turns(tmp_path: Path) -> None:
    """Threads queue on an in-process lock before the flock: never two inside at once, and a
    waiter with time left gets the lock once the holder lets go."""
    path = tmp_path / "lock"
    inside = 0
    most_inside = 0
    turns = 0
    guard = threading.Lock()

    def worker() -> None:
        nonlocal inside, most_inside, turns
        for _ in range(50):
            with lock.exclusive(path, timeout=scaled(10)):
                with guard:
                    inside += 1
                    most_inside = max(most_inside, inside)
                time.sleep(0.0005)  # let another thread try meanwhile
                with guard:
                    inside -= 1
                    turns += 1

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert (most_inside, turns) == (1, 300)
