"""Extraction under load and under kill -9: hook acknowledgement latency, and entries lost or
written twice over many SIGKILLs at random moments during a stream of hooks.

    python bench/extraction.py [--hooks 2000] [--kills 100] [--rate 40] [--model-delay 0.05]
                               [--no-read-at] [--json]

A real ``zettelclaw serve`` subprocess, the real anthropic SDK, and a fake Messages API on
127.0.0.1 whose reply names the session it was asked about, so every entry in the log can be
traced to its job. The host's part is played as OpenClaw plays it: a hook that got no answer
(the sidecar died first) is sent again after the restart; an acknowledged one never is.

Goal: 0 lost and 0 duplicated. A lost entry is an acknowledged session without its entries in
the log once the sidecar has drained its spool; a duplicate is any entry content seen twice.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakes.anthropic_api import FakeAnthropic, Reply  # noqa: E402
from zettelclaw.client import Client, SidecarUnavailableError  # noqa: E402

ZETTELCLAW = str(Path(sys.executable).parent / "zettelclaw")
SESSION_RE = re.compile(r"Session (bench-\d+)")


def reply_for(body: dict[str, Any], delay: float = 0.0) -> Reply:
    """Entries that name the session the prompt is about: traceable in the log."""
    if not body.get("messages"):  # a request cut short by the kill: the client is gone
        return Reply(status=400, error_type="invalid_request_error")
    session = SESSION_RE.search(body["messages"][0]["content"])
    name = session.group(1) if session else "unknown"
    return Reply(text=f'{{"type":"fact","content":"fact of {name}"}}\n'
                      f'{{"type":"decision","content":"decision of {name}"}}\n'
                      f'{{"type":"handoff","content":"handoff of {name}"}}', delay=delay)


def hook(i: int, read_at: bool) -> dict[str, Any]:
    """Session i's hook; with ``read_at`` as the OpenClaw plugin sends it (the sidecar then also
    writes the session's ``.seen`` mark, atomically), without it as older hosts did."""
    base = 1_795_000_000_000 + i * 10_000
    params: dict[str, Any] = {
        "sessionId": f"bench-{i}", "sessionKey": "agent:main:main", "reason": "new",
        "messages": [{"role": "user", "content": f"message {i}: remember this",
                      "timestamp": base},
                     {"role": "assistant", "content": [{"type": "text", "text": "ok"}],
                      "timestamp": base + 1}]}
    if read_at:
        params["readAt"] = time.time() * 1000
    return params


