"""Load: many clients at once, and one client's maximal batch against everyone else's hook.

    .venv/bin/python bench/load.py [--entries 100000] [--clients 50] [--calls 1000]
                                   [--semantic off|auto] [--writers 0] [--write-every 0.1]
                                   [--json]

A real ``zettelclaw serve`` subprocess over a generated log (bench/generate.py). Semantic search
is off by default (the keyword path, comparable with earlier runs); ``--semantic auto`` is the
default install's hybrid search, measured once the background has embedded the whole log (its
progress on stderr). Two runs:

1. ``--clients`` connections, each making ``--calls`` calls one after another, spread over
   ``--procs`` client processes (so that the clients' own Python does not become the
   bottleneck): 40% ``hook.beforePromptBuild``, 30% ``memory.search`` (common words and
   multi-word queries, and filters), 10% each ``memory.get``, ``status``, ``subjects.list``.
   Per method: p50, p99 and max in ms; all calls per second.
2. One client sends the largest batch the protocol allows (64 ``memory.search`` of common
   words), again and again, while another makes ``hook.beforePromptBuild`` calls one after
   another: the hook's p50/p99/max, i.e. how long a client waits behind another's batch.

``--writers N``: during the first run, N other processes append to the log, one entry each
every ``--write-every`` seconds, under the data lock as every writer does (an ``echo >>``, the
CLI, another tool): the catch-ups of outside appends under load.

Targets: the hook's p99 under load at most 10 ms; no client waiting behind another's
batch by more than 100 ms. Not part of the test suite: run it by hand on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH.parent))  # bench/ is a namespace package under the root
from bench import generate  # noqa: E402

from zettelclaw.client import Client  # noqa: E402
from zettelclaw.errors import IndexNotReadyError, ZettelclawError  # noqa: E402

ZETTELCLAW = str(Path(sys.executable).parent / "zettelclaw")
QUERIES = ["the", "project", "meeting notes", "database migration plan", "review the deploy",
           "api", "team decision", "what did we decide about the release"]
MIX = ([("hook.beforePromptBuild", {"sessionKey": "agent:main:main"})] * 4
       + [("memory.search", {"query": q, "maxResults": 10}) for q in QUERIES[:2]]
       + [("memory.search", {"query": QUERIES[3], "maxResults": 10})]
       + [("memory.search", {"type": "task", "status": "open", "maxResults": 10})]
       + [("memory.get", {"path": "MEMORY.md"}), ("status", {}), ("subjects.list", {})])


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)

    def pick(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return {"n": len(ordered), "p50": round(pick(0.5) * 1000, 2),
            "p99": round(pick(0.99) * 1000, 2), "max": round(ordered[-1] * 1000, 2)}


def client_proc(sock: str, clients: int, calls: int, seed: int, out: Any) -> None:
    results: list[tuple[str, float]] = []
    lock = threading.Lock()

    def one(n: int) -> None:
        rng = random.Random(seed * 1000 + n)
        mine = []
        with Client(Path(sock), timeout=60) as client:
            for _ in range(calls):
                method, params = rng.choice(MIX)
                if method == "memory.search" and "query" in params:
                    params = {**params, "query": rng.choice(QUERIES)}
                started = time.perf_counter()
                try:
                    client.call(method, params)
                except ZettelclawError as exc:  # counted apart (-32006: a catch-up past 10 s)
                    method = f"{method} error {exc.code}"
                mine.append((method, time.perf_counter() - started))
        with lock:
            results.extend(mine)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put(results)


def writer_proc(home: str, every: float, seed: int, stop: Any) -> None:
    """Another process appending to the log: one entry every ``every`` s, under the data lock."""
    from zettelclaw import lock

    n = 0
    while not stop.is_set():
        n += 1
        entry = {"id": f"w{seed:02d}{n:09d}", "timestamp": "2026-03-01T12:00:00Z", "type": "fact",
                 "content": f"outside writer {seed} note {n} about the project",
                 "session": f"outside-{seed}"}
        with lock.exclusive(Path(home) / "lock"), open(Path(home) / "log.jsonl", "ab") as log:
            log.write(json.dumps(entry).encode() + b"\n")
            log.flush()
            os.fsync(log.fileno())
        stop.wait(every)


def start(home: Path, sock: Path, workspace: Path, semantic: str) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZETTELCLAW_", "ANTHROPIC"))}
    env["ZETTELCLAW_SEARCH_SEMANTIC"] = semantic
    env["ZETTELCLAW_CRON_SCHEDULE"] = "off"
    proc = subprocess.Popen([ZETTELCLAW, "serve", "--home", str(home), "--socket", str(sock),
                             "--workspace", str(workspace)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    assert b"listening on" in proc.stdout.readline()
    try:
        with Client(sock, timeout=3600) as client:  # the index built before measuring
            while True:
                try:
                    client.call("memory.search", {"query": "warm up"})
                    break
                except IndexNotReadyError:  # a build past the search's wait (a busy host)
                    time.sleep(1)
    except BaseException:
        proc.terminate()
        proc.wait(30)
        raise
    if semantic == "auto":
        wait_embedded(sock)
    return proc


def wait_embedded(sock: Path) -> None:
    """Until the background has embedded every entry (semantic search over all of them)."""
    started = time.monotonic()
    with Client(sock, timeout=60) as client:
        while True:
            state = client.call("status")["search"]["semantic"]
            if state.get("reason"):
                raise SystemExit(f"semantic search is off: {state['reason']}")
            covered, lines = int(state.get("coveredThroughLine") or 0), int(state.get("lines") or 1)
            print(f"\rembedding: line {covered:,} of {lines:,} "
                  f"({time.monotonic() - started:.0f} s)", end="", file=sys.stderr, flush=True)
            if state.get("on") and covered >= lines:
                print(file=sys.stderr)
                return
            time.sleep(2)


def many_clients(sock: Path, clients: int, calls: int, procs: int) -> dict[str, Any]:
    queue: Any = multiprocessing.get_context("fork").Queue()
    per = [clients // procs + (1 if i < clients % procs else 0) for i in range(procs)]
    workers = [multiprocessing.get_context("fork").Process(
        target=client_proc, args=(str(sock), n, calls, i, queue)) for i, n in enumerate(per)]
    started = time.perf_counter()
    for w in workers:
        w.start()
    results = [r for _ in workers for r in queue.get()]
    for w in workers:
        w.join()
    elapsed = time.perf_counter() - started
    by_method: dict[str, list[float]] = {}
    for method, seconds in results:
        by_method.setdefault(method, []).append(seconds)
    return {"clients": clients, "callsEach": calls, "calls": len(results),
            "seconds": round(elapsed, 2), "callsPerSecond": round(len(results) / elapsed, 1),
            "methods": {m: percentiles(s) for m, s in sorted(by_method.items())}}


def hook_behind_batches(sock: Path, hooks: int) -> dict[str, Any]:
    stop = threading.Event()
    batches = [0]

    def batcher() -> None:
        batch = [{"jsonrpc": "2.0", "id": i, "method": "memory.search",
                  "params": {"query": QUERIES[i % len(QUERIES)], "maxResults": 20}}
                 for i in range(64)]
        line = (json.dumps(batch) + "\n").encode()
        import socket
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(str(sock))
            reader = s.makefile("rb")
            while not stop.is_set():
                s.sendall(line)
                reader.readline()
                batches[0] += 1

    thread = threading.Thread(target=batcher)
    thread.start()
    time.sleep(0.5)
    samples = []
    with Client(sock, timeout=60) as client:
        for _ in range(hooks):
            started = time.perf_counter()
            client.call("hook.beforePromptBuild", {"sessionKey": "agent:main:main"})
            samples.append(time.perf_counter() - started)
    stop.set()
    thread.join()
    return {"batches": batches[0], "batchSize": 64, "hook": percentiles(samples)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--procs", type=int, default=5)
    parser.add_argument("--hooks", type=int, default=2000)
    parser.add_argument("--semantic", choices=["off", "auto"], default="off",
                        help="the sidecar's search.semantic: off (default) or auto (hybrid "
                             "search, as installed; measured once every entry is embedded)")
    parser.add_argument("--writers", type=int, default=0,
                        help="other processes appending to the log during the first run")
    parser.add_argument("--write-every", type=float, default=0.1,
                        help="seconds between one writer's appends")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="zc-load-", dir="/tmp"))
    try:
        home, workspace = root / "home", root / "ws"
        generate.generate(args.entries, home)
        os.chmod(home, 0o700)
        workspace.mkdir()
        (workspace / "MEMORY.md").write_text("# Goals\n- keep the load bench honest\n")
        sock = root / "s.sock"
        proc = start(home, sock, workspace, args.semantic)
        try:
            stop = multiprocessing.get_context("fork").Event()
            writers = [multiprocessing.get_context("fork").Process(
                target=writer_proc, args=(str(home), args.write_every, i, stop))
                for i in range(args.writers)]
            for w in writers:
                w.start()
            try:
                load = many_clients(sock, args.clients, args.calls, args.procs)
            finally:
                stop.set()
                for w in writers:
                    w.join()
            behind = hook_behind_batches(sock, args.hooks)
        finally:
            proc.terminate()
            proc.wait(30)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report = {"machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
                         f"{platform.python_version()}", "entries": args.entries,
              "semantic": args.semantic, "writers": args.writers,
              "writeEvery": args.write_every,
              "load": load, "hookBehindBatches": behind}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{args.entries:,} entries, semantic search {args.semantic}; {report['machine']}"
          + (f"; {args.writers} outside writers, an entry each every {args.write_every:g} s"
             if args.writers else ""))
    print(f"{load['clients']} clients x {load['callsEach']} calls: {load['calls']:,} calls in "
          f"{load['seconds']} s, {load['callsPerSecond']} calls/s")
    print(f"{'method':<24} {'n':>6} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for method, p in load["methods"].items():
        print(f"{method:<24} {p['n']:>6} {p['p50']:>8} {p['p99']:>8} {p['max']:>8}")
    h = behind["hook"]
    print(f"hook while another client sends 64-search batches ({behind['batches']} batches): "
          f"p50 {h['p50']} ms, p99 {h['p99']} ms, max {h['max']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
