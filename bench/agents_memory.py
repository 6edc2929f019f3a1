"""Many agents with the default install (semantic search on): the sidecar's RSS and threads.

    .venv/bin/python bench/agents_memory.py [--agents 1,10,40,50,200] [--waiting 20] [--json]
        [--set key=value ...]

For each count N, a fresh data directory and a real ``zettelclaw serve`` subprocess with the
default settings (semantic search on: the shipped MiniLM model; no model route, so extraction
jobs wait): one ``hook.beforePromptBuild`` for each of N new agents
(``{"sessionKey": "agent:xK:main", "workspaceDir": WS}``, the first call of a new agent opens
its memory), then, once every memory's background work had ``--settle`` seconds, the RSS
(VmRSS, and the peak VmHWM), the threads (/proc/PID/status) and the open memories.

``--waiting W``: a sidecar where W agents each leave an extraction job (``hook.sessionEnd``;
no model route, so the jobs wait in their spools), stopped and started again: the RSS, peak and
threads ``--settle`` seconds after the restart, and how many memories it opened.

At caac987 (a model per memory, every memory with waiting jobs opened at start) 20
new agents took the sidecar from 281 MB to 3.16 GB, 40 to 5.1 GB, and a restart with 20 waiting
agents came up at 3.2 GB. Not part of the test suite: run it by hand on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
from zettelclaw.client import Client  # noqa: E402

ZETTELCLAW = str(Path(sys.executable).with_name("zettelclaw"))


def proc_status(pid: int) -> dict[str, float]:
    found: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            found[key] = round(int(value.split()[0]) / 1024, 1)
        elif key == "Threads":
            found[key] = int(value)
    return found


def start(home: Path, socket: Path, workspace: Path, scratch: Path, sets: list[str]
          ) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ZETTELCLAW_", "OPENCLAW_", "ANTHROPIC_"))}
    env["OPENCLAW_STATE_DIR"] = str(scratch / "openclaw")  # no openclaw.json: none is read
    command = [ZETTELCLAW, "serve", "--home", str(home), "--socket", str(socket),
               "--workspace", str(workspace)]
    for setting in sets:
        command += ["--set", setting]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdout is not None
    assert b"listening" in proc.stdout.readline()
    return proc


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=120)


def open_memories(client: Client) -> int:
    return sum(1 for a in client.call("agents.list")["agents"] if a["open"])


def new_agents(n: int, args: argparse.Namespace, scratch: Path) -> dict[str, Any]:
    home, socket, ws = scratch / f"home-{n}", scratch / f"s{n}.sock", scratch / f"ws-{n}"
    home.mkdir(mode=0o700)
    ws.mkdir()
    proc = start(home, socket, ws, scratch, args.set)
    try:
        time.sleep(args.settle)  # main's background: the model loaded, the first pass
        before = proc_status(proc.pid)
        started = time.perf_counter()
        with Client(socket, timeout=300) as client:
            for k in range(1, n + 1):
                client.call("hook.beforePromptBuild",
                            {"sessionKey": f"agent:x{k}:main", "workspaceDir": str(ws)})
            took = time.perf_counter() - started
            time.sleep(args.settle)  # every memory's background: its vectorizer, its catch-up
            after = proc_status(proc.pid)
            status = client.call("status")
            opened = open_memories(client)
    finally:
        stop(proc)
    return {"agents": n, "seconds": round(took, 2), "before": before, "after": after,
            "open": opened, "semantic": status.get("search", {}).get("semantic")}


def waiting_restart(w: int, args: argparse.Namespace, scratch: Path) -> dict[str, Any]:
    home, socket, ws = scratch / f"home-w{w}", scratch / f"w{w}.sock", scratch / f"ws-w{w}"
    home.mkdir(mode=0o700)
    ws.mkdir()
    proc = start(home, socket, ws, scratch, args.set)
    try:
        with Client(socket, timeout=300) as client:
            for k in range(1, w + 1):
                answer = client.call("hook.sessionEnd", {
                    "sessionId": f"s{k}", "sessionKey": f"agent:x{k}:main",
                    "messages": [{"role": "user", "content": f"I keep bees, hive {k}",
                                  "timestamp": 1_700_000_000_000 + k}]})
                assert answer.get("jobId"), answer
    finally:
        stop(proc)
    spooled = sum(1 for _ in home.glob("agents/*/spool/*.json"))
    proc = start(home, socket, ws, scratch, args.set)
    try:
        at_start = proc_status(proc.pid)
        time.sleep(args.settle)
        after = proc_status(proc.pid)
        with Client(socket, timeout=300) as client:
            opened = open_memories(client)
    finally:
        stop(proc)
    return {"waiting": w, "spooledJobs": spooled, "atStart": at_start, "after": after,
            "open": opened}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--agents", default="1,10,40,50,200")
    parser.add_argument("--waiting", type=int, default=20)
    parser.add_argument("--settle", type=float, default=8.0)
    parser.add_argument("--set", action="append", default=["cron.schedule=off"])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="zc-agents-mem-", dir="/tmp"))
    try:
        results = [new_agents(int(n), args, scratch) for n in args.agents.split(",") if n]
        restart = waiting_restart(args.waiting, args, scratch) if args.waiting else None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if args.json:
        print(json.dumps({"new": results, "restart": restart}, indent=2))
        return 0
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}; settings: {' '.join(args.set)}")
    print("| new agents | RSS before | RSS after | peak RSS | threads before / after "
          "| open memories | hooks took |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['agents']} | {r['before']['VmRSS']} MB | {r['after']['VmRSS']} MB | "
              f"{r['after']['VmHWM']} MB | {r['before']['Threads']} / {r['after']['Threads']} "
              f"| {r['open']} | {r['seconds']} s |")
    if restart:
        print(f"\nrestart with {restart['waiting']} agents with waiting jobs "
              f"({restart['spooledJobs']} jobs): RSS {restart['atStart']['VmRSS']} MB at start, "
              f"{restart['after']['VmRSS']} MB after {args.settle:g} s (peak "
              f"{restart['after']['VmHWM']} MB), threads {restart['atStart']['Threads']} / "
              f"{restart['after']['Threads']}, open memories {restart['open']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
