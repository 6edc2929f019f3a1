"""Rewriting the sync repository's history without purged entries: git-filter-repo.

Run as a process of its own in the repository (``python -m zettelclaw.replicate.rewrite
DATA_DIR IDS_FILE``, cwd the repository): git-filter-repo works on the current directory, which
a thread of the sidecar must not change. Every version of every file loses the lines of the
purged ids: a plain line that is an entry or hide record with such an id, and inside a sealed
batch the same lines (the batch sealed again without them; dropped when nothing is left).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import git_filter_repo as fr
import orjson
from pyrage import x25519

from zettelclaw.home import Home
from zettelclaw.replicate import crypt


class Dropper:
    def __init__(self, ids: frozenset[str], identity: x25519.Identity | None) -> None:
        self.ids = ids
        self.identity = identity
        self._sealed: dict[bytes, bytes | None] = {}  # a sealed line -> what it becomes
        self.dropped = 0

    def blob(self, blob: Any, _metadata: Any) -> None:
        data: bytes = blob.data
        if not any(i.encode() in data for i in self.ids) and crypt.PREFIX not in data:
            return
        out: list[bytes] = []
        for line in data.split(b"\n"):
            kept = self.line(line)
            if kept is not None:
                out.append(kept)
        blob.data = b"\n".join(out)

    def line(self, line: bytes) -> bytes | None:
        if line.startswith(crypt.PREFIX) and self.identity is not None:
            if line not in self._sealed:
                inner = crypt.unseal(line, self.identity, "the sync repository")
                kept = [one for one in inner if not self.purged(one)]
                self._sealed[line] = line if len(kept) == len(inner) else (
                    crypt.seal(kept, self.identity) if kept else None)
                self.dropped += len(inner) - len(kept)
            return self._sealed[line]
        if self.purged(line):
            self.dropped += 1
            return None
        return line

    def purged(self, line: bytes) -> bool:
        if not line.startswith(b"{"):
            return False
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            return False
        return isinstance(value, dict) and value.get("id") in self.ids


def main(argv: list[str]) -> int:
    home, ids_file = Home(Path(argv[0])), Path(argv[1])
    ids = frozenset(ids_file.read_text().split())
    dropper = Dropper(ids, crypt.load(home))
    args = fr.FilteringOptions.parse_args(["--force", "--quiet", "--partial"])
    fr.RepoFilter(args, blob_callback=dropper.blob).run()
    print(dropper.dropped)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
