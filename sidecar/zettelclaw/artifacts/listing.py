"""Which public artifacts a memory has, each a file inside its root.

Every path returned is checked inside its root after resolving links (a MEMORY.md or a vault
page that is a link to elsewhere is left out, and counted): a reader told a path reads that
file, so the answer never points outside the workspace, the vault or the memory's directory.

The log's export (``exports/log.json`` in the memory's directory) is written here, under the
data lock, from the index: the current entries (replaced and hidden ones left out, as every
reader sees them), newest first, at most ``EXPORT_ENTRIES``. Its bytes are rewritten only when
they change (a reader that compares times and sizes sees one change per change). A purge
deletes it (``forget/purge.py``) before the index starts over, so no purged text stays in it;
the next listing writes it again.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import orjson

from zettelclaw import lock
from zettelclaw.files import atomic_write_bytes, remove_if_present
from zettelclaw.home import Home
from zettelclaw.index.entries import Filters, counts, entry_dict, filter_entries
from zettelclaw.vault import state as vault_state
from zettelclaw.vault.memory import Memory

Kind = Literal["briefing", "vault-page", "log-export"]
ContentType = Literal["markdown", "json"]

BRIEFING = "MEMORY.md"
EXPORT_DIR = "exports"
EXPORT_FILE = "log.json"
EXPORT_ENTRIES = 1000  # newest current entries: a reader renders the file whole (memory-wiki)
MAX_VAULT_PAGES = 5000  # per memory; more are counted in ``left_out``


@dataclass(frozen=True)
class Artifact:
    kind: Kind
    root: Path  # absolute: the workspace, the vault's folder, the memory's directory
    path: str  # relative to root, with "/"
    content_type: ContentType

    @property
    def absolute(self) -> Path:
        return self.root / self.path


@dataclass
class Found:
    artifacts: list[Artifact]
    left_out: int = 0  # links out of their root, pages past MAX_VAULT_PAGES


def export_path(home: Home) -> Path:
    return home.root / EXPORT_DIR / EXPORT_FILE


def inside(root: Path, relative: str) -> bool:
    """Whether ``root/relative`` is a regular file within ``root`` once links are resolved."""
    try:
        real_root = root.resolve(strict=True)
        real = (root / relative).resolve(strict=True)
    except (OSError, RuntimeError):  # missing, a loop of links
        return False
    return real.is_relative_to(real_root) and real.is_file()


def briefing(workspace: Path) -> Found:
    if not (workspace / BRIEFING).exists():
        return Found([])
    if not inside(workspace, BRIEFING):
        return Found([], 1)
    return Found([Artifact("briefing", workspace, BRIEFING, "markdown")])


def vault_pages(home: Home) -> Found:
    """The pages the last ``vault build`` wrote that are still there (the person's own files
    in the folder are theirs, not the memory's, and are not listed)."""
    state = vault_state.load(home)
    if state is None:
        return Found([])
    root = Path(state.root)
    found = Found([])
    for rel in sorted(state.pages):
        if not inside(root, rel):
            found.left_out += (root / rel).is_symlink()
            continue
        if len(found.artifacts) == MAX_VAULT_PAGES:
            found.left_out += 1
            continue
        found.artifacts.append(Artifact("vault-page", root, rel, "markdown"))
    return found


def export_bytes(app: Memory, agent_ids: list[str]) -> bytes:
    with app.index.read() as conn:
        rows = filter_entries(conn, Filters(), EXPORT_ENTRIES)
        counted = counts(conn)
    current = counted.total - counted.replaced
    document = {"format": "zettelclaw.log-export/1", "agentIds": agent_ids,
                "current": current, "exported": len(rows),
                "entries": [entry_dict(row) for row in rows]}
    return orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"


def log_export(app: Memory, agent_ids: list[str]) -> Found:
    """The export, written when its bytes changed. Under the data lock, which a purge holds
    from the log's rewrite to the index built again: an export is never written from an
    index that still holds purged entries after the purge deleted the last one."""
    if app.freshness.needs_sync():
        app.freshness.sync()
    path = export_path(app.home)
    with lock.exclusive(app.home.lock):
        data = export_bytes(app, agent_ids)
        old = None
        with contextlib.suppress(FileNotFoundError):
            old = path.read_bytes()
        if old != data:
            path.parent.mkdir(mode=0o700, exist_ok=True)
            atomic_write_bytes(path, data)
    return Found([Artifact("log-export", app.home.root, f"{EXPORT_DIR}/{EXPORT_FILE}", "json")])


def remove_export(home: Home) -> bool:
    """The purge's step: the export goes (it may hold the purged entries' text)."""
    return remove_if_present(export_path(home))


def of_memory(app: Memory, agent_ids: list[str]) -> Found:
    found = Found([])
    for part in (briefing(app.workspace), vault_pages(app.home), log_export(app, agent_ids)):
        found.artifacts += part.artifacts
        found.left_out += part.left_out
    return found
