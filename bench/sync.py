"""Figures for sync through git (docs/14-sync.md; bench/README.md#sync).

    .venv/bin/python bench/sync.py [--behind 100000] [--samples 20] [--bytes-entries 10000]

1. A new entry reaching another machine: two ``zettelclaw serve`` (two HOMEs) syncing through a
   bare repository in the background (``sync.afterWriteSeconds`` 0.5, ``sync.intervalSeconds``
   2 on both): from ``memory.remember`` on one to ``memory.search`` finding it on the other;
   and the engine alone, in-process: one machine's sync (push) then the other's (pull).
2. Catch-up: a machine ``--behind`` entries behind (generated, bench/generate.py) pulls them:
   lines into its log per second (its index catches up as after any outside append; that is
   the index build's figure).
3. Bytes on the remote per entry, plain and encrypted: ``--bytes-entries`` entries pushed in
   syncs of 50 (a chatty day), the bare repository's size as pushed and after ``git gc``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.generate import generate

from zettelclaw import lock
from zettelclaw.client import Client
from zettelclaw.home import Home
from zettelclaw.log.store import LogStore
from zettelclaw.replicate import git_sync

ZETTELCLAW = str(Path(sys.executable).parent / "zettelclaw")


def bare(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True)
    return path


def machine(root: Path, name: str, remote: Path, *, new_key: bool = False,
            key: str | None = None) -> Home:
    home = Home(root / name)
    home.ensure()
    git_sync.init(home, str(remote), new_key=new_key, key=key)
    return home


def nothing(_ids: list[str]) -> None:
    pass


def lines_of(count: int, root: Path) -> list[bytes]:
    out = root / f"gen-{count}"
    generate(count, out)
    return [raw for raw in (out / "log.jsonl").read_bytes().splitlines() if raw.strip()]


def append(home: Home, lines: list[bytes]) -> None:
    with lock.exclusive(home.lock):
        LogStore(home).append_lines_locked(b"".join(line + b"\n" for line in lines))


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def engine_round_trip(root: Path, samples: int) -> None:
    remote = bare(root / "rt.git")
    a, b = machine(root, "rt-a", remote), machine(root, "rt-b", remote)
    git_sync.sync(a, nothing)
    git_sync.sync(b, nothing)
    times = []
    for n in range(samples):
        append(a, [orjson.dumps({"id": f"rt{n:010d}", "timestamp": "2026-03-01T08:00:00Z",
                                 "type": "fact", "content": f"round trip {n}",
                                 "session": "bench"})])
        started = time.perf_counter()
        git_sync.sync(a, nothing)
        git_sync.sync(b, nothing)
        times.append(time.perf_counter() - started)
    print(f"engine push+pull of one entry: p50 {pct(times, .5) * 1000:.0f} ms, "
          f"p99 {pct(times, .99) * 1000:.0f} ms ({samples} samples)")


def sidecars_latency(root: Path, samples: int) -> None:
    remote = bare(root / "lat.git")
    procs, sockets = [], []
    for name in ("one", "two"):
        home = root / f"lat-{name}"
        home.mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith("ZETTELCLAW_")}
        env.update(HOME=str(home), ZETTELCLAW_CRON_SCHEDULE="off",
                   ZETTELCLAW_SEARCH_SEMANTIC="off")
        sock = Path(tempfile.mkdtemp(prefix="zc-", dir="/tmp")) / "s.sock"
        proc = subprocess.Popen([ZETTELCLAW, "serve", "--socket", str(sock), "--set",
                                 "sync.afterWriteSeconds=0.5", "--set",
                                 "sync.intervalSeconds=2"], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert proc.stdout is not None
        proc.stdout.readline()
        procs.append(proc)
        sockets.append(sock)
        with Client(sock, timeout=60) as client:
            client.call("sync.init", {"remote": str(remote)})
    times = []
    try:
        with Client(sockets[0], timeout=60) as one, Client(sockets[1], timeout=60) as two:
            for n in range(samples):
                word = f"quokka{n}x"
                started = time.perf_counter()
                one.call("memory.remember", {"type": "fact", "content": f"the {word} is fed"})
                while not two.call("memory.search", {"query": word})["results"]:
                    time.sleep(0.02)
                times.append(time.perf_counter() - started)
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
    print(f"remember on one -> found on the other (two sidecars, afterWrite 0.5 s, interval "
          f"2 s): p50 {pct(times, .5):.2f} s, p99 {pct(times, .99):.2f} s ({samples} samples)")


def catch_up(root: Path, behind: int) -> None:
    remote = bare(root / "cu.git")
    a, c = machine(root, "cu-a", remote), machine(root, "cu-c", remote)
    append(a, lines_of(behind, root))
    started = time.perf_counter()
    pushed = git_sync.sync(a, nothing).pushed
    push_s = time.perf_counter() - started
    started = time.perf_counter()
    pulled = git_sync.sync(c, nothing).pulled
    pull_s = time.perf_counter() - started
    print(f"catch-up: {pushed} entries pushed in {push_s:.1f} s; {pulled} pulled into the "
          f"other log in {pull_s:.1f} s ({pulled / pull_s:,.0f} entries/s)")


def size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def remote_bytes(root: Path, entries: int, *, encrypted: bool) -> None:
    name = "enc" if encrypted else "plain"
    remote = bare(root / f"bytes-{name}.git")
    home = machine(root, f"bytes-{name}", remote, new_key=encrypted)
    lines = lines_of(entries, root)
    log_bytes = sum(len(line) + 1 for line in lines)
    for start in range(0, len(lines), 50):
        append(home, lines[start:start + 50])
        git_sync.sync(home, nothing)
    pushed = size(remote)
    subprocess.run(["git", "-C", str(remote), "gc", "-q", "--prune=now"], check=True)
    packed = size(remote)
    print(f"remote bytes per entry, {name}: {pushed / entries:,.0f} as pushed, "
          f"{packed / entries:,.0f} after git gc (the log itself: {log_bytes / entries:,.0f})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--behind", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--bytes-entries", type=int, default=10_000)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="zc-sync-bench-"))
    try:
        engine_round_trip(root, args.samples)
        sidecars_latency(root, args.samples)
        catch_up(root, args.behind)
        for encrypted in (False, True):
            remote_bytes(root, args.bytes_entries, encrypted=encrypted)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
