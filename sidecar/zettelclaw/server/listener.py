"""The Unix socket: claiming its path safely, binding it for the user alone, and who may connect.

A socket file left by a crash is replaced; one that a live process answers on is never taken
over, and a path that is not a socket is never deleted. The socket is created 0600 (under a
umask, so there is no moment at which it is wider) and every connection's peer uid is checked
with SO_PEERCRED: the filesystem permission is the first wall, the uid check the second.
"""

from __future__ import annotations

import errno
import os
import socket
import stat
import struct
from pathlib import Path

import trio

from zettelclaw.errors import EXIT_CONFLICT, DataDirError

MAX_PATH_BYTES = 107  # sun_path is 108 bytes with its terminating NUL on Linux
BACKLOG = 128


class AlreadyServingError(DataDirError):
    """Another process answers on the socket, or holds the data directory's serve lock."""

    exit_code = EXIT_CONFLICT


def claim_path(path: Path) -> None:
    """Make ``path`` free for a new socket, or raise saying why it cannot be."""
    if len(os.fsencode(path)) > MAX_PATH_BYTES:
        raise DataDirError(f"socket path is {len(os.fsencode(path))} bytes long; Unix sockets "
                           f"allow {MAX_PATH_BYTES}: choose a shorter --socket ({path})")
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(st.st_mode):
        raise DataDirError(f"{path} exists and is not a socket; refusing to replace it")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(2.0)
    try:
        probe.connect(os.fspath(path))
    except (ConnectionRefusedError, FileNotFoundError):
        path.unlink(missing_ok=True)  # stale: left by a process that died
        return
    except OSError as exc:
        if exc.errno in (errno.ECONNREFUSED, errno.ENOENT):
            path.unlink(missing_ok=True)
            return
        raise DataDirError(f"cannot tell whether {path} is in use: {exc.strerror}") from exc
    finally:
        probe.close()
    raise AlreadyServingError(f"another process is already listening on {path}; "
                              "stop it first, or pass another --socket")


async def open_listener(path: Path) -> tuple[trio.SocketListener, int]:
    """A listening socket at ``path``, mode 0600; returns it with the socket file's inode."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    claim_path(path)
    sock = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)
    try:
        await sock.bind(os.fspath(path))
    except OSError as exc:
        sock.close()
        raise DataDirError(f"cannot bind {path}: {exc.strerror}") from exc
    finally:
        os.umask(old_umask)
    os.chmod(path, 0o600)
    sock.listen(BACKLOG)
    return trio.SocketListener(sock), os.stat(path).st_ino


def remove_socket(path: Path, inode: int) -> None:
    """Remove the socket file, if it is still ours (not replaced by another sidecar)."""
    try:
        if os.lstat(path).st_ino == inode:
            path.unlink()
    except FileNotFoundError:
        pass


def peer_uid(stream: trio.SocketStream) -> int:
    creds = stream.socket.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                     struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return int(uid)


def peer_allowed(uid: int) -> bool:
    """Only the user the sidecar runs as may talk to it (root gets no exception)."""
    return uid == os.getuid()
