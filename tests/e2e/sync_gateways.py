"""The check ``sync_two_gateways`` of tests/e2e/openclaw_e2e.py: two OpenClaw gateways (two
HOMEs, two state directories, two sidecars) share one memory through a bare git repository
(docs/14-sync.md): the fact ``extract_at_reset`` told the first gateway's agent is found by the
second gateway's agent's ``memory_search`` after ``zettelclaw sync init`` on both, and a fact
remembered on the second reaches the first after a ``zettelclaw sync`` on each.

Run it alone (after the setup every run makes, and ``extract_at_reset``, which tells the fact):

    ZC_E2E_ONLY=extract_at_reset,sync_two_gateways ZC_E2E_SOAK=0 tests/e2e/run.sh
"""

from __future__ import annotations

import json
import subprocess
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.e2e.openclaw_e2e import E2E, Sandbox


def check_sync_two_gateways(e2e: E2E, driver: ModuleType) -> None:
    """``driver``: the running openclaw_e2e module (its Sandbox, expect, tail and wait_for)."""
    make_sandbox: type[Sandbox] = driver.Sandbox
    expect, tail, wait_for = driver.expect, driver.tail, driver.wait_for

    box = e2e.box
    with e2e.check("sync_two_gateways",
                   "two gateways share one memory through git: a fact told to one is found by "
                   "the other's memory_search after a sync") as notes:
        expect(e2e.fact_id, "no fact id from extract_at_reset")
        second = make_sandbox(box.root / "second", box.repo, box.node_bin,
                              box.openclaw_package, box.sidecar_venv)
        # the first's model settings, whatever host_model_route left of them (it takes the key away)
        second.env.update({k: box.env[k] for k in ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY")
                           if k in box.env})
        config = json.loads((box.state / "openclaw.json").read_text())
        fresh = {"gateway": {**config["gateway"], "port": second.gateway_port},
                 "models": config["models"],
                 "agents": {"defaults": {"model": config["agents"]["defaults"]["model"],
                                         "workspace": str(second.workspace)}},
                 "tools": config.get("tools", {}),
                 "logging": {"file": str(second.logs / "openclaw-file.log")}}
        (second.state / "openclaw.json").write_text(json.dumps(fresh, indent=2) + "\n")
        init = second.run(["zettelclaw", "init"], name="init")
        expect(init.returncode == 0, f"init on the second: {tail(init.stderr)}")
        gateway = second.start("gateway", ["openclaw", "gateway", "run", "--port",
                                           str(second.gateway_port), "--auth", "token"])
        try:
            wait_for(lambda: "[gateway] ready" in second.gateway_log(),
                     "the second gateway to be ready", 240, gateway)
            wait_for(second.sidecar_answers, "the second sidecar to answer", 60, gateway)
            remote = box.root / "memory.git"
            subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
            for sandbox in (box, second):  # the first pushes, the second pulls
                made = sync(sandbox, "init", str(remote))
                expect(made.returncode == 0, f"sync init: {tail(made.stderr)}")
            marker = "ZC-TURN-SYNC"
            found = _turn(second, f'{marker} CALL_TOOL:memory_search '
                                  '{"query": "launch code name"}', e2e)
            ids = [r.get("id") for r in found.get("results", [])]
            expect(e2e.fact_id in ids, f"the second's memory_search: {ids}")
            said = second.run(["zettelclaw", "remember", "fact", "the", "spare", "charger",
                               "is", "in", "the", "hall", "--socket", str(second.socket)],
                              name="remember")
            expect(said.returncode == 0, f"remember: {tail(said.stderr)}")
            for sandbox in (second, box):
                ran = sync(sandbox)
                expect(ran.returncode == 0, f"sync: {tail(ran.stderr)}")
            back = box.run(["zettelclaw", "search", "charger", "--json", "--socket",
                            str(box.socket)], name="search-charger")
            expect(back.returncode == 0 and "spare charger" in back.stdout,
                   f"the first did not get the second's fact: {tail(back.stdout)}")
            notes.append(f"the second gateway's memory_search found {e2e.fact_id}; the "
                         "second's fact reached the first")
        finally:
            second.stop_all()


def sync(sandbox: Sandbox, *args: str) -> subprocess.CompletedProcess[str]:
    return sandbox.run(["zettelclaw", "sync", *args, "--socket", str(sandbox.socket)],
                       timeout=300, name=f"sync-{args[0] if args else 'run'}")


def _turn(sandbox: Sandbox, message: str, e2e: E2E) -> Any:
    from tests.e2e.openclaw_e2e import expect, parse_json_output, tail, tool_result

    proc = sandbox.openclaw("agent", "-m", message, "--json", "--timeout", "120", "--agent",
                            "main", timeout=180, name="turn-sync")
    expect(proc.returncode == 0, f"the second's turn: {tail(proc.stderr or proc.stdout)}")
    expect(parse_json_output(proc.stdout).get("status") == "ok", "the turn did not complete")
    return tool_result(e2e.box.model_requests(), message.split(maxsplit=1)[0])
