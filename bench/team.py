"""A team memory through Postgres (docs/15-team.md): how long a new entry takes to reach another
machine, and how fast a machine catches up from far behind.

Starts its own Postgres 15 (tests/pg_server.py, fsync on) and two data directories, each with the
sidecar's team task (replicate/team_task.py) running in this process, as two sidecars would:

- latency: an entry appended to A's log at a random moment, timed until it is in B's log
  (looked at after each of B's rounds), ``--samples`` times, one at a time; A's task sees its
  log move within ``TICK``, so about half of it is the mean wait;
- catch-up: ``--behind`` entries written on A and published, then a new machine C's first
  rounds, timed (entries/s taken); and A's publish rate.

    .venv/bin/python bench/team.py --samples 200 --behind 100000
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import orjson
import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.pg_server import PgServer
from zettelclaw import lock
from zettelclaw.home import Home
from zettelclaw.log.schema import new_id, now_timestamp
from zettelclaw.log.store import LogStore
from zettelclaw.replicate import pg_schema, pg_store, team
from zettelclaw.replicate.team_task import TICK, TeamTask


def _line(content: str) -> tuple[str, bytes]:
    entry_id = new_id()
    return entry_id, orjson.dumps({"id": entry_id, "timestamp": now_timestamp(), "type": "fact",
                                   "content": content, "session": "bench"}) + b"\n"


def _append(home: Home, lines: list[bytes]) -> None:
    with lock.exclusive(home.lock):
        LogStore(home).append_lines_locked(b"".join(lines))


def _machine(root: Path, name: str, dsn: str) -> Home:
    home = Home(root / name)
    home.ensure()
    team.save_dsn(home, dsn)
    return home


def _no_purge(_ids: list[str]) -> None:
    raise AssertionError("no purge in this benchmark")


async def latency(a: Home, b: Home, samples: int) -> list[float]:
    took = []
    async with trio.open_nursery() as nursery:
        tasks = [TeamTask(home, _no_purge) for home in (a, b)]
        for task in tasks:
            await nursery.start(task.run)
        for n in range(samples + 5):
            # at a random moment, as writes come (not just after the task's last look)
            await trio.sleep(random.uniform(0, 2 * TICK))
            entry_id, data = _line(f"latency sample {n}")
            needle = entry_id.encode()
            start = time.perf_counter()
            _append(a, [data])
            while True:
                news = tasks[1].news  # before the look: a round ending after it is seen
                if needle in b.log.read_bytes()[-4096:]:
                    break
                await news.wait()
            if n >= 5:  # the first few warm the connections up
                took.append(time.perf_counter() - start)
        nursery.cancel_scope.cancel()
    return took


def catch_up(a: Home, root: Path, dsn_a: str, dsn_c: str, behind: int) -> tuple[float, float]:
    batch = 10_000
    for start in range(0, behind, batch):
        _append(a, [_line(f"catch-up {n}")[1] for n in range(start, min(start + batch, behind))])
    t0 = time.perf_counter()
    with pg_store.connect(dsn_a) as conn:
        pushed = team.sync_once(a, conn, _no_purge).pushed
    publish = time.perf_counter() - t0
    c = _machine(root, "c", dsn_c)
    t0 = time.perf_counter()
    with pg_store.connect(dsn_c) as conn:
        taken = team.sync_once(c, conn, _no_purge).appended
    take = time.perf_counter() - t0
    assert pushed >= behind, pushed
    assert taken >= behind, taken
    return pushed / publish, taken / take


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--behind", type=int, default=100_000)
    args = parser.parse_args()
    server = PgServer(fsync=True)
    root = Path(tempfile.mkdtemp(prefix="zc-bench-team-"))
    try:
        server.sql("CREATE DATABASE team")
        with pg_store.connect(server.dsn("team")) as conn:
            pg_store.init_schema(conn)
            for name in ("a", "b", "c"):
                pg_store.run_all(conn, pg_schema.add_member(name))
        a = _machine(root, "a", server.dsn("team", "a"))
        b = _machine(root, "b", server.dsn("team", "b"))
        took = trio.run(latency, a, b, args.samples)
        ms = sorted(t * 1000 for t in took)
        p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
        print(f"latency A -> B ({len(ms)} entries, one at a time): p50 "
              f"{statistics.median(ms):.1f} ms, p99 {p99:.1f} ms, max {ms[-1]:.1f} ms")
        publish, take = catch_up(a, root, server.dsn("team", "a"), server.dsn("team", "c"),
                                 args.behind)
        print(f"catch-up from {args.behind:,} behind: A publishes {publish:,.0f} entries/s, "
              f"a new machine takes {take:,.0f} entries/s")
        print(f"load average {os.getloadavg()[0]:.1f}")
    finally:
        server.close()
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
