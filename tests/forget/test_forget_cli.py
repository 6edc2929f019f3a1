"""`zettelclaw forget` (files mode: no sidecar answers): dry run, hide, undo, purge."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.conftest import entry
from tests.timing import scaled

pytestmark = pytest.mark.slow  # a `zettelclaw` process a command: 15-25 s a test

ZETTELCLAW = Path(sys.executable).parent / "zettelclaw"


def run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZETTELCLAW_", "OPENCLAW_"))}
    env["ZETTELCLAW_SEARCH_SEMANTIC"] = "off"
    return subprocess.run([os.fspath(ZETTELCLAW), *args, "--home", str(tmp_path / "home"),
                           "--socket", str(tmp_path / "none.sock"),
                           "--workspace", str(tmp_path / "ws")],
                          capture_output=True, text=True, env=env, timeout=scaled(120), check=False)


def test_forget_from_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "home").mkdir(mode=0o700)
    keep = entry("fact", "the fig tree needs water weekly", session="s-1")
    gone = entry("fact", "the spare key is under the zucchini pot", session="s-2")
    log = tmp_path / "home" / "log.jsonl"
    log.write_bytes(orjson.dumps(keep) + b"\n" + orjson.dumps(gone) + b"\n")

    dry = run(tmp_path, "forget", "--text", "Zucchini", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert gone["id"] in dry.stdout
    assert keep["id"] not in dry.stdout
    assert "would be hidden; nothing changed" in dry.stdout
    assert log.read_bytes().count(b"\n") == 2

    hid = run(tmp_path, "forget", gone["id"])
    assert "1 entry hidden" in hid.stdout
    assert f"undo: zettelclaw forget --undo {gone['id']}" in hid.stdout
    found = run(tmp_path, "search", "zucchini", "--json").stdout
    assert orjson.loads(found)["results"] == []

    back = run(tmp_path, "forget", "--undo", gone["id"])
    assert "1 entry given back" in back.stdout
    assert orjson.loads(run(tmp_path, "search", "zucchini", "--json").stdout)["results"]

    purged = run(tmp_path, "forget", "--session", "s-2", "--purge", "--json")
    assert purged.returncode == 0, purged.stderr
    assert orjson.loads(purged.stdout)["removed"]["log"]["lines"] == 1
    assert b"zucchini" not in log.read_bytes()
    assert keep["id"].encode() in log.read_bytes()


def test_remember_receipts_and_trace_from_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "home").mkdir(mode=0o700)
    said = run(tmp_path, "remember", "fact", "the", "boiler", "is", "serviced", "in", "May",
               "--subject", "house", "--json")
    assert said.returncode == 0, said.stderr
    receipt = orjson.loads(said.stdout)
    assert receipt["entry"]["content"] == "the boiler is serviced in May"
    listed = run(tmp_path, "receipts")
    assert receipt["id"] in listed.stdout
    assert "(remember, told)" in listed.stdout
    assert run(tmp_path, "trace").stdout.strip() == "no turn was given anything yet"
