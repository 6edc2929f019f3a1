"""The CLI's small lies and dead ends, each run in this process.

``get`` of a word that is no id nor file (exit 3, "no entry with id"), ``get --from`` past the
end (said, exit 1); ``serve`` refusing a bad ``--set`` with exit 2 before it creates anything;
``init`` on an openclaw.json it cannot parse (exit 2, before OpenClaw is run); help texts that
keep their examples' lines; the ``--`` hint for a search word starting with '-'; unknown
``ZETTELCLAW_*`` variables reported by ``status``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zettelclaw.cli.main import main

pytestmark = pytest.mark.usefixtures("_no_openclaw_config")


@pytest.fixture
def _no_openclaw_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No openclaw.json of the developer's decides the socket here."""
    for var in list(os.environ):
        if var.startswith("OPENCLAW_"):
            monkeypatch.delenv(var)
    monkeypatch.setenv("OPENCLAW_CONFIG_PATH", str(tmp_path / "no-openclaw.json"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture
def site(tmp_path: Path) -> list[str]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "MEMORY.md").write_text("".join(f"line {n}\n" for n in range(1, 9)))
    (tmp_path / "data").mkdir(mode=0o700)  # a read of a missing one fails (test_forget_edges)
    return ["--home", str(tmp_path / "data"), "--workspace", str(workspace), "--no-sidecar"]


def test_get_of_a_word_that_is_no_file_says_no_entry_exit_3(
        capsys: pytest.CaptureFixture[str], site: list[str]) -> None:
    rc, out, err = run(capsys, "get", "nosuchid", *site)
    assert (rc, out) == (3, "")
    assert "no entry with id nosuchid" in err


def test_get_from_past_the_end_says_so_exit_1(capsys: pytest.CaptureFixture[str],
                                             site: list[str]) -> None:
    rc, out, err = run(capsys, "get", "MEMORY.md", "--from", "100", *site)
    assert (rc, out) == (1, "")
    assert "MEMORY.md has 8 lines: --from 100 is past its end" in err
    rc, out, _ = run(capsys, "get", "MEMORY.md", "--from", "8", *site)
    assert rc == 0
    assert out.endswith("-- MEMORY.md: lines 8-8 of 8\n")


@pytest.mark.parametrize("bad", [["--set", "nosuch.key=1"], ["--set", "extraction.model"],
                                 ["--set", "extraction.modle=x"],
                                 ["--max-message-bytes", "10"]])
def test_a_refused_serve_exits_2_and_creates_nothing(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, bad: list[str]) -> None:
    home, workspace, sockets = tmp_path / "data", tmp_path / "ws", tmp_path / "run"
    rc, _, err = run(capsys, "serve", "--home", str(home), "--workspace", str(workspace),
                     "--socket", str(sockets / "zc.sock"), *bad)
    assert rc == 2, err
    assert not home.exists()
    assert not workspace.exists()
    assert not sockets.exists()


def test_init_on_an_openclaw_json_it_cannot_parse_exits_2_before_running_openclaw(
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An `openclaw` on PATH that fails as OpenClaw does on a broken config: init used to run it
    first (the plugin install) and exit 5; the config is read first now."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    ran = tmp_path / "openclaw-ran"
    fake = bin_dir / "openclaw"
    fake.write_text(f"#!/bin/sh\ntouch {ran}\necho 'OpenClaw config is invalid' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    config = tmp_path / "openclaw.json"
    config.write_text('{"plugins": {')
    rc, _, err = run(capsys, "init", "--config", str(config), "--home", str(tmp_path / "data"))
    assert rc == 2, err
    assert f"cannot parse {config}" in err
    assert not ran.exists()


@pytest.mark.parametrize(("command", "example"), [
    ("get", "\n  zettelclaw get MEMORY.md --from 1 --lines 20\n"),
    ("call", "\n  zettelclaw call status\n  zettelclaw call memory.search"),
])
def test_help_keeps_the_examples_on_their_lines(capsys: pytest.CaptureFixture[str],
                                                command: str, example: str) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert example in capsys.readouterr().out


def test_a_search_word_starting_with_a_dash_gets_the_double_dash_hint(
        capsys: pytest.CaptureFixture[str], site: list[str]) -> None:
    rc, _, err = run(capsys, "search", "-cat", *site)
    assert rc == 2
    assert "unrecognized arguments: -cat" in err
    assert "zettelclaw search -- -cat" in err
    rc, _, err = run(capsys, "search", *site, "--", "-cat")
    assert rc == 1, err  # searched: nothing found


def test_status_reports_an_unknown_zettelclaw_variable(
        capsys: pytest.CaptureFixture[str], site: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZETTELCLAW_EXTRACTON_MODEL", "claude-haiku-4")
    rc, _, err = run(capsys, "status", *site)
    assert rc == 0
    assert "warning: $ZETTELCLAW_EXTRACTON_MODEL is not a Zettelclaw setting" in err
