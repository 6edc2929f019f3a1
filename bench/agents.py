"""Many agents in one sidecar: memory (RSS) and the hook's latency with 1, 10 and 50 agents.

    .venv/bin/python bench/agents.py [--agents 1,10,50] [--entries 2000] [--calls 2000] [--json]

For each count N, a fresh data directory where each agent's memory holds ``--entries`` entries
(generated, bench/generate.py; main's is the data directory, the others ``agents/<id>/``), and a
real ``zettelclaw serve`` subprocess (semantic search off) with ``agents.idleSeconds`` short:

- cold: on a first start, the first ``hook.beforePromptBuild`` of each agent, which opens its
  memory and builds its index (small logs are indexed as they open) - p50 and max; the peak RSS;
- warm (the sidecar restarted, every index there): the first hook of each agent (it opens the
  memory) - p50 and max; then ``--calls`` hooks round-robin over the N agents on one connection,
  every memory open, after 200 to warm up - p50 / p99; the RSS at start, with every memory
  open, and once the idle memories were closed (``agents.list`` shows only main open).

Prints a Markdown table and the machine; ``--json`` prints the figures. Not part of the test
suite: run it by hand on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))  # bench/ is a namespace package under the root
from bench import generate  # noqa: E402

from zettelclaw.client import Client  # noqa: E402

ZETTELCLAW = str(Path(sys.executable).with_name("zettelclaw"))
IDLE_SECONDS = 4.0


def rss_mb(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise KeyError(field)


def fill(home: Path, agents: list[str], entries: int) -> None:
    """Each agent's memory: the same generated log (bench/generate.py), copied."""
    source = home.parent / f"generated-{entries}"
    if not (source / "log.jsonl").exists():
        source.mkdir(exist_ok=True)
        generate.generate(entries, source, seed=7)
    for agent in agents:
        root = home if agent == "main" else home / "agents" / agent
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        shutil.copyfile(source / "log.jsonl", root / "log.jsonl")
        (root / "log.jsonl").chmod(0o600)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def start(home: Path, socket: Path, main_ws: Path, scratch: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZETTELCLAW_", "OPENCLAW_"))}
    env["OPENCLAW_STATE_DIR"] = str(scratch / "openclaw")  # no openclaw.json: none is read
    proc = subprocess.Popen(
        [ZETTELCLAW, "serve", "--home", str(home), "--socket", str(socket), "--workspace",
         str(main_ws), "--set", "search.semantic=off", "--set", "cron.schedule=off",
         "--set", f"agents.idleSeconds={IDLE_SECONDS}"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdout is not None
    assert b"listening" in proc.stdout.readline()
    return proc


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)


def open_all(client: Client, agents: list[str]) -> list[float]:
    """The first hook of each agent (it opens the memory); ms each."""
    took = []
    for agent in agents:
        started = time.perf_counter()
        answer = client.call("hook.beforePromptBuild",
                             {"agentId": agent, "sessionKey": f"agent:{agent}:main"})
        took.append((time.perf_counter() - started) * 1000)
        assert answer["prependContext"], agent  # each memory has its own handoff
    return took


def measure(n: int, args: argparse.Namespace, scratch: Path) -> dict[str, Any]:
    home, socket = scratch / f"home-{n}", scratch / f"s{n}.sock"
    home.mkdir(mode=0o700)
    agents = ["main", *(f"agent-{i:02d}" for i in range(1, n))]
    fill(home, agents, args.entries)
    workspaces = {a: scratch / f"ws-{n}-{a}" for a in agents}
    for ws in workspaces.values():
        ws.mkdir()
    register = {"agents": [{"agentId": a, "workspace": str(ws)} for a, ws in workspaces.items()]}
    # first start: every memory opens cold (its index built as it opens)
    proc = start(home, socket, workspaces["main"], scratch)
    try:
        with Client(socket, timeout=120) as client:
            client.call("agents.register", register)
            cold = open_all(client, agents)
        cold_peak = rss_mb(proc.pid, "VmHWM")
    finally:
        stop(proc)
    # a restart, as after an upgrade or a reboot: every index is there
    proc = start(home, socket, workspaces["main"], scratch)
    try:
        base = rss_mb(proc.pid, "VmRSS")
        with Client(socket, timeout=120) as client:
            warm = open_all(client, agents)
            time.sleep(1.0)  # the memories' first background passes
            hooks = []
            for i in range(args.calls + 200):
                agent = agents[i % n]
                started = time.perf_counter()
                client.call("hook.beforePromptBuild",
                            {"agentId": agent, "sessionKey": f"agent:{agent}:main"})
                if i >= 200:  # the first 200 warm up
                    hooks.append((time.perf_counter() - started) * 1000)
            all_open = rss_mb(proc.pid, "VmRSS")
            peak = rss_mb(proc.pid, "VmHWM")
            deadline = time.monotonic() + IDLE_SECONDS * 10
            while n > 1:
                listed = client.call("agents.list")["agents"]
                if [a["agentId"] for a in listed if a["open"]] == ["main"]:
                    break
                assert time.monotonic() < deadline, "idle memories were not closed"
                time.sleep(0.25)
            after_idle = rss_mb(proc.pid, "VmRSS")
    finally:
        stop(proc)
    return {"agents": n, "entriesPerAgent": args.entries,
            "coldOpenMs": {"p50": statistics.median(cold), "max": max(cold)},
            "coldPeakRssMb": round(cold_peak, 1),
            "warmOpenMs": {"p50": statistics.median(warm), "max": max(warm)},
            "hookMs": {"p50": statistics.median(hooks), "p99": percentile(hooks, 99)},
            "rssMb": {"started": round(base, 1), "allOpen": round(all_open, 1),
                      "peak": round(peak, 1), "afterIdleClose": round(after_idle, 1)}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--agents", default="1,10,50")
    parser.add_argument("--entries", type=int, default=2000)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="zc-agents-", dir="/tmp"))
    try:
        results = [measure(int(n), args, scratch) for n in args.agents.split(",")]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}; {args.entries} entries per agent")
    print("| agents | cold open p50 / max (ms) | peak RSS, cold | warm open p50 / max (ms) | "
          "hook p50 / p99 (ms) | RSS at start | RSS, all open | RSS after idle close |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['agents']} | {r['coldOpenMs']['p50']:.1f} / {r['coldOpenMs']['max']:.1f} | "
              f"{r['coldPeakRssMb']} MB | "
              f"{r['warmOpenMs']['p50']:.1f} / {r['warmOpenMs']['max']:.1f} | "
              f"{r['hookMs']['p50']:.3f} / {r['hookMs']['p99']:.3f} | "
              f"{r['rssMb']['started']} MB | {r['rssMb']['allOpen']} MB | "
              f"{r['rssMb']['afterIdleClose']} MB |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
