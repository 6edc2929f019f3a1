"""The sidecar over a real Unix socket: the dispatcher's behaviour end to end, and its walls.

The ``server`` fixture (conftest.py) runs ``serve`` in this test's trio run, on a socket under a
short /tmp directory, with a 64 KiB message limit. Well-formed calls go through
``zettelclaw.client.AsyncClient``; malformed input through a raw ``trio.open_unix_socket``.
"""

from __future__ import annotations

import errno
import os
import socket
import sqlite3
import stat
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
import trio
import trio.testing

from tests.conftest import entry
from tests.timing import scaled
from zettelclaw.app import App
from zettelclaw.client import AsyncClient
from zettelclaw.errors import InternalError
from zettelclaw.home import Home
from zettelclaw.methods import admin
from zettelclaw.serve import Ready, ServerConfig, serve

LIMIT = 64 * 1024
NOBODY = 65534

WriteLog = Callable[..., list[dict[str, Any]]]


class Raw:
    """A raw connection: write any bytes, read response lines."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = b""

    @classmethod
    async def connect(cls, path: Path) -> Raw:
        return cls(await trio.open_unix_socket(os.fspath(path)))

    async def send(self, *messages: Any) -> None:
        await self.stream.send_all(b"".join(
            m if isinstance(m, bytes) else orjson.dumps(m) + b"\n" for m in messages))

    async def read(self) -> Any:
        while b"\n" not in self.buffer:
            chunk = await self.stream.receive_some(1 << 16)
            assert chunk, "the server closed the connection"
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return orjson.loads(line)

    async def aclose(self) -> None:
        await self.stream.aclose()

    async def __aenter__(self) -> Raw:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def call(method: str, id: Any = 1, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "id": id, "params": params}


async def caught_up(client: AsyncClient) -> None:
    """Wait until the server has indexed the log as it is now, and its startup catch-up is over.

    ``memory.search`` waits for a catch-up (the startup one, or its own); once it has answered,
    the background task has nothing left to do, and ends as soon as it runs. From then on the
    hook, which never waits for a catch-up another task is running, does its own.
    """
    await client.call("memory.search", {"maxResults": 1})
    await trio.testing.wait_all_tasks_blocked()


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


# -- the basics ------------------------------------------------------------------------------


async def test_status(server: Ready, server_config: ServerConfig) -> None:
    async with await AsyncClient.connect(server.socket) as client:
        status = await client.call("status")
    assert status["entries"]["total"] == 0
    assert status["pid"] == os.getpid() == server.pid
    assert status["home"] == str(server_config.home.root) == str(server.home)
    assert status["server"]["socket"] == str(server.socket)
    assert status["server"]["maxMessageBytes"] == LIMIT


async def test_socket_is_0600_and_the_data_dir_0700(server: Ready,
                                                    server_config: ServerConfig) -> None:
    assert stat.S_ISSOCK(os.lstat(server.socket).st_mode)
    assert mode(server.socket) == 0o600
    assert mode(server_config.home.root) == 0o700


async def test_fifty_concurrent_connections_all_get_their_own_answers(
        server: Ready, write_log: WriteLog) -> None:
    entries = write_log(*(entry(content=f"fact number {i}") for i in range(50)))
    answers: dict[int, Any] = {}

    async def one(i: int) -> None:
        async with await AsyncClient.connect(server.socket) as client:
            got = await client.call("memory.get", {"path": entries[i]["id"]})
            hook = await client.call("hook.beforePromptBuild", {"sessionKey": "agent:main:main"})
        answers[i] = (got["entry"]["content"], hook)

    async with trio.open_nursery() as nursery:
        for i in range(50):
            nursery.start_soon(one, i)
    assert answers == {i: (f"fact number {i}", {"prependContext": None}) for i in range(50)}


async def test_pipelined_messages_on_one_connection_are_each_answered_with_their_id(
        server: Ready, write_log: WriteLog) -> None:
    entries = write_log(*(entry(content=f"pipelined {i}") for i in range(10)))
    async with await Raw.connect(server.socket) as raw:
        await raw.send(*(call("memory.get", id=f"r{i}", path=e["id"])
                         for i, e in enumerate(entries)))
        answers = {}
        for _ in entries:
            response = await raw.read()
            answers[response["id"]] = response["result"]["entry"]["content"]
        assert answers == {f"r{i}": f"pipelined {i}" for i in range(10)}


async def test_batch_and_notification_over_the_socket(server: Ready) -> None:
    async with await Raw.connect(server.socket) as raw:
        await raw.send({"jsonrpc": "2.0", "method": "status"},  # a notification: no answer
                       [call("status", id=1), {"jsonrpc": "2.0", "method": "status"},
                        call("subjects.list", id=2)])
        batch = await raw.read()
        assert isinstance(batch, list)
        assert sorted(r["id"] for r in batch) == [1, 2]
        await raw.send(call("subjects.list", id=3))
        assert (await raw.read())["id"] == 3  # nothing else was sent in between


# -- bad input never ends a connection -------------------------------------------------------


async def test_malformed_json_then_a_valid_request_on_one_connection(server: Ready) -> None:
    async with await Raw.connect(server.socket) as raw:
        await raw.send(b'{"jsonrpc": "2.0", "method": "status", "id": 1\n', call("status", id=2))
        bad, good = await raw.read(), await raw.read()
        assert (bad["id"], bad["error"]["code"]) == (None, -32700)
        assert good["id"] == 2
        assert good["result"]["entries"]["total"] == 0
        await raw.send(b"[]\n", b"42\n", call("nope", id=3))
        assert (await raw.read())["error"]["code"] == -32600
        assert (await raw.read())["error"]["code"] == -32600
        assert (await raw.read())["error"]["code"] == -32601


async def test_oversized_message_gets_32001_and_the_next_is_answered(server: Ready) -> None:
    async with await Raw.connect(server.socket) as raw:
        huge = call("memory.search", id=1, query="word " * (LIMIT // 4))
        assert len(orjson.dumps(huge)) > LIMIT
        await raw.send(huge, call("status", id=2))
        error = await raw.read()
        assert error["id"] is None
        assert error["error"]["code"] == -32001
        assert error["error"]["data"] == {"limit": LIMIT}
        assert (await raw.read())["id"] == 2
        await raw.send(call("subjects.list", id=3))  # still open
        assert (await raw.read())["result"] == {"subjects": []}


async def test_an_exception_in_a_method_is_32603_and_the_server_keeps_serving(
        server: Ready, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(app: App) -> dict[str, Any]:
        raise RuntimeError("status exploded")

    monkeypatch.setattr(admin, "memory_status", broken)
    async with await Raw.connect(server.socket) as raw:
        await raw.send(call("status", id=1))
        response = await raw.read()
        assert response["error"]["code"] == -32603
        assert "status exploded" in response["error"]["message"]
        await raw.send(call("memory.search", id=2, query="anything"))
        assert (await raw.read())["result"]["results"] == []  # same connection
        async with await AsyncClient.connect(server.socket) as other:
            with pytest.raises(InternalError):
                await other.call("status")
            assert await other.call("subjects.list") == {"subjects": []}  # another connection
            monkeypatch.undo()
            assert (await other.call("status"))["entries"]["total"] == 0


# -- what the methods answer -----------------------------------------------------------------


async def test_hook_gives_the_handoff_to_the_main_session_only(server: Ready,
                                                              write_log: WriteLog) -> None:
    write_log(entry("task", "write the backfill script", session="s-hand"),
              entry("decision", "queue-based retries", detail="cascading failures",
                    session="s-hand"),
              entry("handoff", "auth migration half done", session="s-hand",
                    subject="auth-migration"))
    async with await AsyncClient.connect(server.socket) as client:
        await caught_up(client)

        async def hook(**params: Any) -> str | None:
            result = await client.call("hook.beforePromptBuild", params)
            context: str | None = result["prependContext"]
            return context

        context = await hook(sessionKey="agent:main:main")
        assert context is not None
        assert context.startswith("## Last Session Handoff")
        for text in ("auth migration half done", "write the backfill script",
                     "queue-based retries", "cascading failures", "s-hand"):
            assert text in context
        assert await hook(sessionKey="agent:main:scratch-1") == context
        for key in ("agent:main:telegram:group:-100123", "agent:main:discord:channel:1",
                    "agent:main:cron:nightly:run:8821", "agent:main:subagent:child",
                    "agent:main:telegram:direct:123"):
            assert await hook(sessionKey=key) is None, key
        assert await hook() is None
        assert await hook(sessionKey="agent:main:main", chatType="group") is None
        assert await hook(sessionKey="agent:main:main", senderIsOwner=False) is None
        assert await hook(sessionKey="agent:main:telegram:direct:1", senderIsOwner=True) == (
            context)


async def test_an_entry_appended_by_hand_is_seen_without_restart(server: Ready,
                                                                write_log: WriteLog) -> None:
    write_log(entry("handoff", "the old handoff", session="s-old"))
    async with await AsyncClient.connect(server.socket) as client:
        await caught_up(client)
        hook = {"sessionKey": "agent:main:main"}
        assert "the old handoff" in (await client.call("hook.beforePromptBuild", hook)
                                     )["prependContext"]
        assert (await client.call("memory.search", {"query": "zeppelin"}))["results"] == []

        [fact] = write_log(entry("fact", "the zeppelin lands at dawn"))
        found = (await client.call("memory.search", {"query": "zeppelin"}))["results"]
        assert [r["id"] for r in found] == [fact["id"]]

        write_log(entry("handoff", "the new handoff", session="s-new"))
        context = await handoff_once_caught_up(client, "the new handoff")
        assert "the old handoff" not in context

        write_log(entry("question", "who pays for the zeppelin?"))
        status = await client.call("status")
        assert status["entries"]["total"] == 4
        assert status["log"]["unreadTailBytes"] == 0


async def handoff_once_caught_up(client: AsyncClient, text: str) -> str:
    """The hook's context once it holds ``text``: the hook does not wait for a catch-up of
    another process's append, it wakes the memory's watcher, which catches up at once."""
    with trio.fail_after(scaled(10)):
        while True:
            context: str = (await client.call("hook.beforePromptBuild",
                                              {"sessionKey": "agent:main:main"}))["prependContext"]
            if text in context:
                return context
            await trio.sleep(0.01)


async def test_the_hook_does_not_wait_for_a_catch_up_of_an_outside_append(
        server: Ready, server_config: ServerConfig, write_log: WriteLog) -> None:
    """With other processes appending, the hook caught up itself and waited for the
    index (a search's connection, another process's write): p99 0.6-1.1 s under load."""
    write_log(entry("handoff", "the old handoff", session="s-old"))
    hook = {"sessionKey": "agent:main:main"}
    async with await AsyncClient.connect(server.socket) as client:
        await caught_up(client)
        other = sqlite3.connect(server_config.home.index, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")  # another process writes the index meanwhile
            write_log(entry("handoff", "the new handoff", session="s-new"))
            with trio.fail_after(scaled(2)):  # not the index's busy timeout
                context = (await client.call("hook.beforePromptBuild", hook))["prependContext"]
            assert "the old handoff" in context, "answered from the index as it is"
        finally:
            other.execute("ROLLBACK")
            other.close()
        await handoff_once_caught_up(client, "the new handoff")


@pytest.mark.parametrize("path", ["../outside.md", "memory/../../outside.md", "/etc/passwd",
                                  "memory/link.md", "memory/../MEMORY.md/../../outside.md",
                                  "notes.md", "memory/notes.txt"])
async def test_memory_get_outside_the_memory_files_is_refused(
        server: Ready, workspace: Path, path: str) -> None:
    (workspace.parent / "outside.md").write_text("secret\n")
    (workspace / "notes.md").write_text("not a memory file\n")
    (workspace / "memory" / "notes.txt").write_text("not markdown\n")
    (workspace / "memory" / "link.md").symlink_to(workspace.parent / "outside.md")
    (workspace / "memory" / "ok.md").write_text("fine\n")
    async with await Raw.connect(server.socket) as raw:
        await raw.send(call("memory.get", id=1, path=path), call("memory.get", id=2,
                                                                 path="memory/ok.md"))
        refused, allowed = sorted([await raw.read(), await raw.read()], key=lambda r: r["id"])
        assert refused["error"]["code"] == -32003
        assert "secret" not in orjson.dumps(refused).decode()
        assert allowed["result"]["text"] == "fine\n"


# -- who may connect -------------------------------------------------------------------------


def connect_as_nobody(path: Path) -> dict[str, Any]:
    """In a forked child that became uid 65534: connect to ``path`` and read until EOF.

    The child reports what happened as JSON through a pipe; the parent never blocks its trio
    loop on it (the server runs in that loop): call this in a thread.
    """
    read_end, write_end = os.pipe()
    with warnings.catch_warnings():  # Python 3.12+ warns of fork() in a threaded process
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the child: plain sockets only, and always os._exit
        report: dict[str, Any] = {}
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            report["uid"] = os.getuid()
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(20)
            try:
                sock.connect(os.fspath(path))
            except OSError as exc:
                report["connect_errno"] = exc.errno
            else:
                received = b""
                while chunk := sock.recv(1 << 16):
                    received += chunk
                report["received"] = received.decode()
                report["eof"] = True
        except BaseException as exc:  # reported to the parent
            report["child_error"] = repr(exc)
        finally:
            os.write(write_end, orjson.dumps(report))
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    result: dict[str, Any] = orjson.loads(data)
    assert "child_error" not in result, result["child_error"]
    assert result["uid"] == NOBODY
    return result


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to become another user")


@needs_root
async def test_another_uid_is_refused_by_the_peer_credentials_check(
        server: Ready, short_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    # Let the file system through, so that only the SO_PEERCRED check stands in the way.
    os.chmod(short_dir, 0o711)  # noqa: S103
    os.chmod(server.socket, 0o666)  # noqa: S103
    result = await trio.to_thread.run_sync(connect_as_nobody, server.socket)
    assert "connect_errno" not in result
    lines = result["received"].splitlines()
    assert len(lines) == 1
    refusal = orjson.loads(lines[0])
    assert refusal["id"] is None
    assert refusal["error"]["code"] == -32009
    assert f"peer uid {NOBODY}" in refusal["error"]["message"]
    assert result["eof"]
    assert f"refused a connection from uid {NOBODY}" in caplog.text
    async with await AsyncClient.connect(server.socket) as client:  # the owner still gets in
        assert (await client.call("status"))["entries"]["total"] == 0


@needs_root
@pytest.mark.parametrize("dir_mode", [0o700, 0o711], ids=["default-modes", "dir-0711"])
async def test_another_uid_cannot_even_connect_with_the_default_modes(
        server: Ready, short_dir: Path, dir_mode: int) -> None:
    assert mode(server.socket) == 0o600
    os.chmod(short_dir, dir_mode)  # 0711 leaves the socket's own 0600 as the wall
    result = await trio.to_thread.run_sync(connect_as_nobody, server.socket)
    assert result.get("connect_errno") == errno.EACCES


# -- shutdown --------------------------------------------------------------------------------


async def test_cancelling_the_server_removes_its_socket(server_config: ServerConfig) -> None:
    async with trio.open_nursery() as nursery:
        ready: Ready = await nursery.start(serve, server_config)
        assert stat.S_ISSOCK(os.lstat(ready.socket).st_mode)
        async with await Raw.connect(ready.socket):  # an open connection holds nothing up
            nursery.cancel_scope.cancel()
    assert not server_config.socket.exists()
    async with trio.open_nursery() as nursery:  # the data directory is free again
        await nursery.start(serve, server_config)
        nursery.cancel_scope.cancel()
    assert not server_config.socket.exists()


async def test_shutdown_leaves_a_socket_that_is_no_longer_ours(server_config: ServerConfig,
                                                              short_dir: Path) -> None:
    other = short_dir / "other.sock"
    async with trio.open_nursery() as nursery:
        await nursery.start(serve, server_config)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(os.fspath(other))  # made while ours exists, so it has another inode
        sock.close()
        os.rename(other, server_config.socket)  # someone else's socket now stands there
        nursery.cancel_scope.cancel()
    assert stat.S_ISSOCK(os.lstat(server_config.socket).st_mode)


async def test_second_server_on_the_same_home_is_refused(server: Ready,
                                                         server_config: ServerConfig,
                                                         short_dir: Path,
                                                         home: Home) -> None:
    from zettelclaw.server.listener import AlreadyServingError

    second = ServerConfig(home=home, workspace=server_config.workspace,
                          socket=short_dir / "second.sock")
    with pytest.raises(AlreadyServingError, match=f"pid {os.getpid()}"):
        await serve(second)
    assert not second.socket.exists()


async def test_status_says_when_the_sidecar_before_died_without_stopping(
        server_config: ServerConfig, home: Home) -> None:
    """What a SIGKILL or the OOM killer leaves: the serve lock still naming a pid. The next
    sidecar says so in status; one that stopped leaves nothing to say."""
    home.serve_lock.write_text("4242\n")
    for expected in ("pid 4242) ended without stopping", None):
        async with trio.open_nursery() as nursery:
            ready: Ready = await nursery.start(serve, server_config)
            async with await AsyncClient.connect(ready.socket) as client:
                said = (await client.call("status"))["server"].get("previousExit")
            nursery.cancel_scope.cancel()
        if expected is None:
            assert said is None
        else:
            assert said is not None
            assert expected in said
        assert home.serve_lock.read_text() == ""  # stopped: emptied
