"""The socket path: claiming it safely, binding it 0600, removing only our own, who may connect."""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from zettelclaw.errors import DataDirError
from zettelclaw.server.listener import (
    MAX_PATH_BYTES,
    AlreadyServingError,
    claim_path,
    open_listener,
    peer_allowed,
    peer_uid,
    remove_socket,
)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def is_socket(path: Path) -> bool:
    return stat.S_ISSOCK(os.lstat(path).st_mode)


def gone(path: Path) -> bool:
    return not os.path.lexists(path)


def stale_socket(path: Path) -> None:
    """A socket file whose process is gone: bound, then closed without unlinking."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(os.fspath(path))
    sock.close()


@pytest.fixture
def live_socket(short_dir: Path) -> Iterator[Path]:
    """A socket someone listens on."""
    path = short_dir / "live.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(os.fspath(path))
    sock.listen(1)
    yield path
    sock.close()


# -- claim_path ------------------------------------------------------------------------------


def test_missing_path_is_free(short_dir: Path) -> None:
    path = short_dir / "s.sock"
    claim_path(path)
    assert not path.exists()


def test_stale_socket_is_removed(short_dir: Path) -> None:
    path = short_dir / "s.sock"
    stale_socket(path)
    assert is_socket(path)
    claim_path(path)
    assert gone(path)


def test_live_socket_is_refused_and_left_in_place(live_socket: Path) -> None:
    with pytest.raises(AlreadyServingError, match="already listening"):
        claim_path(live_socket)
    assert is_socket(live_socket)
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with probe:
        probe.connect(os.fspath(live_socket))  # still the listener's


def test_already_serving_is_a_data_dir_error() -> None:
    assert issubclass(AlreadyServingError, DataDirError)
    assert AlreadyServingError.code == DataDirError.code


def test_regular_file_is_refused_and_kept(short_dir: Path) -> None:
    path = short_dir / "s.sock"
    path.write_text("my notes")
    with pytest.raises(DataDirError, match="not a socket") as caught:
        claim_path(path)
    assert not isinstance(caught.value, AlreadyServingError)
    assert path.read_text() == "my notes"


def test_directory_is_refused_and_kept(short_dir: Path) -> None:
    path = short_dir / "s.sock"
    path.mkdir()
    with pytest.raises(DataDirError, match="not a socket"):
        claim_path(path)
    assert path.is_dir()


def test_symlink_to_a_stale_socket_is_refused_and_neither_is_removed(short_dir: Path) -> None:
    target = short_dir / "target.sock"
    stale_socket(target)
    link = short_dir / "s.sock"
    link.symlink_to(target)
    with pytest.raises(DataDirError, match="not a socket"):
        claim_path(link)
    assert link.is_symlink()
    assert is_socket(target)


def test_path_over_107_bytes_is_refused_with_a_clear_message(short_dir: Path) -> None:
    path = short_dir / ("x" * (MAX_PATH_BYTES + 1 - len(os.fsencode(short_dir)) - 1))
    assert len(os.fsencode(path)) == MAX_PATH_BYTES + 1
    with pytest.raises(DataDirError) as caught:
        claim_path(path)
    message = caught.value.message
    assert f"{MAX_PATH_BYTES + 1} bytes" in message
    assert "107" in message
    assert "--socket" in message


def test_path_length_counts_bytes_not_characters(short_dir: Path) -> None:
    name = "é" * ((MAX_PATH_BYTES - len(os.fsencode(short_dir))) // 2 + 1)  # 2 bytes each
    path = short_dir / name
    assert len(str(path)) <= MAX_PATH_BYTES < len(os.fsencode(path))
    with pytest.raises(DataDirError, match="Unix sockets allow 107"):
        claim_path(path)


# -- open_listener and remove_socket ---------------------------------------------------------


async def test_a_path_of_exactly_107_bytes_can_be_served(short_dir: Path) -> None:
    path = short_dir / ("y" * (MAX_PATH_BYTES - len(os.fsencode(short_dir)) - 1))
    assert len(os.fsencode(path)) == MAX_PATH_BYTES
    listener, _ = await open_listener(path)
    async with listener:
        assert is_socket(path)


async def test_open_listener_makes_the_socket_0600_whatever_the_umask(short_dir: Path) -> None:
    path = short_dir / "s.sock"
    old_umask = os.umask(0)
    try:
        listener, inode = await open_listener(path)
        umask_after = os.umask(0)
    finally:
        os.umask(old_umask)
    async with listener:
        assert mode(path) == 0o600
        assert os.stat(path).st_ino == inode
    assert umask_after == 0  # the caller's umask is given back


async def test_open_listener_creates_a_private_parent(short_dir: Path) -> None:
    path = short_dir / "run" / "zettelclaw" / "s.sock"
    listener, _ = await open_listener(path)
    async with listener:
        assert mode(path.parent) == 0o700
        assert mode(path) == 0o600


async def test_open_listener_replaces_a_stale_socket_and_accepts(short_dir: Path) -> None:
    path = short_dir / "s.sock"
    stale_socket(path)
    listener, _ = await open_listener(path)
    async with listener:
        client = await trio.open_unix_socket(os.fspath(path))
        server = await listener.accept()
        async with client, server:
            await client.send_all(b"ping")
            assert await server.receive_some(4) == b"ping"


async def test_open_listener_refuses_a_live_socket(live_socket: Path) -> None:
    with pytest.raises(AlreadyServingError):
        await open_listener(live_socket)
    assert is_socket(live_socket)


async def test_remove_socket_removes_only_our_own(short_dir: Path) -> None:
    path = short_dir / "s.sock"
    listener, inode = await open_listener(path)
    await listener.aclose()
    remove_socket(path, inode)
    assert gone(path)
    remove_socket(path, inode)  # already gone: fine

    listener, inode = await open_listener(path)
    await listener.aclose()
    other = short_dir / "other.sock"
    stale_socket(other)  # made while ours exists, so it has another inode
    other.rename(path)  # another sidecar's socket now stands at the path
    remove_socket(path, inode)
    assert is_socket(path)
    assert os.stat(path).st_ino != inode


# -- who may connect -------------------------------------------------------------------------


def test_peer_allowed_is_the_own_uid_only() -> None:
    assert peer_allowed(os.getuid())
    assert not peer_allowed(os.getuid() + 1)
    assert not peer_allowed(65534)
    if os.getuid() != 0:
        assert not peer_allowed(0)  # root gets no exception either way


async def test_peer_uid_reads_the_connecting_process_uid() -> None:
    a, b = trio.socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    async with trio.SocketStream(a) as left, trio.SocketStream(b) as right:
        assert peer_uid(left) == os.getuid()
        assert peer_uid(right) == os.getuid()
