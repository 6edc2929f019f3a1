"""Filling in the vectors in the background, so that search never waits for the model.

Loads the embedding model once the sidecar is serving (seconds, in a thread), then embeds what
has no vector yet (the log's entries, and the memory files' chunks, which it indexes itself so
that they have vectors before the first search), a batch at a time, on the cores
``search.embeddingThreads`` allows (two by default), at a lower priority than requests. When
nothing is left it gives back the memory the batches freed (``freed_memory.py``) and sleeps
until a catch-up brings new entries, or a few seconds pass (a memory file may have changed).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import trio
import trio.lowlevel

from zettelclaw import freed_memory
from zettelclaw.search.host_embeddings import HostModelChanged
from zettelclaw.search.http_embeddings import EmbeddingError
from zettelclaw.search.semantic import LOADING, Semantic

logger = logging.getLogger(__name__)

IDLE_POLL_SECONDS = 5.0
SERVICE_RETRY_SECONDS = 30.0  # an embedding server that failed is asked again after this


class Vectorizer:
    def __init__(self, semantic: Semantic, refresh: Callable[[], object] | None = None) -> None:
        self.semantic = semantic
        self._refresh = refresh  # brings the memory files' chunks up to date (cheap: stats)
        self._wake = trio.Event()
        self.failing: str | None = None  # why the embedding server failed last, while it does
        self.waiting: str | None = None  # why no host embeds (search.embeddings = host), said once

    def notify(self) -> None:
        self._wake.set()

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> None:
        task_status.started()
        if not self.semantic.wanted:
            logger.info("semantic search is off: %s", self.semantic.reason)
            return
        stop = self.semantic.when_offered(self.notify)  # a host that embeds: try it at once
        try:
            await self._run()
        finally:
            stop()

    async def _run(self) -> None:
        embedded = 0  # texts embedded since the last time nothing was left
        while True:
            self._wake = trio.Event()
            large = await trio.to_thread.run_sync(self.semantic.too_large)
            if large is not None:  # no model, no vectors: search would not use them
                self.semantic.reason = large
                with trio.move_on_after(IDLE_POLL_SECONDS * 12):
                    await self._wake.wait()
                continue
            if self.semantic.embedder is None or self.semantic.outdated():
                loaded = await self._load()
                if loaded is None:  # no host embeds yet: when one offers, or a while later
                    with trio.move_on_after(SERVICE_RETRY_SECONDS):
                        await self._wake.wait()
                    continue
                if not loaded:
                    return
            else:
                self.semantic.reason = None  # small enough again (a rewrite shrank the log)
            done = await self._step()
            if done is None:  # the embedding server failed: it is asked again later (a host
                with trio.move_on_after(SERVICE_RETRY_SECONDS):  # that offers: at once)
                    await self._wake.wait()
                continue
            if done:
                embedded += done
                await trio.lowlevel.checkpoint()  # let requests in between batches
                continue
            if embedded >= freed_memory.AFTER_ENTRIES:  # a pass's batches freed that much
                await trio.to_thread.run_sync(freed_memory.give_back)
            embedded = 0
            with trio.move_on_after(IDLE_POLL_SECONDS):
                await self._wake.wait()

    async def _step(self) -> int | None:
        """One batch: how many texts it embedded; None when the embedding server failed."""
        try:
            if self._refresh is not None:  # a memory file may have changed: embed it too
                await trio.to_thread.run_sync(self._refresh)
            try:
                done = await trio.to_thread.run_sync(self.semantic.embed_pending)
            except HostModelChanged as exc:  # another provider or model: its vectors now
                logger.info("%s", exc)
                await trio.to_thread.run_sync(self.semantic.load)
                done = await trio.to_thread.run_sync(self.semantic.embed_pending)
            # older vectors into a segment, once enough are there (seconds, at a low priority)
            await trio.to_thread.run_sync(self.semantic.seal_due)
        except EmbeddingError as exc:  # the server is down or answers nonsense: say it
            if str(exc) != self.failing:  # once, not every few seconds
                logger.warning("embedding failed: %s; trying again every %g s", exc,
                               SERVICE_RETRY_SECONDS)
            self.failing = str(exc)
            return None
        except Exception:
            logger.exception("embedding failed; trying again later")
            done = 0
        if self.failing is not None:
            logger.info("embedding works again")
            self.failing = None
        return done

    async def _load(self) -> bool | None:
        """Whether the model loaded; None when no host offers embeddings yet (asked again)."""
        self.semantic.reason = LOADING
        try:
            # Waited for, even on cancel (a shutdown waits for the rest of the load, seconds at
            # most): abandoned, its thread went on inside onnxruntime while the process exited,
            # and the exit died in onnxruntime's teardown ("terminate called without an active
            # exception", 134; or 139) in 6 of 20 SIGTERMs (tests/hostile/test_issue28_hostile.py).
            # Once loaded, the memory's close closes the model (App.close -> Semantic.close).
            await trio.to_thread.run_sync(self.semantic.load)
        except EmbeddingError as exc:
            if self.semantic.config.embeddings != "host":
                self.semantic.reason = f"the embedding model failed to load: {exc}"
                logger.warning("semantic search is off: %s", exc)
                return False
            if str(exc) != self.waiting:  # once, not every 30 s
                logger.info("semantic search waits for a host: %s", exc)
            self.semantic.reason = self.waiting = str(exc)
            return None
        except Exception as exc:  # a broken install must not take the sidecar down
            self.semantic.reason = f"the embedding model failed to load: {exc}"
            logger.exception("semantic search is off")
            return False
        self.waiting = None
        logger.info("semantic search is on (%s)", self.semantic.embedder.name
                    if self.semantic.embedder else "?")
        return True
