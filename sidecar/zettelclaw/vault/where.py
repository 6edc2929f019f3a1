"""Where a vault is: its default folder, the folders it may not be, and starting it over (a build
from scratch, another folder): the build's pages deleted, a folder holding the person's files
moved aside (never deleted), the state forgotten but for the purged block ids."""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path, PurePath

from zettelclaw.errors import InvalidParamsError, PathNotAllowedError
from zettelclaw.home import Home
from zettelclaw.vault import pages
from zettelclaw.vault import purged as remembered
from zettelclaw.vault.memory import Memory
from zettelclaw.vault.state import VaultState, forget, state_dir


def default_root(app: Memory) -> Path:
    """The vault's default place: ``vault/`` in the memory's directory (HOME/vault for main,
    HOME/agents/<id>/vault for others): outside the workspace, so the view is never indexed
    as memory."""
    return app.home.root / "vault"


def check_root(app: Memory, root: Path) -> Path:
    """The vault's folder, absolute. Refused where its pages would be searched as the person's
    memory (the workspace's ``memory/`` and what is in it: ``workspace/memory_files.py``), at the
    workspace itself (beside MEMORY.md) or around it."""
    root = Path(os.path.abspath(root.expanduser()))
    real = root.resolve()
    workspace = app.workspace.resolve()
    memory = workspace / "memory"
    if real in (workspace, memory) or memory in real.parents or real in workspace.parents:
        raise PathNotAllowedError(f"the vault cannot be the workspace {app.workspace}, be in "
                                  "its memory/ or hold it: its pages would be searched as "
                                  "memory")
    return root


def clear(root: Path, state: VaultState | None, force: bool) -> str | None:
    """Empty the vault for a build from scratch: the pages the build wrote are deleted; a
    folder that also holds pages it did not write is refused, or with ``force`` moved aside
    (renamed, nothing deleted). The folder moved to, or None."""
    if not root.exists():
        return None
    ours = set(state.pages) if state is not None else set()
    theirs = sorted(p for p in _files(root) if p not in ours)
    if theirs:
        if not force:
            raise InvalidParamsError(
                f"{root} holds {len(theirs)} file(s) the build did not write (e.g. "
                f"{theirs[0]}); --force moves the whole folder aside first (nothing is "
                "deleted)", {"userFiles": theirs[:20]})
        aside = root.with_name(f"{root.name}.replaced-{datetime.now(UTC):%Y%m%dT%H%M%SZ}")
        os.rename(root, aside)
        return str(aside)
    for rel in ours:
        if pages.page_kind(root, PurePath(rel)) == "file":
            os.unlink(root / rel)
    return None


def _files(root: Path) -> Iterable[str]:
    """Every file under ``root`` (relative), links not followed, Obsidian's own settings
    (``.obsidian/``) left out."""
    for here, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = [d for d in dirs if d != ".obsidian"]
        for name in files:
            yield os.path.relpath(os.path.join(here, name), root)
        for name in dirs:  # a link to a folder is listed in dirs and not walked: a file here
            if os.path.islink(os.path.join(here, name)):
                yield os.path.relpath(os.path.join(here, name), root)


def start_over(home: Home) -> None:
    """The vault state forgotten, but for the purged block ids: they are the memory's, not the
    folder's, and an editor may still save a stale copy of an old page (``purged.py``)."""
    purged = remembered.known(home)
    forget(home)
    if purged:
        state_dir(home).mkdir(mode=0o700, exist_ok=True)
        remembered.remember(home, purged)
