"""The forget commands' edges, run in this process (files mode): a forget or an undo of an id
the log does not hold fails (exit 3, nothing written); ``get`` of a hidden entry says it is
hidden and how to give it back."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import entry, line
from zettelclaw.cli.main import main


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
