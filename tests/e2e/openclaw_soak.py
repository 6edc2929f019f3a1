"""Soak: one gateway, one memory, and everything that happens to a running install, in turns.

Run by ``tests/e2e/run.sh`` after the end-to-end checks (same arguments, its own sandbox). The
extraction goes through the host's model (no Anthropic key anywhere: the plugin's
``llm.complete``, answered by the fake OpenAI-compatible model), the path a hot reload broke
(once the plugin kept a handle OpenClaw had retired, and jobs were marked failed). Rounds:

1. a fact, nothing else (the baseline);
2. ``openclaw config set plugins.entries.zettelclaw.config.timeoutMs``: OpenClaw hot-reloads
   the plugin (the service stops, with the sidecar it started, and a new registration starts);
3. the sidecar killed (SIGKILL), as the OOM killer would: the plugin that started it starts it
   again (said in the gateway log), the new one's ``status`` names the killed pid
   (``server.previousExit``), and the plugin reconnects and offers again;
4. another config change: a hot reload again, the plugin's restarted sidecar stopped and
   started with it: the reloaded registration must answer on the new connection;
5. ``zettelclaw init`` again (nothing to change: it must say so and break nothing);
6. a gateway restart, with a sidecar started by hand (the plugin's own is stopped, and stays
   stopped: exit 0 is a choice): while the gateway is down, ``status`` names the host's offer
   as ended.

After each, a fact is told (a turn, then ``sessions.reset``) and must reach the log. Throughout,
a sampler asks ``status`` every 0.2 s; no sample may show a failed job, and every sample with
waiting jobs must say why. At the end every fact is in the log exactly once and the spool is
empty. Waits poll logs and the socket against deadlines; nothing sleeps to be safe.
Prints one line per round and ``N passed, M failed`` last; exits 1 when a round failed.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository, for tests.e2e
from tests.e2e.openclaw_e2e import (
    E2E,
    CheckFailed,
    Result,
    Sandbox,
    expect,
    pid_alive,
    wait_for,
)
from zettelclaw.client import SidecarUnavailableError


class Sampler(threading.Thread):
    """``status`` every 0.2 s, from the first round to the last: what a user would have seen."""

    def __init__(self, box: Sandbox) -> None:
        super().__init__(daemon=True)
        self.box = box
        self.samples: list[tuple[float, dict[str, Any] | None]] = []  # None: no sidecar
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                status: dict[str, Any] | None = self.box.sidecar_status()
            except (SidecarUnavailableError, OSError, ValueError):
                status = None
            self.samples.append((time.monotonic(), status))
            self.stopping.wait(0.2)

    def untruthful(self) -> list[str]:
        """Samples that show a failed job, or waiting jobs without saying why."""
        bad = []
        for _, status in self.samples:
            if status is None:
                continue
            extraction = status["extraction"]
            jobs, route = extraction["jobs"], extraction["route"]
            if jobs["failed"]:
                bad.append(f"a failed job: {json.dumps(extraction)[:400]}")
            elif jobs["waiting"] and not (extraction["waitingFor"] or route["active"] is None):
                bad.append(f"jobs wait and status does not say why: {json.dumps(extraction)[:400]}")
        return bad

    def outages(self) -> dict[str, int]:
        """How many samples named each kind of outage."""
        seen = {"sidecar down": 0, "offer ended": 0, "host unusable": 0}
        for _, status in self.samples:
            if status is None:
                seen["sidecar down"] += 1
                continue
            route = status["extraction"]["route"]
            if route["active"] is None and "offer ended" in route["reason"]:
                seen["offer ended"] += 1
            if any(h.get("unusable") for h in route["hosts"]):
                seen["host unusable"] += 1
        return seen


class Soak(E2E):
    def __init__(self, box: Sandbox) -> None:
        super().__init__(box)
        self.facts: list[str] = []
        self.sampler = Sampler(box)
        self.withdrawals_due = 0  # hot reloads and gateway stops: each withdraws the offer

    def gateway_said(self, text: str) -> int:
        return self.box.gateway_log().count(text)

    def host_offered(self) -> bool:
        route = self.box.sidecar_status()["extraction"]["route"]
        return route["active"] == "host" and not any(h.get("unusable") for h in route["hosts"])

    def tell(self, n: int) -> str:
        """A fact told in a turn and a reset; returns once it is in the log."""
        box = self.box
        marker = f"SOAKFACT{n:02d}"
        box.set_extraction_reply(
            {"type": "fact", "content": f"The soak fact of round {n} is {marker}",
             "subject": "soak"},
            {"type": "handoff", "content": f"Round {n} told {marker}"})
        self.turn(f"ZC-SOAK-{n:02d} Remember: the soak fact of round {n} is {marker}.")
        self.reset()
        self.wait_entries(f"{marker} in the log",
                          lambda es: any(marker in e["content"] and e["type"] == "fact"
                                         for e in es), timeout=90)
        self.facts.append(marker)
        return marker

    def hot_reload(self, timeout_ms: int) -> str:
        """A config change OpenClaw applies by reloading the plugin; returns once the reloaded
        plugin has offered the agent's model again."""
        box = self.box
        reloads = self.gateway_said("[reload] config hot reload applied")
        offered = self.gateway_said("zettelclaw: offered the agent's model")
        changed = box.openclaw("config", "set", "plugins.entries.zettelclaw.config.timeoutMs",
                               str(timeout_ms), name=f"config-set-{timeout_ms}")
        expect(changed.returncode == 0, f"config set: {changed.stderr.strip()[-300:]}")
        wait_for(lambda: self.gateway_said("[reload] config hot reload applied") > reloads,
                 "OpenClaw to apply the change by a hot reload", 60)
        wait_for(lambda: self.gateway_said("zettelclaw: offered the agent's model") > offered,
                 "the reloaded plugin to offer the agent's model", 60)
        wait_for(self.host_offered, "status to show the host's model in use", 30)
        self.withdrawals_due += 1
        return "reloaded; the new registration offered the agent's model"

    def round(self, n: int, title: str, disruption: Any) -> None:
        with self.check(f"round {n}", title) as notes:
            if disruption is not None:
                notes.append(disruption())
            marker = self.tell(n)
            notes.append(f"{marker} extracted")

    def kill_sidecar(self) -> str:
        box = self.box
        pid = int(box.sidecar_status()["pid"])
        again = "zettelclaw: the sidecar exited (SIGKILL) while the gateway runs; starting it again"
        restarts = self.gateway_said(again)
        offered = self.gateway_said("zettelclaw: offered the agent's model")
        os.kill(pid, signal.SIGKILL)
        wait_for(lambda: self.gateway_said(again) > restarts,
                 "the plugin to say it starts the sidecar again", 30)

        def new_one_answers() -> bool:
            return box.sidecar_answers() and int(box.sidecar_status()["pid"]) != pid

        wait_for(new_one_answers, "the plugin's new sidecar to answer", 60)
        said = box.sidecar_status()["server"].get("previousExit") or ""
        expect(f"(pid {pid}) ended without stopping" in said,
               f"status does not say the sidecar before died: {said!r}")
        wait_for(lambda: self.gateway_said("zettelclaw: offered the agent's model") > offered,
                 "the plugin to offer the agent's model to the new sidecar", 60)
        wait_for(self.host_offered, "status to show the host's model in use", 30)
        return "the plugin started it again; status named the killed pid; the plugin offered again"

    def init_again(self) -> str:
        proc = self.box.run(["zettelclaw", "init", "--json"], name="init-soak")
        expect(proc.returncode == 0, f"init exited {proc.returncode}: {proc.stderr[-300:]}")
        wait_for(self.host_offered, "status to show the host's model in use", 60)
        report = json.loads(proc.stdout[proc.stdout.index("{"):])
        return f"init: changes {report.get('changes')}"

    def restart_gateway(self) -> str:
        box = self.box
        # the sidecar round 3 left is the plugin's, and stops with the gateway; the one asked
        # while the gateway is down is a person's `zettelclaw serve`: the plugin stops its own
        # (SIGTERM: a stop, which it does not undo), one is started by hand, the plugin uses it
        pid = int(box.sidecar_status()["pid"])
        offered = self.gateway_said("zettelclaw: offered the agent's model")
        os.kill(pid, signal.SIGTERM)
        wait_for(lambda: not box.sidecar_answers() and not pid_alive(pid),
                 "the plugin's sidecar to stop", 30)
        box.start("sidecar", ["zettelclaw", "serve", "--socket", str(box.socket),
                              "--workspace", str(box.workspace)])
        wait_for(box.sidecar_answers, "the sidecar started by hand to answer", 60,
                 box.processes["sidecar"])
        wait_for(lambda: self.gateway_said("zettelclaw: offered the agent's model") > offered,
                 "the plugin to offer the agent's model to the sidecar started by hand", 60)
        box.stop("gateway", grace=30)
        self.withdrawals_due += 1
        wait_for(lambda: "offer ended" in box.sidecar_status()["extraction"]["route"]["reason"],
                 "status to say the host's offer ended", 30)
        route = box.sidecar_status()["extraction"]["route"]
        expect(route["active"] is None and route["hosts"] == [],
               f"the gateway is down and status says {route}")
        said = box.run(["zettelclaw", "status", "--socket", str(box.socket)],
                       name="status-gateway-down")
        expect("offer ended" in said.stdout and "warning" in said.stdout,
               f"`zettelclaw status` with the gateway down: {said.stdout[-500:]}")
        self.start_gateway()
        wait_for(self.host_offered, "status to show the host's model in use", 60)
        return f"while down: {route['reason']}"

    def finish(self) -> None:
        box = self.box
        with self.check("the end", "every fact in the log exactly once; status truthful "
                                   "throughout; no job failed") as notes:
            expect(self.facts, "no fact was told")
            entries = box.log_entries()
            counts = {m: sum(1 for e in entries if e["type"] == "fact" and m in e["content"])
                      for m in self.facts}
            expect(all(c == 1 for c in counts.values()), f"facts in the log: {counts}")
            # a job's entries are appended (and indexed) before its file leaves the spool, so
            # the last fact can be in the log while its job is still listed for a moment
            wait_for(lambda: box.sidecar_status()["extraction"]["jobs"]["pending"] == 0,
                     "the last job to leave the spool once its entries are in", 30)
            jobs = box.sidecar_status()["extraction"]["jobs"]
            expect(jobs == {"pending": 0, "waiting": 0, "failed": 0}, f"jobs: {jobs}")
            self.sampler.stopping.set()
            self.sampler.join(5)
            bad = self.sampler.untruthful()
            expect(not bad, f"{len(bad)} untruthful status sample(s), the first: {bad[:1]}")
            withdrawn = self.gateway_said("zettelclaw: withdrew the agent's model")
            expect(withdrawn >= self.withdrawals_due, f"the plugin withdrew its offer {withdrawn} "
                   f"time(s) for {self.withdrawals_due} reload(s) and gateway stop(s)")
            outages = self.sampler.outages()
            expect(outages["sidecar down"] > 0 and outages["offer ended"] > 0,
                   f"the sampler did not see the outages: {outages}")
            again = self.gateway_said("asked again from OpenClaw's root")
            notes.append(f"{len(self.facts)} facts, each once; {len(self.sampler.samples)} "
                         f"status samples, outages named: {outages}; the plugin withdrew its "
                         f"offer {withdrawn} time(s); llm.complete asked again from OpenClaw's "
                         f"root after a reload {again} time(s)")

    def run(self) -> None:
        box = self.box
        try:
            self.setup()
            proc = box.run(["zettelclaw", "init"], name="init")
            expect(proc.returncode == 0, f"init exited {proc.returncode}: {proc.stderr[-300:]}")
            for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):  # the host's model only
                box.env.pop(name, None)
            self.start_gateway()
            wait_for(self.host_offered, "the plugin to offer the agent's model", 60)
        except (CheckFailed, OSError) as exc:
            print(f"FAIL setup: {exc}", flush=True)
            self.results.append(Result("", "setup", False, 0.0))
            return
        self.sampler.start()
        self.round(1, "a fact, nothing else (baseline)", None)
        self.round(2, "a hot reload (config set timeoutMs), the plugin's own sidecar restarted "
                      "with it", lambda: self.hot_reload(2500))
        self.round(3, "the sidecar killed: the plugin starts it again; status says the one "
                      "before died", self.kill_sidecar)
        self.round(4, "a hot reload again, with the plugin's restarted sidecar",
                   lambda: self.hot_reload(3000))
        self.round(5, "`zettelclaw init` again", self.init_again)
        self.round(6, "a gateway restart: status names the ended offer while it is down",
                   self.restart_gateway)
        self.finish()
        self.box.stop("gateway", grace=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, required=True, help="the sandbox (empty directory)")
    parser.add_argument("--node-bin", type=Path, required=True)
    parser.add_argument("--openclaw-package", type=Path, required=True)
    parser.add_argument("--sidecar-venv", type=Path, required=True)
    args = parser.parse_args()
    repo = Path(__file__).resolve().parents[2]
    args.dir.mkdir(parents=True, exist_ok=True)
    box = Sandbox(args.dir.resolve(), repo, args.node_bin.resolve(),
                  args.openclaw_package.resolve(), args.sidecar_venv.resolve())
    soak = Soak(box)
    started = time.monotonic()

    def interrupted(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, interrupted)
    try:
        soak.run()
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        soak.results.append(Result("", "interrupted", False, 0.0))
    finally:
        soak.sampler.stopping.set()
        box.stop_all()
    passed = sum(r.passed for r in soak.results)
    failed = len(soak.results) - passed
    print(f"soak: {passed} of {len(soak.results)} rounds passed; total "
          f"{time.monotonic() - started:.1f} s", flush=True)
    print(f"{passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