class Sidecar:
    def __init__(self, home: Path, socket: Path, fake: FakeAnthropic) -> None:
        self.home, self.socket, self.fake = home, socket, fake
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ZETTELCLAW_")}
        env.update(ANTHROPIC_API_KEY="bench", ANTHROPIC_BASE_URL=self.fake.url)
        self.proc = subprocess.Popen(
            [ZETTELCLAW, "serve", "--home", str(self.home), "--socket", str(self.socket),
             "--set", "extraction.retryWaitSeconds=0.05", "--set", "extraction.concurrency=4",
             "--set", "search.semantic=off"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        assert self.proc.stdout is not None
        if b"listening on" not in self.proc.stdout.readline():
            raise SystemExit("the sidecar did not start")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        assert self.proc.stdout is not None
        self.proc.stdout.close()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=30)
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()

    def drain(self, timeout: float = 3600) -> dict[str, float]:
        """Until the spool is empty: the kill phase spools thousands of jobs (hooks come much
        faster than this stress test lets jobs finish). Returns how long that took."""
        start = time.monotonic()
        deadline = start + timeout
        with Client(self.socket) as client:
            pending = len(client.call("jobs.list")["jobs"])
            while jobs := client.call("jobs.list")["jobs"]:
                if time.monotonic() > deadline:
                    raise SystemExit(f"the spool did not drain: {json.dumps(jobs[:5])}")
                time.sleep(0.05)
        seconds = time.monotonic() - start
        return {"jobs": pending, "seconds": round(seconds, 1),
                "jobsPerSecond": round(pending / seconds, 1) if seconds else 0.0}


def latency(sidecar: Sidecar, hooks: int, read_at: bool) -> dict[str, float]:
    samples = []
    with Client(sidecar.socket) as client:
        for i in range(hooks):
            start = time.perf_counter()
            answer = client.call("hook.sessionEnd", hook(100_000 + i, read_at))
            samples.append(time.perf_counter() - start)
            assert answer["accepted"]
    samples.sort()
    return {"n": hooks, "p50": samples[len(samples) // 2] * 1000,
            "p99": samples[int(len(samples) * 0.99)] * 1000, "max": samples[-1] * 1000}


def log_lines(home: Path) -> int:
    try:
        return (home / "log.jsonl").read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def kills(sidecar: Sidecar, count: int, rng: random.Random, rate: float, read_at: bool
          ) -> dict[str, Any]:
    """``count`` rounds of: start, a stream of hooks at ``rate`` a second (below what the worker
    drains, so that jobs are being extracted, not only spooled, when the kill lands), SIGKILL
    after a random 0.3-3 s. Each round records what was under way when it was killed."""
    acknowledged: set[int] = set()
    unanswered: list[int] = []
    next_hook = 0
    rounds: list[dict[str, Any]] = []
    for _ in range(count):
        lines_before, calls_before = log_lines(sidecar.home), len(sidecar.fake.requests)
        sidecar.start()
        stop = threading.Event()
        sent: list[int] = []

        def stream(stop: threading.Event = stop, sent: list[int] = sent) -> None:
            nonlocal next_hook
            try:
                with Client(sidecar.socket, timeout=10) as client:
                    while unanswered and not stop.is_set():  # the host re-sends these first
                        i = unanswered[0]
                        client.call("hook.sessionEnd", hook(i, read_at))
                        acknowledged.add(unanswered.pop(0))
                    while not stop.wait(1 / rate):
                        i = next_hook
                        next_hook += 1
                        sent.append(i)
                        client.call("hook.sessionEnd", hook(i, read_at))
                        acknowledged.add(i)
                        sent.remove(i)
            except (SidecarUnavailableError, ConnectionError, OSError):
                pass  # killed under us

        writer = threading.Thread(target=stream)
        writer.start()
        time.sleep(rng.uniform(0.3, 3.0))  # a random moment: spooling, the model, appending
        sidecar.kill()
        stop.set()
        writer.join()
        unanswered.extend(i for i in sent if i not in acknowledged)
        appended = log_lines(sidecar.home) - lines_before
        calls = len(sidecar.fake.requests) - calls_before
        rounds.append({"appendedLines": appended, "modelCalls": calls,
                       "hookUnanswered": bool(sent), "tornTail": torn_tail(sidecar.home)})
    sidecar.start()
    with Client(sidecar.socket) as client:
        for i in unanswered:
            client.call("hook.sessionEnd", hook(i, read_at))
            acknowledged.add(i)
    drained = sidecar.drain()
    sidecar.stop()
    contents: Counter[str] = Counter()
    for line in (sidecar.home / "log.jsonl").read_bytes().splitlines():
        try:
            contents[json.loads(line)["content"]] += 1
        except (ValueError, KeyError):
            continue  # a torn fragment: kept in the log, not an entry
    lost = [i for i in acknowledged for kind in ("fact", "decision", "handoff")
            if contents[f"{kind} of bench-{i}"] == 0]
    duplicated = [c for c, n in contents.items() if n > 1]
    return {"kills": count, "hooksAcknowledged": len(acknowledged),
            "entries": sum(contents.values()), "lost": len(lost),
            "duplicated": len(duplicated), "modelCalls": len(sidecar.fake.requests),
            "roundsWithAppends": sum(r["appendedLines"] > 0 for r in rounds),
            "roundsWithModelCalls": sum(r["modelCalls"] > 0 for r in rounds),
            "roundsKilledMidHook": sum(r["hookUnanswered"] for r in rounds),
            "roundsLeavingATornLine": sum(r["tornTail"] for r in rounds),
            "drain": drained}


def torn_tail(home: Path) -> bool:
    """A kill mid-append leaves a last line without its newline (repaired at the next start)."""
    try:
        data = (home / "log.jsonl").read_bytes()
    except FileNotFoundError:
        return False
    return bool(data) and not data.endswith(b"\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hooks", type=int, default=2000)
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rate", type=float, default=40.0,
                        help="hooks a second in the kill phase (default 40)")
    parser.add_argument("--model-delay", type=float, default=0.05,
                        help="seconds the fake model takes in the kill phase (default 0.05)")
    parser.add_argument("--no-read-at", action="store_true",
                        help="hooks without readAt, as hosts sent them before it")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    fake = FakeAnthropic().start()
    fake.respond = reply_for
    report: dict[str, Any] = {"machine": {"cpu": platform.processor() or platform.machine(),
                                          "cores": os.cpu_count(),
                                          "loadavg": Path("/proc/loadavg").read_text().split()[:3]}}
    with tempfile.TemporaryDirectory(prefix="zcx-", dir="/tmp") as tmp:
        car = Sidecar(Path(tmp) / "lat", Path(tmp) / "l.sock", fake)
        car.start()
        try:
            report["hookAck"] = latency(car, args.hooks, not args.no_read_at)
            report["hookAck"]["drain"] = car.drain()
        finally:
            car.stop()
        fake.requests.clear()
        fake.respond = lambda body: reply_for(body, args.model_delay)
        report["kill9"] = kills(Sidecar(Path(tmp) / "kill", Path(tmp) / "k.sock", fake),
                                args.kills, random.Random(args.seed), args.rate,
                                not args.no_read_at)
    fake.stop()
    if args.json:
        print(json.dumps(report, indent=2))
        return
    ack, k9 = report["hookAck"], report["kill9"]
    print(f"hook.sessionEnd acknowledgement over {ack['n']} hooks: p50 {ack['p50']:.2f} ms, "
          f"p99 {ack['p99']:.2f} ms, max {ack['max']:.2f} ms")
    print(f"{k9['kills']} kill -9s during a stream of hooks: {k9['hooksAcknowledged']} hooks "
          f"acknowledged, {k9['entries']} entries, {k9['lost']} lost, {k9['duplicated']} "
          f"duplicated ({k9['modelCalls']} model calls)")
    print(f"  kills that landed after entries were appended in their round: "
          f"{k9['roundsWithAppends']}; with model calls made: {k9['roundsWithModelCalls']}; "
          f"with a hook unanswered: {k9['roundsKilledMidHook']}; leaving a torn last line: "
          f"{k9['roundsLeavingATornLine']}")
    for name, drained in (("after the latency run", ack["drain"]),
                          ("after the last restart", k9["drain"])):
        print(f"spool drained {name}: {drained['jobs']} jobs in {drained['seconds']} s "
              f"({drained['jobsPerSecond']} jobs/s)")
    print(f"machine: {report['machine']}")


if __name__ == "__main__":
    main()
