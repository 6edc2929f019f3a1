"""What the host route for embeddings adds to a search: a sidecar in this process, a log of
generated facts, and hybrid searches over its Unix socket, with ``search.embeddings = local``
(the shipped model) and ``host`` (tests/fakes/host_client.py's fake host, whose bag-of-words
vectors come back at once: the figure is the route's own cost, not a provider's).

    python bench/host_embeddings.py [--entries 200] [--searches 30]

Prints, per route, how long the entries took to embed and the searches' p50 and max.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import entry, line  # noqa: E402
from tests.fakes.host_client import FakeHost  # noqa: E402
from zettelclaw.client import AsyncClient  # noqa: E402
from zettelclaw.config import load_config  # noqa: E402
from zettelclaw.home import Home  # noqa: E402
from zettelclaw.serve import Ready, ServerConfig, serve  # noqa: E402


async def measure(route: str, entries: int, searches: int) -> str:
    root = Path(tempfile.mkdtemp(prefix="zc-bench-", dir="/tmp"))
    home = Home(root / "home")
    home.ensure()
    workspace = root / "workspace"
    workspace.mkdir()
    with home.log.open("ab") as log:
        for i in range(entries):
            log.write(line(entry("fact", f"fact {i} about topic {i % 17} and the ledger")))
    settings = load_config(home, env={}, overrides=["search.semantic=auto",
                                                    f"search.embeddings={route}"])
    config = ServerConfig(home=home, workspace=workspace, socket=root / "s.sock",
                          max_message_bytes=32 * 1024 * 1024, settings=settings,
                          transcript_roots=())
    host: FakeHost | None = None
    async with trio.open_nursery() as nursery:
        ready: Ready = await nursery.start(serve, config)
        if route == "host":
            host = FakeHost(ready.socket, "")
            await trio.to_thread.run_sync(host.start, ("llm.complete", "embeddings.embed"))
        async with await AsyncClient.connect(ready.socket) as client:
            started = time.perf_counter()
            while True:
                semantic = (await client.call("status"))["search"]["semantic"]
                if semantic["on"] and semantic.get("coveredThroughLine") == semantic.get("lines"):
                    break
                await trio.sleep(0.01)
            embedded = time.perf_counter() - started
            took = []
            for i in range(searches):
                started = time.perf_counter()
                found = await client.call("memory.search",
                                          {"query": f"which database for topic {i}"})
                took.append(time.perf_counter() - started)
                assert found["mode"] == "hybrid", found.get("fallback")
        if host is not None:
            await trio.to_thread.run_sync(host.stop)
        nursery.cancel_scope.cancel()
    return (f"{route}: {entries} entries embedded in {embedded * 1000:.0f} ms; hybrid search "
            f"p50 {statistics.median(took) * 1000:.1f} ms, max {max(took) * 1000:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entries", type=int, default=200)
    parser.add_argument("--searches", type=int, default=30)
    args = parser.parse_args()
    for route in ("local", "host"):
        print(trio.run(measure, route, args.entries, args.searches), flush=True)


if __name__ == "__main__":
    main()
