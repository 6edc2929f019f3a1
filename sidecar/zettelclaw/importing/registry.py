"""Which reader reads which kind of source, and which kind a path is.

A reader is a module of ``importing/sources/`` with ``read(path) -> Iterator[Item]`` (the
OpenClaw reader also takes ``agent=``). Modules are imported when used, by name: a kind whose
module is not in this installation (a reader still being written) is reported, not fatal.
Adding a reader is one line in ``KINDS`` (and, if its files can be told apart, one rule in
``detect``).
"""

from __future__ import annotations

import importlib
import inspect
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from zettelclaw.errors import InvalidParamsError
from zettelclaw.importing.items import Item
from zettelclaw.safe_open import regular_stream

SOURCES = "zettelclaw.importing.sources"
KINDS: dict[str, str] = {
    "openclaw": f"{SOURCES}.openclaw_sessions",  # OpenClaw's past sessions (per agent)
    "memory-core": f"{SOURCES}.memory_core",  # MEMORY.md and memory/YYYY-MM-DD.md
    "chatgpt": f"{SOURCES}.chatgpt",  # a ChatGPT export (zip or conversations.json)
    "claude": f"{SOURCES}.claude",  # a Claude export (zip or conversations.json)
    "clawvault": f"{SOURCES}.clawvault",  # a ClawVault vault
}

Reader = Callable[..., Iterator[Item]]


def _invalid(message: str, field: str = "kind") -> InvalidParamsError:
    return InvalidParamsError(message, [{"field": field, "message": message,
                                         "type": "value_error"}])


def reader(kind: str) -> Reader:
    """``kind``'s ``read``; InvalidParamsError for a kind unknown or not installed."""
    name = KINDS.get(kind)
    if name is None:
        raise _invalid(f"unknown source kind {kind!r} (known: {', '.join(KINDS)})")
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        raise _invalid(f"this Zettelclaw has no reader for {kind} sources yet") from None
    read: Reader = module.read
    return read


def read(kind: str, path: Path, *, agent: str) -> Iterator[Item]:
    """The items of ``path`` as a ``kind`` source (``agent`` for the readers that take one)."""
    fn = reader(kind)
    kwargs: dict[str, Any] = {}
    if "agent" in inspect.signature(fn).parameters:
        kwargs["agent"] = agent
    return fn(path, **kwargs)


def detect(path: Path) -> str:
    """The kind of source ``path`` is, by what it holds; InvalidParamsError naming it if none.

    The readers that can tell their own files (``detect`` in their module: the exports and the
    vault) are asked first, in ``KINDS``' order; OpenClaw's store and memory-core's files are
    told by their names here, since their readers take any such path."""
    if not path.exists():
        raise _invalid(f"{path}: no such file or directory", "path")
    for kind, name in KINDS.items():
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        tell: Callable[[Path], str | None] | None = getattr(module, "detect", None)
        if tell is not None and tell(path) == kind:
            return kind
    found = _dir_kind(path) if path.is_dir() else _file_kind(path)
    if found is None:
        raise _invalid(f"{path}: cannot tell what kind of source this is (a ChatGPT or Claude "
                       "export's zip or conversations.json, a ClawVault vault, an OpenClaw "
                       "state folder or session store, a workspace with MEMORY.md or memory/); "
                       f"name it: zettelclaw import KIND PATH (KIND one of {', '.join(KINDS)})",
                       "path")
    return found


def _dir_kind(path: Path) -> str | None:
    if (path / "agents").is_dir() or (path / "openclaw-agent.sqlite").exists() or \
            (path / "agent" / "openclaw-agent.sqlite").exists():
        return "openclaw"
    if (path / "MEMORY.md").is_file() or (path / "memory").is_dir():
        return "memory-core"
    return None


def _file_kind(path: Path) -> str | None:
    if path.suffix == ".sqlite":
        return "openclaw"
    if path.suffix == ".md":
        return "memory-core"
    if path.suffix in (".zip", ".json"):
        raise _invalid(_not_an_export(path), "path")
    return None


def _not_an_export(path: Path) -> str:
    """Why a zip or JSON file no export reader claimed is not one, for the message."""
    if path.suffix == ".zip":
        try:
            with regular_stream(path) as stream, zipfile.ZipFile(stream) as archive:
                names = archive.namelist()
        except (zipfile.BadZipFile, OSError) as exc:
            return f"{path}: not a readable zip ({exc}); download the export again"
        if not any(n.rsplit("/", 1)[-1].startswith("conversations") for n in names):
            return f"{path}: the zip holds no conversations.json (not a ChatGPT or Claude export)"
    return (f"{path}: a JSON file of neither a ChatGPT export (conversations with \"mapping\") "
            "nor a Claude export (conversations with \"chat_messages\")")
