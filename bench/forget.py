"""Figures for forget, receipts and the injection trace (bench/README.md#forget).

    .venv/bin/python bench/forget.py [--entries 10000] [--samples 2000]

1. A purge of one session's entries from a generated log of ``--entries`` entries (bench/
   generate.py), in-process (the CLI's files mode): the whole purge (log rewrite, transcripts,
   spool, index rebuilt and VACUUMed, term segments collected), and a hide of the same entries.
2. hook.beforePromptBuild round trips against a ``zettelclaw serve`` on that data (one
   persistent connection, 300 untimed calls first): p50 / p99 / max with the handoff and the
   trace recorded each turn, and the one turn that also carries a write receipt line.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.generate import generate

from zettelclaw.client import Client

ZETTELCLAW = str(Path(sys.executable).parent / "zettelclaw")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def purge_figures(root: Path, entries: int) -> None:
    from tests.direct import open_app  # the same App the CLI's files mode builds
    from zettelclaw.forget import service
    from zettelclaw.forget.select import Criteria
    from zettelclaw.home import Home

    home = Home(root / "home")
    generate(entries, home.root)
    sessions = [orjson.loads(raw)["session"] for raw in home.log.read_bytes().splitlines()]
    session = sessions[len(sessions) // 2]
    (root / "ws").mkdir()
    app = open_app(home, root / "ws")
    app.freshness.sync()
    started = time.perf_counter()
    hidden = service.hide(app, Criteria(session=session), dry_run=False)
    hide_s = time.perf_counter() - started
    started = time.perf_counter()
    purged = service.purge(app, Criteria(session=session), dry_run=False)
    purge_s = time.perf_counter() - started
    app.close()
    print(f"log: {entries} entries, {home.log.stat().st_size} bytes after")
    print(f"hide of session {session}: {hidden.changed} entries in {hide_s * 1000:.1f} ms")
    print(f"purge of session {session}: {purged.changed} entries in {purge_s * 1000:.1f} ms; "
          f"removed {orjson.dumps(purged.removed).decode()}")


def hook_figures(root: Path, entries: int, samples: int, hook_only: bool = False) -> None:
    home = root / "hook-home"
    generate(entries, home)
    sock = Path(tempfile.mkdtemp(prefix="zc-", dir="/tmp")) / "s.sock"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZETTELCLAW_")}
    env.pop("ANTHROPIC_API_KEY", None)
    env["ZETTELCLAW_CRON_SCHEDULE"] = "off"
    proc = subprocess.Popen([sys.executable, "-m", "zettelclaw", "serve", "--home", str(home),
                             "--socket", str(sock), "--set", "search.semantic=off"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    try:
        assert proc.stdout is not None
        assert b"listening on" in proc.stdout.readline()
        params = {"sessionKey": "agent:main:main", "sessionId": "bench"}
        with Client(sock, timeout=60) as client:
            client.call("status")
            for _ in range(300):
                client.call("hook.beforePromptBuild", params)
            times = []
            for _ in range(samples):
                t = time.perf_counter()
                client.call("hook.beforePromptBuild", params)
                times.append((time.perf_counter() - t) * 1000)
            if hook_only:  # (a sidecar without receipts or trace: the baseline)
                print(f"hook.beforePromptBuild ({entries} entries, handoff only): "
                      f"p50 {statistics.median(times):.3f} ms, p99 {pct(times, 0.99):.3f} ms, "
                      f"max {max(times):.3f} ms over {samples}")
                return
            client.call("memory.remember", {"type": "fact", "content": "bench receipt"})
            # a receipt the owner was not told yet: as extraction records one
            data = orjson.loads((home / "receipts.json").read_bytes())
            for c in data["conversations"]:
                c["told"] = False
            (home / "receipts.json").write_bytes(orjson.dumps(data))
            client.call("memory.remember", {"type": "fact", "content": "bench receipt 2"})
            data = orjson.loads((home / "receipts.json").read_bytes())
            for c in data["conversations"]:
                c["told"] = False
            (home / "receipts.json").write_bytes(orjson.dumps(data))
            client.call("memory.remember", {"type": "fact", "content": "bench receipt 3",
                                            "sessionId": "bench"})
            t = time.perf_counter()
            answer = client.call("hook.beforePromptBuild", params)
            with_receipt = (time.perf_counter() - t) * 1000
            assert "Remembered from your last conversation" in answer["prependContext"]
            turns = client.call("memory.trace", {"limit": 1})["turns"]
        print(f"hook.beforePromptBuild ({entries} entries, handoff + trace each turn): "
              f"p50 {statistics.median(times):.3f} ms, p99 {pct(times, 0.99):.3f} ms, "
              f"max {max(times):.3f} ms over {samples}")
        print(f"the turn with a receipt line: {with_receipt:.3f} ms; traced {turns[0]['items']}")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--hook-only", action="store_true",
                        help="only the hook's round trips, handoff alone (for a baseline: "
                             "PYTHONPATH=<an older checkout>/sidecar)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if not args.hook_only:
            purge_figures(Path(tmp), args.entries)
        hook_figures(Path(tmp), args.entries, args.samples, args.hook_only)


if __name__ == "__main__":
    main()
