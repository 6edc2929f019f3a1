"""A real Postgres 15 for the tests: initdb in a temp dir, started and stopped with pg_ctl.

The machine's binaries (``/usr/lib/postgresql/15/bin``, ``/usr/local/bin``, PATH); scripts/test
installs ``postgresql-15`` when they are missing. Postgres refuses to run as root: as root, the
server runs as the ``postgres`` user (or ``nobody``) on a directory it owns. It listens on a Unix
socket in that directory only (no TCP port to collide with other tests). ``pg_ctl -w`` waits
until the server accepts connections; no fixed sleep.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

BIN_DIRS = ("/usr/lib/postgresql/15/bin", "/usr/local/bin")


def pg_bin(name: str) -> str | None:
    for directory in BIN_DIRS:
        candidate = Path(directory) / name
        if candidate.exists():
            return str(candidate)
    return shutil.which(name)


def _runner() -> pwd.struct_passwd | None:
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise RuntimeError("running as root and no 'postgres' or 'nobody' user to run Postgres as")


class PgServer:
    """One Postgres cluster in a temp dir; ``dsn`` for any database and role."""

    def __init__(self, *, fsync: bool = False) -> None:
        initdb, self.pg_ctl = pg_bin("initdb"), pg_bin("pg_ctl")
        if initdb is None or self.pg_ctl is None:
            raise RuntimeError("Postgres 15 binaries not found (initdb, pg_ctl): "
                               "apt-get install postgresql-15")
        # short: a Unix socket's path must fit in 107 bytes
        self.root = Path(tempfile.mkdtemp(prefix="zcpg-", dir="/tmp"))
        self.data = self.root / "data"
        self.user = _runner()
        if self.user is not None:
            os.chown(self.root, self.user.pw_uid, self.user.pw_gid)
        self.superuser = "zc_super"
        self._run([initdb, "-D", str(self.data), "-U", self.superuser, "-A", "trust",
                   "-E", "UTF8", "--no-sync"])
        settings = [f"unix_socket_directories = '{self.root}'", "listen_addresses = ''",
                    "max_connections = 200", "shared_buffers = 32MB"]
        if not fsync:
            settings += ["fsync = off", "synchronous_commit = off", "full_page_writes = off"]
        with open(self.data / "postgresql.conf", "a", encoding="utf-8") as conf:
            conf.write("\n".join(settings) + "\n")
        self.start()

    def _run(self, argv: list[str]) -> None:
        def demote() -> None:
            if self.user is not None:
                os.setgid(self.user.pw_gid)
                os.setuid(self.user.pw_uid)
        subprocess.run(argv, check=True, capture_output=True, preexec_fn=demote,
                       cwd=self.root)

    def start(self) -> None:
        assert self.pg_ctl is not None
        self._run([self.pg_ctl, "-D", str(self.data), "-l", str(self.root / "server.log"),
                   "-w", "-t", "60", "start"])

    def stop(self) -> None:
        assert self.pg_ctl is not None
        self._run([self.pg_ctl, "-D", str(self.data), "-m", "fast", "-w", "stop"])

    def dsn(self, dbname: str = "postgres", user: str | None = None) -> str:
        return f"host={self.root} port=5432 dbname={dbname} user={user or self.superuser}"

    def sql(self, statement: str, dbname: str = "postgres") -> None:
        import psycopg
        with psycopg.connect(self.dsn(dbname), autocommit=True) as conn:
            conn.execute(statement)

    def close(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):  # stopped already
            self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgServer]:
    server = PgServer()
    try:
        yield server
    finally:
        server.close()


_counter = iter(range(1_000_000))


@pytest.fixture
def pg_team(pg_cluster: PgServer) -> tuple[PgServer, str]:
    """A new database on the session's server, and a name prefix for its roles (roles are the
    cluster's: each test makes its own)."""
    name = f"team{os.getpid()}_{next(_counter)}"
    pg_cluster.sql(f"CREATE DATABASE {name}")
    return pg_cluster, name
