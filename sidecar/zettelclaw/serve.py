"""Running the sidecar process: the agents' memories, the socket, the background tasks, shutdown.

``serve`` is started with ``nursery.start`` and reports ready (with where it listens) only once
the socket accepts connections, so neither tests nor the CLI ever sleep and hope.
``run`` is the process entry point: it adds the ready line and the signal handling.
"""

from __future__ import annotations

import fcntl
import logging
import os
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import trio

from zettelclaw import __version__, freed_memory, long_lived
from zettelclaw.agents.briefings import AgentBriefings
from zettelclaw.agents.pool import Agents, open_agents
from zettelclaw.briefing.scheduler import Scheduler
from zettelclaw.config import Config, load_config
from zettelclaw.home import Home, resolve_openclaw_state_dir
from zettelclaw.methods import build_methods
from zettelclaw.methods.host import withdraw_offers
from zettelclaw.protocol.dispatcher import Dispatcher
from zettelclaw.protocol.framing import DEFAULT_MAX_MESSAGE_BYTES
from zettelclaw.server.connection import ConnectionHandler
from zettelclaw.server.listener import AlreadyServingError, open_listener, remove_socket
from zettelclaw.supervise import quiet_accept_errors, supervised

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ServerConfig:
    home: Home
    workspace: Path
    socket: Path
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    settings: Config | None = None  # None: HOME/config.json and the environment
    transcript_roots: tuple[Path, ...] = ()  # where transcriptPath may point (default below)
    briefing_schedule: bool = False  # run the briefing on cron.schedule (`zettelclaw serve` does)
    # False: `workspace` is only the default, and openclaw.json's `main` workspace wins over it
    workspace_explicit: bool = True


@dataclass(frozen=True)
class Ready:
    socket: Path
    home: Path
    pid: int


@contextmanager
def serve_lock(home: Home) -> Iterator[str | None]:
    """One sidecar per data directory: a second one exits instead of sharing the files.

    The lock file holds the serving pid, and is emptied when the sidecar stops, whatever the
    way out, so a pid found in it when the lock is taken is a sidecar's that died without
    stopping (SIGKILL, the OOM killer, a crash of the interpreter). Yields a sentence saying so,
    for ``status`` (``server.previousExit``), or None."""
    fd = os.open(home.serve_lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            raise AlreadyServingError(
                f"another zettelclaw sidecar (pid {holder}) is serving {home.root}") from None
        died = os.pread(fd, 32, 0).decode(errors="replace").strip()
        previous = None
        if died:
            previous = (f"the sidecar before this one (pid {died}) ended without stopping "
                        f"(killed, out of memory or crashed); this one started at "
                        f"{time.strftime('%Y-%m-%dT%H:%M:%S%z')}")
            logger.warning("%s", previous)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        try:
            yield previous
        finally:
            os.ftruncate(fd, 0)  # stopped: no pid is left to be taken for a death
    finally:
        os.close(fd)  # closing releases the flock


async def serve(config: ServerConfig, *,
                task_status: trio.TaskStatus[Ready] = trio.TASK_STATUS_IGNORED) -> None:
    config.home.ensure()
    settings = config.settings or load_config(config.home)
    roots = config.transcript_roots or (resolve_openclaw_state_dir(os.environ) / "agents",)
    with serve_lock(config.home) as previous_exit:
        agents = await trio.to_thread.run_sync(partial(
            open_agents, config.home, config.workspace, settings, serving=True,
            transcript_roots=roots, main_workspace_explicit=config.workspace_explicit))
        listener, inode = await open_listener(config.socket)
        try:
            await _serve(config, agents, listener, task_status, previous_exit)
        finally:
            remove_socket(config.socket, inode)


async def _serve(config: ServerConfig, agents: Agents, listener: trio.SocketListener,
                 task_status: trio.TaskStatus[Ready], previous_exit: str | None) -> None:
    started = time.monotonic()

    def server_info() -> dict[str, Any]:
        info = {"socket": str(config.socket), "version": __version__,
                "uptimeSeconds": round(time.monotonic() - started, 3),
                "maxMessageBytes": config.max_message_bytes}
        return info if previous_exit is None else {**info, "previousExit": previous_exit}

    dispatcher = Dispatcher(build_methods(agents, server_info),
                            max_response_bytes=config.max_message_bytes)
    handler = ConnectionHandler(dispatcher, config.max_message_bytes,
                                on_close=partial(withdraw_offers, agents.router))
    quiet_accept_errors()
    async with trio.open_nursery() as nursery:
        await nursery.start(agents.run)  # main's memory, and those with work waiting
        choice = agents.router.choose()
        if choice.route is None:
            # normal on a first start (the host offers its model once it connects), so not a
            # warning: `status` and `jobs` say it where it matters
            logger.info("extraction waits for a model (%s); hooks are accepted and spooled",
                        choice.reason)
        if config.briefing_schedule:
            await nursery.start(supervised, "the briefing schedule",
                                Scheduler(AgentBriefings(agents)).run)
        await nursery.start(partial(trio.serve_listeners, handler, [listener]))
        long_lived.freeze()  # start-up's imports and objects: see long_lived.py
        task_status.started(Ready(config.socket, config.home.root, os.getpid()))


# How long a thread holds the GIL when another wants it. Indexing and embedding run in worker
# threads, and the hook, on the event loop, waits behind them for up to a whole interval: at
# Python's default that was the hook's tail while the log was embedded; a tenth of it keeps the
# hook near its idle time (bench/README.md#search-at-a-million-entries).
GIL_SWITCH_SECONDS = 0.0005


def run(config: ServerConfig) -> int:
    """Serve until SIGTERM or SIGINT; print one line when ready. Returns the exit code."""
    sys.setswitchinterval(GIL_SWITCH_SECONDS)
    freed_memory.limit_arenas()  # before the threads: freed_memory.ARENAS

    async def main() -> None:
        with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
            async with trio.open_nursery() as nursery:
                ready = await nursery.start(serve, config)
                print(f"zettelclaw {__version__}: listening on {ready.socket} "
                      f"(home {ready.home}, pid {ready.pid})", flush=True)
                async for signum in signals:
                    logger.info("%s: finishing in-flight work", signal.Signals(signum).name)
                    nursery.cancel_scope.cancel()
                    break

    try:
        trio.run(main)
    except BaseExceptionGroup as group:
        raise _sole(group) from None
    print("zettelclaw: stopped", file=sys.stderr, flush=True)
    return 0


def _sole(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The one error inside nested nursery groups (a refused start), else the group itself."""
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error
