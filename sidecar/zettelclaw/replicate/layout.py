"""The sync repository's files. Each machine writes only its own; git never merges a line.

::

    zettelclaw-sync.json           what it is: {"format": 1, "recipient": the age key or null}
    machines/<machine>/000001.jsonl  a machine's lines, append-only, in segments of about
                                   SEGMENT_BYTES (a push stores the last segment again, not
                                   the whole history of the machine); a line is an entry, a hide
                                   record, or ``age:`` and a sealed batch of them (crypt.py)
    purges/<purge>.json            a purge: the ids it removed (never their text), by whom, when
    acks/<machine>.json            the purges a machine has applied: {purge id: when}; there
                                   from its first sync, so every machine is known

Nothing else travels: extracted sessions, jobs, the spool, transcript copies and indexes are
each machine's own (they stay in the data directory, outside the repository).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import orjson
from pyrage import x25519

from zettelclaw.errors import SyncError
from zettelclaw.files import write_all
from zettelclaw.home import DIR_MODE, FILE_MODE
from zettelclaw.replicate import crypt

MARKER = "zettelclaw-sync.json"
FORMAT = 1
SEGMENT_BYTES = 256 << 10
SEAL_BYTES = 64 << 10  # plain bytes per sealed batch at most
SEQ_LINE = 1 << 20  # a ForeignLine's seq: segment, line, place in a sealed batch


def machine_dir(repo: Path, machine: str) -> Path:
    return repo / "machines" / machine


def segments(repo: Path, machine: str) -> list[Path]:
    directory = machine_dir(repo, machine)
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir() if p.suffix == ".jsonl" and p.stem.isdigit())


def machines(repo: Path) -> list[str]:
    root = repo / "machines"
    return sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


@dataclass(frozen=True)
class Marker:
    recipient: str | None


def read_marker(repo: Path) -> Marker | None:
    try:
        value = orjson.loads((repo / MARKER).read_bytes())
    except FileNotFoundError:
        return None
    except orjson.JSONDecodeError as exc:
        raise SyncError(f"the sync repository's {MARKER} is not JSON ({exc})") from None
    if not isinstance(value, dict) or value.get("format") != FORMAT:
        raise SyncError(f"the sync repository's {MARKER} is of an unknown format; "
                        "upgrade zettelclaw")
    found = value.get("recipient")
    return Marker(found if isinstance(found, str) else None)


def write_marker(repo: Path, recipient: str | None) -> None:
    _write(repo / MARKER, orjson.dumps({"format": FORMAT, "recipient": recipient},
                                             option=orjson.OPT_INDENT_2) + b"\n")


def read_new(path: Path, offset: int, identity: x25519.Identity | None, segment: int,
             first_line: int) -> tuple[list[tuple[int, bytes]], int, int]:
    """The lines of ``path`` after byte ``offset`` (whole lines only), each with its seq, the
    new offset and the new count of file lines read."""
    with open(path, "rb") as f:
        f.seek(offset)
        data = f.read()
    end = data.rfind(b"\n") + 1
    found: list[tuple[int, bytes]] = []
    number = first_line
    for raw in data[:end].split(b"\n")[:-1]:
        number += 1
        if not raw.strip():
            continue
        for place, line in enumerate(crypt.unseal(raw, identity, str(path.name))):
            found.append(((segment * SEQ_LINE + number) * SEQ_LINE + place, line))
    return found, offset + end, number


def ids_in(path: Path, identity: x25519.Identity | None) -> set[str]:
    found: set[str] = set()
    lines, _, _ = read_new(path, 0, identity, 0, 0)
    for _, line in lines:
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict) and isinstance(value.get("id"), str):
            found.add(value["id"])
    return found


def append_own(repo: Path, machine: str, lines: list[bytes],
               identity: x25519.Identity | None) -> int:
    """Append ``lines`` to this machine's last segment (a new one when it is full), sealed in
    batches when there is a key. Returns the bytes written."""
    directory = machine_dir(repo, machine)
    directory.parent.mkdir(mode=DIR_MODE, exist_ok=True)
    directory.mkdir(mode=DIR_MODE, exist_ok=True)
    written = 0
    pending = list(lines)
    while pending:
        existing = segments(repo, machine)
        path = existing[-1] if existing else directory / "000001.jsonl"
        size = path.stat().st_size if path.exists() else 0
        if size >= SEGMENT_BYTES:
            path = directory / f"{int(path.stem) + 1:06d}.jsonl"
            size = 0
        room = max(SEGMENT_BYTES - size, 1)
        chunk: list[bytes] = []
        used = 0
        while pending and (not chunk or used + len(pending[0]) < room):
            used += len(pending[0]) + 1
            chunk.append(pending.pop(0))
        if identity is None:
            data = b"".join(line + b"\n" for line in chunk)
        else:
            data = b"".join(crypt.seal(batch, identity) + b"\n"
                            for batch in _batches(chunk, SEAL_BYTES))
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
        try:
            write_all(fd, data)
        finally:
            os.close(fd)
        written += len(data)
    return written


def _batches(lines: list[bytes], limit: int) -> list[list[bytes]]:
    out: list[list[bytes]] = [[]]
    used = 0
    for line in lines:
        if out[-1] and used + len(line) > limit:
            out.append([])
            used = 0
        out[-1].append(line)
        used += len(line) + 1
    return out


@dataclass(frozen=True)
class Purge:
    id: str
    ids: list[str]
    machine: str
    at: str


def purges(repo: Path) -> list[Purge]:
    root = repo / "purges"
    found: list[Purge] = []
    if not root.is_dir():
        return found
    for path in sorted(root.glob("*.json")):
        try:
            value = orjson.loads(path.read_bytes())
            found.append(Purge(str(value["id"]), [str(i) for i in value["ids"]],
                               str(value["machine"]), str(value["at"])))
        except (orjson.JSONDecodeError, KeyError, TypeError) as exc:
            raise SyncError(f"the sync repository's {path.name} is not a purge record "
                            f"({exc})") from None
    return found


def write_purge(repo: Path, purge: Purge) -> None:
    root = repo / "purges"
    root.mkdir(mode=DIR_MODE, exist_ok=True)
    _write(root / f"{purge.id}.json", orjson.dumps(
        {"id": purge.id, "ids": sorted(purge.ids), "machine": purge.machine, "at": purge.at},
        option=orjson.OPT_INDENT_2) + b"\n")


def acks(repo: Path) -> dict[str, dict[str, str]]:
    """machine -> {purge id: when it applied it}."""
    root = repo / "acks"
    found: dict[str, dict[str, str]] = {}
    if root.is_dir():
        for path in sorted(root.glob("*.json")):
            try:
                value = orjson.loads(path.read_bytes())
            except orjson.JSONDecodeError:
                continue
            if isinstance(value, dict):
                found[path.stem] = {str(k): str(v) for k, v in value.items()}
    return found


def announce(repo: Path, machine: str) -> None:
    """Make this machine known to the others (its acks file, empty at first), so that a purge
    waits for its confirmation even before it has written a line."""
    path = repo / "acks" / f"{machine}.json"
    if not path.exists():
        path.parent.mkdir(mode=DIR_MODE, exist_ok=True)
        _write(path, b"{}\n")


def write_ack(repo: Path, machine: str, purge_id: str, at: str) -> None:
    root = repo / "acks"
    root.mkdir(mode=DIR_MODE, exist_ok=True)
    mine = acks(repo).get(machine, {})
    mine[purge_id] = at
    _write(root / f"{machine}.json", orjson.dumps(
        dict(sorted(mine.items())), option=orjson.OPT_INDENT_2) + b"\n")


def _write(path: Path, data: bytes) -> None:
    """A file of the clone, replaced whole (git commits it; a crash leaves the last commit's)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    try:
        write_all(fd, data)
    finally:
        os.close(fd)
