"""Rust panics (pyo3's PanicException, a BaseException) answer the call they happen in with
-32603 and leave the server up: a memory whose term index could not make its
watcher thread ("Failed to spawn meta file watcher thread") used to end the process, exit 1 for
every client. KeyboardInterrupt still goes through."""

from __future__ import annotations

import re
import resource
from pathlib import Path
from typing import Any

import pytest
import tantivy
import trio
from pydantic import BaseModel

from tests.server.test_server import caught_up
from zettelclaw.client import AsyncClient
from zettelclaw.index import term_shard
from zettelclaw.panics import is_panic
from zettelclaw.protocol.dispatcher import Dispatcher, Method
from zettelclaw.serve import Ready
from zettelclaw.supervise import supervised


def real_panic(tmp_path: Path) -> BaseException:
    """The panic tantivy raises when no thread can be made: the address space is capped just
    above what the process uses, for the one call (the watcher's stack does not fit)."""
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("body", stored=True)
    schema = builder.build()
    tmp_path.mkdir(exist_ok=True)
    status = Path("/proc/self/status").read_text()
    used = int(re.search(r"VmSize:\s+(\d+)", status).group(1)) * 1024  # type: ignore[union-attr]
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (used + (1 << 20), hard))
    try:
        tantivy.Index(schema, path=str(tmp_path))
    except BaseException as exc:
        return exc
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    # glibc reuses the stack of a thread that ended (trio's worker threads): no mmap to fail
    pytest.skip("tantivy made its thread under the cap (a cached stack): no panic here")


# What pyo3 makes for each extension (test_a_panic_is_told... checks it against the real one):
# where the real one cannot be provoked (a thread stack cached), the tests raise this.
PanicException = type("PanicException", (BaseException,), {"__module__": "pyo3_runtime"})


def test_a_panic_is_told_from_what_must_go_through(tmp_path: Path) -> None:
    panic = real_panic(tmp_path / "shard")
    assert not isinstance(panic, Exception), "a BaseException: except Exception misses it"
    assert is_panic(panic)
    assert "Failed to spawn meta file watcher thread" in str(panic)
    assert not is_panic(KeyboardInterrupt())
    assert not is_panic(SystemExit(1))
    assert not is_panic(ValueError("PanicException"))
    kind = type(panic)
    assert (kind.__name__, kind.__module__, kind.__bases__) == (
        PanicException.__name__, PanicException.__module__, PanicException.__bases__)


async def test_a_panic_opening_a_memory_fails_that_call_and_the_server_goes_on(
        server: Ready, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    panic = PanicException("Failed to spawn meta file watcher thread: Os { code: 11 }")
    opened = term_shard.Shard._open

    def out_of_threads(self: term_shard.Shard) -> Any:
        if "agents/x1" in str(self.path):
            raise panic
        return opened(self)

    monkeypatch.setattr(term_shard.Shard, "_open", out_of_threads)
    workspace = str(tmp_path / "ws")
    async with await AsyncClient.connect(server.socket) as client:
        await caught_up(client)
        with pytest.raises(Exception, match="PanicException") as failed:
            await client.call("hook.beforePromptBuild",
                              {"sessionKey": "agent:x1:main", "workspaceDir": workspace})
        assert getattr(failed.value, "code", None) == -32603
        # the same connection, and the server, go on
        status = await client.call("status")
        assert status["pid"] == server.pid
        await client.call("hook.beforePromptBuild",
                          {"sessionKey": "agent:x2:main", "workspaceDir": workspace})
    async with await AsyncClient.connect(server.socket) as other:
        assert (await other.call("status"))["pid"] == server.pid


class _NoParams(BaseModel):
    pass


async def test_keyboard_interrupt_still_goes_through_the_method_boundary() -> None:
    async def interrupted(params: _NoParams) -> None:
        raise KeyboardInterrupt

    dispatcher = Dispatcher({"stop": Method(_NoParams, interrupted)})
    with pytest.raises(KeyboardInterrupt):
        await dispatcher.call("stop", {})


async def test_a_supervised_task_that_panics_after_starting_is_restarted(
        autojump_clock: trio.abc.Clock) -> None:
    panic = PanicException("Failed to spawn thread")
    runs: list[int] = []

    async def task(*, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        runs.append(len(runs))
        task_status.started()
        if len(runs) < 2:
            raise panic

    async with trio.open_nursery() as nursery:
        await nursery.start(supervised, "the task", task)
    assert runs == [0, 1]
