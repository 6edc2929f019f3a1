"""The forget commands' edges, run in this process (files mode): a forget or an undo of an id
the log does not hold fails (exit 3, nothing written); ``get`` of a hidden entry says it is
hidden and how to give it back; a command whose reader leaves early (``| head``) ends
quietly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import entry, line
from zettelclaw.cli.main import main

ZETTELCLAW = Path(sys.executable).parent / "zettelclaw"


@pytest.fixture(autouse=True)
def _no_openclaw_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for var in list(os.environ):
        if var.startswith("OPENCLAW_"):
            monkeypatch.delenv(var)
    monkeypatch.setenv("OPENCLAW_CONFIG_PATH", str(tmp_path / "no-openclaw.json"))
    monkeypatch.setenv("ZETTELCLAW_SEARCH_SEMANTIC", "off")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture
def site(tmp_path: Path) -> list[str]:
    (tmp_path / "ws").mkdir()
    (tmp_path / "data").mkdir(mode=0o700)
    return ["--home", str(tmp_path / "data"), "--workspace", str(tmp_path / "ws"),
            "--no-sidecar"]


def test_forget_and_undo_of_an_unknown_id_exit_3_and_write_nothing(
        capsys: pytest.CaptureFixture[str], site: list[str], tmp_path: Path) -> None:
    kept = entry("fact", "the shed key hangs by the door")
    log = tmp_path / "data" / "log.jsonl"
    log.write_bytes(line(kept))
    for argv in (["forget", "NoSuchId_123"], ["forget", "--undo", "NoSuchId_123"],
                 ["forget", "--purge", "NoSuchId_123"],
                 ["forget", kept["id"], "NoSuchId_123"]):
        rc, out, err = run(capsys, *argv, *site)
        assert rc == 3, (argv, out, err)
        assert "no entry with id NoSuchId_123 in the log" in err
        assert "nothing was changed" in err
        assert log.read_bytes() == line(kept)


def test_get_of_a_hidden_entry_says_hidden_and_how_to_undo(
        capsys: pytest.CaptureFixture[str], site: list[str], tmp_path: Path) -> None:
    gone = entry("fact", "the alarm is set at nine")
    (tmp_path / "data" / "log.jsonl").write_bytes(line(gone))
    assert run(capsys, "forget", gone["id"], *site)[0] == 0
    rc, out, err = run(capsys, "get", gone["id"], *site)
    assert (rc, out) == (3, "")
    assert f"entry {gone['id']} is hidden" in err
    assert f"zettelclaw forget --undo {gone['id']}" in err
    assert "no entry with id" not in err
    assert run(capsys, "forget", "--undo", gone["id"], *site)[0] == 0
    rc, out, _ = run(capsys, "get", gone["id"], *site)
    assert rc == 0
    assert "the alarm is set at nine" in out


@pytest.mark.slow
@pytest.mark.parametrize("command", [["log"], ["search", "door"], ["status", "--json"]])
def test_a_reader_that_leaves_early_ends_the_command_quietly(tmp_path: Path,
                                                           command: list[str]) -> None:
    """``zettelclaw log | head``: the reader gone before the output is written. The command
    ends as a Unix tool does (exit 141, nothing on stderr), not in an "internal error"."""
    (tmp_path / "ws").mkdir()
    (tmp_path / "data").mkdir(mode=0o700)
    (tmp_path / "data" / "log.jsonl").write_bytes(
        b"".join(line(entry("fact", f"door number {n} is painted blue")) for n in range(50)))
    (tmp_path / "data" / "log.jsonl").chmod(0o600)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZETTELCLAW_", "OPENCLAW_"))}
    env.update(ZETTELCLAW_SEARCH_SEMANTIC="off",
               OPENCLAW_CONFIG_PATH=str(tmp_path / "no-openclaw.json"))
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has gone before anything was written
    try:
        done = subprocess.run(
            [os.fspath(ZETTELCLAW), *command, "--home", str(tmp_path / "data"),
             "--workspace", str(tmp_path / "ws"), "--no-sidecar"],
            stdout=write_end, stderr=subprocess.PIPE, text=True, env=env, timeout=120,
            check=False)
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (141, "")
