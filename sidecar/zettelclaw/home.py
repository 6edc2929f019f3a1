"""Where Zettelclaw keeps its data, and making sure that place is the user's alone.

Resolution order for the data directory: ``--home``, then ``$ZETTELCLAW_HOME``, then
``OPENCLAW_STATE/zettelclaw``. The workspace (where MEMORY.md and ``memory/*.md`` live) follows
the same pattern with ``--workspace``, ``$ZETTELCLAW_WORKSPACE``, ``OPENCLAW_STATE/workspace``.

``OPENCLAW_STATE`` is OpenClaw's state directory, by OpenClaw's own rule (2026.9: its
docs/help/environment.md, dist ``resolveStateDir``): ``$OPENCLAW_STATE_DIR``, else
``OPENCLAW_HOME/.openclaw``, where ``OPENCLAW_HOME`` is ``$OPENCLAW_HOME`` (a leading ``~``
expanded with the OS home; blank, ``undefined`` and ``null`` count as unset), else the OS home
(``$HOME``). In ``$OPENCLAW_STATE_DIR`` and ``$OPENCLAW_CONFIG_PATH`` a leading ``~`` is
``OPENCLAW_HOME``, as OpenClaw reads them. Every lookup of OpenClaw's files goes through here.
The plugin computes the same (clients/openclaw/src/settings.ts): tests/cases/openclaw_paths.json
is the one table both are held to (tests/openclaw/test_shared_cases.py).
"""

from __future__ import annotations

import errno
import logging
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from zettelclaw.errors import DataDirError

logger = logging.getLogger(__name__)

DIR_MODE = 0o700
FILE_MODE = 0o600


def _set(value: str | None) -> str | None:
    trimmed = (value or "").strip()
    return trimmed if trimmed and trimmed not in ("undefined", "null") else None


def _os_home(env: Mapping[str, str]) -> Path:
    found = _set(env.get("HOME")) or _set(env.get("USERPROFILE"))
    return Path(found).absolute() if found else Path.home()


def _tilde(value: str, home: Path) -> Path:
    """``value`` with a leading ``~`` (alone or before a separator) replaced by ``home``."""
    if value == "~" or value.startswith(("~/", "~\\")):
        return (home / value[2:]).absolute() if len(value) > 1 else home
    return Path(value).absolute()


def resolve_openclaw_home(env: Mapping[str, str]) -> Path:
    """The home OpenClaw's default paths are under: ``$OPENCLAW_HOME``, else the OS home."""
    explicit = _set(env.get("OPENCLAW_HOME"))
    return _tilde(explicit, _os_home(env)) if explicit else _os_home(env)


def resolve_openclaw_path(value: str, env: Mapping[str, str]) -> Path:
    """A path OpenClaw reads from its environment (``$OPENCLAW_STATE_DIR``,
    ``$OPENCLAW_CONFIG_PATH``): trimmed, a leading ``~`` being OpenClaw's home."""
    return _tilde(value.strip(), resolve_openclaw_home(env))


def resolve_openclaw_state_dir(env: Mapping[str, str]) -> Path:
    """OpenClaw's state directory: ``$OPENCLAW_STATE_DIR``, else ``OPENCLAW_HOME/.openclaw``."""
    state = (env.get("OPENCLAW_STATE_DIR") or "").strip()
    return resolve_openclaw_path(state, env) if state else \
        resolve_openclaw_home(env) / ".openclaw"


def resolve_home(explicit: str | os.PathLike[str] | None, env: Mapping[str, str]) -> Path:
    if explicit:
        return Path(explicit).expanduser().absolute()
    if env.get("ZETTELCLAW_HOME"):
        return Path(env["ZETTELCLAW_HOME"]).expanduser().absolute()
    return (resolve_openclaw_state_dir(env) / "zettelclaw").absolute()


def resolve_workspace(explicit: str | os.PathLike[str] | None, env: Mapping[str, str]) -> Path:
    if explicit:
        return Path(explicit).expanduser().absolute()
    if env.get("ZETTELCLAW_WORKSPACE"):
        return Path(env["ZETTELCLAW_WORKSPACE"]).expanduser().absolute()
    return (resolve_openclaw_state_dir(env) / "workspace").absolute()


@dataclass(frozen=True)
class Home:
    """The data directory and the files in it."""

    root: Path

    @property
    def log(self) -> Path:
        return self.root / "log.jsonl"

    @property
    def subjects(self) -> Path:
        return self.root / "subjects.json"

    @property
    def state(self) -> Path:
        return self.root / "state.json"

    @property
    def index(self) -> Path:
        return self.root / "index.sqlite"

    @property
    def terms(self) -> Path:
        return self.root / "terms"

    @property
    def lock(self) -> Path:
        return self.root / "lock"

    @property
    def serve_lock(self) -> Path:
        return self.root / "serve.lock"

    @property
    def default_socket(self) -> Path:
        return self.root / "sidecar.sock"

    def ensure(self) -> None:
        """Create the directory (0700) and an empty log (0600) if missing.

        An existing directory that others can read is tightened to 0700, with a warning: the
        log holds a person's private memory. A directory owned by another user is refused (they
        could read or replace it), and so is a log that is not a regular file of its own (a
        symbolic link could send the memory anywhere).
        """
        try:
            self.root.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
            st = self.root.stat()
            if st.st_uid != os.getuid():
                raise DataDirError(
                    f"{self.root} is owned by uid {st.st_uid}, not by you (uid {os.getuid()}): "
                    "your memory must not live where another user controls it; choose another "
                    "--home or ZETTELCLAW_HOME")
            mode = stat.S_IMODE(st.st_mode)
            if mode & 0o077:
                logger.warning("%s was mode %o; tightening it to 0700", self.root, mode)
                self.root.chmod(DIR_MODE)
            try:
                fd = os.open(self.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW
                             | os.O_NONBLOCK, FILE_MODE)
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise DataDirError(
                        f"{self.log} is a symbolic link: the log must be a regular file in the "
                        "data directory; put the file itself there") from None
                raise
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    raise DataDirError(f"{self.log} is not a regular file")
                mode = stat.S_IMODE(os.fstat(fd).st_mode)
                if mode & 0o077:
                    logger.warning("%s was mode %o; tightening it to 0600", self.log, mode)
                    os.fchmod(fd, FILE_MODE)
            finally:
                os.close(fd)
        except OSError as exc:
            raise DataDirError(f"cannot use data directory {self.root}: {exc.strerror}") from exc

    def exists(self) -> bool:
        return self.log.exists()


def ensure_workspace(workspace: Path, *, explicit: bool) -> None:
    """Create the workspace (0700) when it is missing, so that a first start on a new machine
    has somewhere to write MEMORY.md.

    The default workspace is created with its parents (``~/.openclaw`` on a new machine). One
    given by ``--workspace`` or ``$ZETTELCLAW_WORKSPACE`` is created only when its parent exists:
    a typo in a path should not grow a tree of directories; the error says how to fix it.
    """
    if workspace.is_dir():
        return
    if explicit and not workspace.parent.is_dir():
        raise DataDirError(f"the workspace {workspace} does not exist, nor does its parent: "
                           "create it, or pass --workspace DIR (or set ZETTELCLAW_WORKSPACE)")
    try:
        workspace.mkdir(mode=DIR_MODE, parents=not explicit, exist_ok=True)
    except OSError as exc:
        raise DataDirError(f"cannot create the workspace {workspace}: {exc.strerror}; pass "
                           "--workspace DIR (or set ZETTELCLAW_WORKSPACE)") from exc
    logger.info("created the workspace %s", workspace)
