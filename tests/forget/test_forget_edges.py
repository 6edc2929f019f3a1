"""The forget commands' edges, run in this process (files mode): a forget or an undo of an id
the log does not hold fails (exit 3, nothing written); ``get`` of a hidden entry says it is
hidden and how to give it back; a command whose reader leaves early (``| head``) ends
quietly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.conftest import entry, line
from tests.timing import scaled
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
            stdout=write_end, stderr=subprocess.PIPE, text=True, env=env, timeout=scaled(120),
            check=False)
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (141, "")


def test_a_mistyped_home_or_workspace_is_not_created_by_a_read(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "data").mkdir(mode=0o700)
    (tmp_path / "ws").mkdir()
    typo_home, typo_ws = tmp_path / "dta", tmp_path / "wss"
    rc, out, err = run(capsys, "search", "door", "--home", str(typo_home), "--workspace",
                       str(tmp_path / "ws"), "--no-sidecar")
    assert (rc, out) == (3, "")
    assert f"no memory at {typo_home}: the directory does not exist" in err
    rc, out, err = run(capsys, "status", "--home", str(tmp_path / "data"), "--workspace",
                       str(typo_ws), "--no-sidecar")
    assert (rc, out) == (3, "")
    assert f"no workspace at {typo_ws}" in err
    assert not typo_home.exists()
    assert not typo_ws.exists()
    # a write makes a new memory, as a first use does, and says so
    rc, _, err = run(capsys, "remember", "fact", "the", "shed", "is", "green", "--home",
                     str(typo_home), "--workspace", str(tmp_path / "ws"), "--no-sidecar")
    assert rc == 0, err
    assert f"{typo_home} does not exist: it is created, for a new memory" in err
    assert typo_home.is_dir()


@pytest.mark.slow
def test_a_sidecar_serving_another_home_or_workspace_is_said(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, short_dir: Path) -> None:
    """With a sidecar answering on the socket, --home and --workspace were ignored without a
    word: the command read (or changed) the sidecar's memory."""
    home, ws, other_home, other_ws = (tmp_path / "data", tmp_path / "ws", tmp_path / "other",
                                      tmp_path / "other-ws")
    for path in (home, ws, other_home, other_ws):
        path.mkdir(mode=0o700)
    sock = short_dir / "s.sock"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZETTELCLAW_")}
    env.update(ZETTELCLAW_CRON_SCHEDULE="off", ZETTELCLAW_SEARCH_SEMANTIC="off")
    proc = subprocess.Popen([os.fspath(ZETTELCLAW), "serve", "--home", str(home), "--workspace",
                             str(ws), "--socket", str(sock)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    try:
        assert proc.stdout is not None
        assert b"listening on" in proc.stdout.readline()
        rc, out, err = run(capsys, "search", "door", "--home", str(other_home), "--socket",
                           str(sock))
        assert (rc, out) == (2, "")
        assert f"serves the data directory {home}, not {other_home}" in err
        rc, out, err = run(capsys, "status", "--home", str(home), "--workspace", str(other_ws),
                           "--socket", str(sock))
        assert rc == 0, err
        assert f"the sidecar serves the workspace {ws}, not {other_ws}" in err
        rc, _, err = run(capsys, "status", "--home", str(home), "--workspace", str(ws),
                         "--socket", str(sock))
        assert (rc, err) == (0, "")
    finally:
        proc.terminate()
        proc.communicate(timeout=scaled(30))


def test_remember_the_same_twice_answers_the_first_and_writes_once(
        capsys: pytest.CaptureFixture[str], site: list[str], tmp_path: Path) -> None:
    said = ["remember", "fact", "the", "boiler", "is", "serviced", "in", "May", "--subject",
            "house"]
    rc, first, _ = run(capsys, *said, "--json", *site)
    assert rc == 0
    rc, again, _ = run(capsys, *said, *site)
    assert rc == 0
    first_id = orjson.loads(first)["id"]
    assert again.startswith(f"already remembered: {first_id} (log.jsonl line 1); nothing written")
    log = tmp_path / "data" / "log.jsonl"
    assert log.read_bytes().count(b"\n") == 1
    # another subject, another session, or the first hidden: a new entry each
    assert run(capsys, *said[:-1], "garden", *site)[0] == 0
    assert run(capsys, *said, "--session", "s-2", *site)[0] == 0
    assert run(capsys, "forget", first_id, *site)[0] == 0
    rc, third, _ = run(capsys, *said, "--json", *site)
    assert orjson.loads(third)["id"] != first_id
    assert "existing" not in orjson.loads(third) or not orjson.loads(third)["existing"]


def test_an_id_that_begins_with_a_dash_is_an_id_not_an_option(
        capsys: pytest.CaptureFixture[str], site: list[str], tmp_path: Path) -> None:
    # '-' is one of the id alphabet's symbols: one id in 64 begins with it
    kept = {**entry("fact", "the spare key is under the blue pot"), "id": "-4xTq9LmZ_a0"}
    (tmp_path / "data" / "log.jsonl").write_bytes(line(kept))
    rc, out, err = run(capsys, "get", "-4xTq9LmZ_a0", *site)
    assert rc == 0, err
    assert "the spare key is under the blue pot" in out
    assert run(capsys, "forget", "-4xTq9LmZ_a0", *site)[0] == 0
    assert run(capsys, "forget", "--undo", "-4xTq9LmZ_a0", *site)[0] == 0
    # an option the parser knows stays an option; a word after -- is read as it is
    assert run(capsys, "get", *site, "--", "-4xTq9LmZ_a0")[0] == 0
    with pytest.raises(SystemExit) as usage:  # not of an id's shape: an unknown option
        run(capsys, "get", "-x", *site)
    assert usage.value.code == 2
