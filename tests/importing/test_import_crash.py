"""An import under kill -9: the CLI (in files mode, the import in its own process) dies at each
point of an import (failpoints), is run again, and finishes it: every note is in the log once,
every conversation spooled once, the import's manifest complete; its rollback removes it all."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.timing import scaled
from zettelclaw import failpoints

ZETTELCLAW = str(Path(sys.executable).parent / "zettelclaw")
NOTE_POINTS = ["import-after-manifest", "import-after-append", "torn-append"]
CONVERSATION_POINTS = ["import-after-manifest", "after-spool", "after-provenance",
                       "import-after-spool"]


def test_every_import_point_is_tried() -> None:
    assert set(failpoints.IMPORT_POINTS) <= set(NOTE_POINTS) | set(CONVERSATION_POINTS)


def source(tmp_path: Path, what: str) -> Path:
    ws = tmp_path / f"source-{what}"
    (ws / "memory").mkdir(parents=True)
    for day in (1, 2, 3):
        lines = ([f"- note {n} of day {day}" for n in range(4)] if what == "notes"
                 else [f"Prose of day {day}: the project moved to a new host."])
        (ws / "memory" / f"2026-04-{day:02d}.md").write_text("\n".join(lines) + "\n")
    return ws


def run(home: Path, ws: Path, *args: str, failpoint: str | None = None
        ) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZETTELCLAW_")}
    (home / "ws").mkdir(parents=True, exist_ok=True)
    if failpoint:
        env[failpoints.ENV] = failpoint
    return subprocess.run([ZETTELCLAW, "--home", str(home), "--workspace", str(home / "ws"),
                           "--no-sidecar", "import", *args, str(ws)], env=env,
                          capture_output=True, timeout=scaled(120), check=False)


def log_entries(home: Path) -> list[dict[str, Any]]:
    if not (home / "log.jsonl").exists():
        return []
    found = []
    for line in (home / "log.jsonl").read_bytes().splitlines():
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue  # a line torn by the kill, kept as an invalid line
        if isinstance(value, dict) and "content" in value:
            found.append(value)
    return found


def spool(home: Path) -> list[dict[str, Any]]:
    return [orjson.loads(p.read_bytes()) for p in sorted((home / "spool").glob("*.json"))]


@pytest.mark.slow
@pytest.mark.parametrize(("what", "point"), [*(("notes", p) for p in NOTE_POINTS),
                                             *(("conversations", p)
                                               for p in CONVERSATION_POINTS)])
def test_a_kill_at_each_point_then_the_import_goes_on(tmp_path: Path, what: str,
                                                      point: str) -> None:
    home = tmp_path / "home"
    ws = source(tmp_path, what)
    killed = run(home, ws, "--apply", failpoint=point)
    assert killed.returncode == -signal.SIGKILL, killed.stderr.decode()
    finished = run(home, ws, "--apply", "--json")
    assert finished.returncode == 0, finished.stderr.decode()
    result = orjson.loads(finished.stdout)
    assert result["state"] == "done"
    manifests = list((home / "imports").glob("*.json"))
    assert len(manifests) == 1  # the same import went on
    assert result["importId"] == manifests[0].stem
    contents = [e["content"] for e in log_entries(home)]
    if what == "notes":
        assert sorted(contents) == sorted(f"note {n} of day {d}" for n in range(4)
                                          for d in (1, 2, 3))
        assert result["notes"] == 12
    else:
        jobs = spool(home)
        assert len(jobs) == 3  # each conversation spooled once
        assert len({j["sessionId"] for j in jobs}) == 3
        assert {j["entriesAt"][:10] for j in jobs} == {"2026-04-01", "2026-04-02",
                                                     "2026-04-03"}
    again = run(home, ws, "--apply", "--json")
    assert orjson.loads(again.stdout)["importId"] is None  # nothing new
    rolled = subprocess.run([ZETTELCLAW, "--home", str(home), "--workspace", str(home / "ws"),
                             "--no-sidecar", "import", "--rollback", result["importId"]],
                            capture_output=True, timeout=scaled(120), check=False)
    assert rolled.returncode == 0, rolled.stderr.decode()
    assert log_entries(home) == []
    assert spool(home) == []
