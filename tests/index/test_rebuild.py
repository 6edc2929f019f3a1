"""index.rebuild over the socket: everything is indexed again, and while it runs the hook that
precedes every agent turn answers at once, from what the sidecar already has."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import trio

from tests.conftest import entry
from tests.timing import scaled
from zettelclaw.client import AsyncClient
from zettelclaw.index import ingest
from zettelclaw.index.freshness import Freshness
from zettelclaw.serve import Ready

MAIN = {"sessionKey": "agent:main:main"}


async def test_the_hook_does_not_wait_for_a_rebuild(
        server: Ready, write_log: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    write_log(*[entry("fact", f"note {i}") for i in range(3000)],
              entry("handoff", "where we left off"))
    async with await AsyncClient.connect(server.socket) as client:
        assert (await client.call("memory.search", {"query": "note"}))["results"]
        before = await client.call("hook.beforePromptBuild", MAIN)
        assert "where we left off" in before["prependContext"]

        monkeypatch.setattr(ingest, "BATCH", 50)  # many batches: a rebuild with a midway
        midway = threading.Event()  # the rebuild's thread waits here after its first batch
        tracker = Freshness._tracker

        def held_midway(self: Freshness, progress: Any, update: Any) -> Any:
            track = tracker(self, progress, update)

            def hold(done: int, total: int) -> None:
                track(done, total)
                if done < total:
                    midway.wait(30)

            return hold

        monkeypatch.setattr(Freshness, "_tracker", held_midway)
        done = trio.Event()
        result: dict[str, Any] = {}

        async def rebuild() -> None:
            async with await AsyncClient.connect(server.socket) as other:
                result.update(await other.call("index.rebuild"))
            done.set()

        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(rebuild)
                # polling the server: there is no event to wait on
                with trio.fail_after(scaled(30)):
                    while (await client.call("status"))["index"]["progress"] is None:  # noqa: ASYNC110
                        await trio.sleep(0.01)
                # the rebuild waits at its midway until we let it go
                with trio.fail_after(scaled(5)):
                    during = await client.call("hook.beforePromptBuild", MAIN)
                assert not done.is_set(), "the hook answered while the rebuild was running"
                assert during == before
                midway.set()
        finally:
            midway.set()  # never leave the rebuild's thread waiting
        assert result["entries"] == 3001
        assert (await client.call("status"))["index"]["progress"] is None
