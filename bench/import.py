"""Import speed and the token estimate's accuracy.

    python bench/import.py [--conversations 200] [--notes 20000] [--prefill 0] [--json]

- Notes without a model: a memory-core workspace of ``--notes`` dated bullet lines (100 a daily
  note) imported in this process (the CLI's files mode): entries per second, plan and apply.
- Conversations through extraction: an OpenClaw session store (its own table layout,
  tests/importing/test_import_openclaw_sessions.py) of ``--conversations`` sessions of 12 messages,
  imported into a real ``zettelclaw serve`` whose model is the fake Messages API on 127.0.0.1
  (answering at once): conversations per minute from the first ``import.apply`` to an empty
  spool (extraction.concurrency 2, the default).
- The estimate: ``import.plan``'s input tokens against the prompts the fake received, counted
  the same way (characters / 4: the fake's own ``usage`` is a fixed 10 + 10 tokens, no count).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import entry, line  # noqa: E402
from tests.direct import open_app  # noqa: E402
from tests.fakes.anthropic_api import FakeAnthropic, Reply  # noqa: E402
from tests.importing.test_import_openclaw_sessions import event, make_store  # noqa: E402
from zettelclaw.client import Client  # noqa: E402
from zettelclaw.home import Home  # noqa: E402
from zettelclaw.importing import importer  # noqa: E402
from zettelclaw.llm.usage import estimate_tokens  # noqa: E402

ZETTELCLAW = str(Path(sys.executable).parent / "zettelclaw")
WORDS = ("the billing service moved to Postgres and the invoices go out on Mondays while the "
         "staging cluster waits for its new certificates and Ana reviews the backfill plan "
         "before Friday").split()


def sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def notes(tmp: Path, count: int) -> dict[str, Any]:
    rng = random.Random(1)
    ws = tmp / "notes-source"
    (ws / "memory").mkdir(parents=True)
    days = max(1, count // 100)
    for day in range(days):
        lines = [f"- {sentence(rng, 12)} ({day}.{n})" for n in range(100)]
        stamp = time.strftime("%Y-%m-%d", time.gmtime(1_700_000_000 + day * 86_400))
        (ws / "memory" / f"{stamp}.md").write_text("\n".join(lines) + "\n")
    home = Home(tmp / "notes-home")
    (tmp / "ws").mkdir()
    app = open_app(home, tmp / "ws")
    source = importer.Source("memory-core", ws, "main")
    started = time.perf_counter()
    plan = importer.plan(app, source)
    planned = time.perf_counter() - started
    started = time.perf_counter()
    while (result := importer.apply(app, source)).state == "running":
        pass
    applied = time.perf_counter() - started
    app.close()
    return {"notes": result.notes, "planSeconds": round(planned, 2),
            "applySeconds": round(applied, 2),
            "entriesPerSecond": round(result.notes / applied), "planned": plan.notes}


def conversations(tmp: Path, count: int, prefill: int) -> dict[str, Any]:
    rng = random.Random(2)
    sessions: list[tuple[str, str, str | None, list[dict[str, Any]]]] = []
    for n in range(count):
        sid = f"bench-{n:05d}"
        base = 1_760_000_000_000 + n * 3_600_000
        events = [event("user" if i % 2 == 0 else "assistant", sentence(rng, rng.randint(15, 60)),
                        base + i * 1000) for i in range(12)]
        sessions.append((f"agent:main:bench-{n}", sid, None, events))
    make_store(tmp / "openclaw", sessions=sessions)
    api = FakeAnthropic().start()
    api.respond = lambda body: Reply(
        text=f'{{"type":"fact","content":"learned {random.getrandbits(32):08x}"}}\n')
    home = tmp / "conv-home"
    home.mkdir()
    with (home / "log.jsonl").open("wb") as log:  # a memory that already holds entries
        for n in range(prefill):
            log.write(line(entry("fact", f"{sentence(rng, 14)} ({n})",
                                 subject=rng.choice(["billing", "staging", "home"]))))
    socket = Path(tempfile.mkdtemp(prefix="zc-", dir="/tmp")) / "s.sock"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZETTELCLAW_")}
    env.update(ANTHROPIC_API_KEY="k", ANTHROPIC_BASE_URL=api.url,
               ZETTELCLAW_CRON_SCHEDULE="off", ZETTELCLAW_SEARCH_SEMANTIC="off",
               ZETTELCLAW_BUDGET_DAILY_TOKENS="0")
    (tmp / "ws2").mkdir()
    proc = subprocess.Popen([ZETTELCLAW, "serve", "--home", str(home), "--socket", str(socket),
                             "--workspace", str(tmp / "ws2")], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert proc.stdout is not None
        assert b"listening on" in proc.stdout.readline()
        params = {"path": str(tmp / "openclaw"), "kind": "openclaw", "budget": 0}
        with Client(socket, timeout=120) as client:
            plan = client.call("import.plan", params)
            started = time.perf_counter()
            while client.call("import.apply", params)["state"] == "running":
                pass
            spooled = time.perf_counter() - started
            while client.call("jobs.list")["jobs"]:
                time.sleep(0.05)
            done = time.perf_counter() - started
            budget = client.call("status")["extraction"]["budget"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        api.stop()
    sent = sum(estimate_tokens(r["messages"][0]["content"]) for r in api.requests)
    estimated = plan.estimate["inputTokens"]
    return {"conversations": plan.conversations, "messages": plan.messages,
            "spoolSeconds": round(spooled, 2), "extractedSeconds": round(done, 2),
            "conversationsPerMinute": round(plan.conversations / done * 60),
            "modelCalls": len(api.requests), "estimatedInputTokens": estimated,
            "sentInputTokens": sent, "estimateOverSent": round(estimated / sent, 3),
            "countedByRouter": budget["byPurpose"].get("import"), "prefill": prefill}


def main() -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--conversations", type=int, default=200)
    args.add_argument("--notes", type=int, default=20_000)
    args.add_argument("--prefill", type=int, default=0,
                      help="entries already in the memory (the related entries the prompts list)")
    args.add_argument("--json", action="store_true")
    options = args.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = {"machine": f"{platform.node()} {os.cpu_count()} cores",
                   "load": os.getloadavg()[0],
                   "notes": notes(Path(tmp), options.notes),
                   "conversations": conversations(Path(tmp), options.conversations,
                                                      options.prefill)}
    print(json.dumps(results, indent=None if options.json else 2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
