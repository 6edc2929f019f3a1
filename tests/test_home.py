"""Where the data lives (``zettelclaw.home``): resolution order and a private data directory.

Covers the data directory's resolution order (--home > $ZETTELCLAW_HOME >
$OPENCLAW_STATE_DIR/zettelclaw > $OPENCLAW_HOME/.openclaw/zettelclaw > ~/.openclaw/zettelclaw),
the workspace's (the same, with $ZETTELCLAW_WORKSPACE and workspace), and
``Home.ensure``: the directory 0700 and the log 0600, tightened with a warning when they were
open to others, the log's content kept.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from zettelclaw.errors import DataDirError
from zettelclaw.home import Home, resolve_home, resolve_openclaw_state_dir, resolve_workspace

Resolve = Callable[[str | None, dict[str, str]], Path]


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``~`` for the test, and an os.environ that must not be consulted for the variables."""
    home = tmp_path / "user"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ZETTELCLAW_HOME", "/from/os/environ")
    monkeypatch.setenv("ZETTELCLAW_WORKSPACE", "/from/os/environ")
    monkeypatch.setenv("OPENCLAW_STATE_DIR", "/from/os/environ")
    return home


@pytest.fixture
def umask_022() -> Iterator[None]:
    """A usual umask, so that the modes below are what ensure() sets, not what the umask hides."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# -- resolution order ------------------------------------------------------------------------

CASES = [
    # (resolver, own variable, subdirectory under the OpenClaw state directory)
    (resolve_home, "ZETTELCLAW_HOME", "zettelclaw"),
    (resolve_workspace, "ZETTELCLAW_WORKSPACE", "workspace"),
]


@pytest.mark.parametrize(("resolve", "var", "sub"), CASES)
def test_explicit_path_comes_first(user_home: Path, resolve: Resolve, var: str,
                                   sub: str) -> None:
    env = {var: "/env/own", "OPENCLAW_STATE_DIR": "/env/state"}
    assert resolve("/explicit/dir", env) == Path("/explicit/dir")


@pytest.mark.parametrize(("resolve", "var", "sub"), CASES)
def test_own_variable_comes_next(user_home: Path, resolve: Resolve, var: str, sub: str) -> None:
    env = {var: "/env/own", "OPENCLAW_STATE_DIR": "/env/state"}
    assert resolve(None, env) == Path("/env/own")
    assert resolve("", env) == Path("/env/own")  # an empty --home is no --home


@pytest.mark.parametrize(("resolve", "var", "sub"), CASES)
def test_openclaw_state_dir_comes_next(user_home: Path, resolve: Resolve, var: str,
                                       sub: str) -> None:
    assert resolve(None, {"OPENCLAW_STATE_DIR": "/env/state"}) == Path("/env/state") / sub
    # An empty variable counts as unset.
    assert resolve(None, {var: "", "OPENCLAW_STATE_DIR": "/env/state"}) == (
        Path("/env/state") / sub)


@pytest.mark.parametrize(("resolve", "var", "sub"), CASES)
def test_home_directory_is_the_last_resort(user_home: Path, resolve: Resolve, var: str,
                                           sub: str) -> None:
    assert resolve(None, {}) == user_home / ".openclaw" / sub
    assert resolve(None, {var: "", "OPENCLAW_STATE_DIR": ""}) == user_home / ".openclaw" / sub


@pytest.mark.parametrize(("resolve", "var", "sub"), CASES)
def test_tilde_is_expanded_everywhere(user_home: Path, resolve: Resolve, var: str,
                                      sub: str) -> None:
    assert resolve("~/explicit", {}) == user_home / "explicit"
    assert resolve(None, {var: "~/own"}) == user_home / "own"
    assert resolve(None, {"OPENCLAW_STATE_DIR": "~/state"}) == user_home / "state" / sub


@pytest.mark.usefixtures("user_home")
@pytest.mark.parametrize(("resolve", "var", "sub"), CASES)
def test_relative_paths_are_made_absolute(resolve: Resolve, var: str, sub: str, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert resolve("rel", {}) == tmp_path / "rel"
    assert resolve(None, {var: "own"}) == tmp_path / "own"
    assert resolve(None, {"OPENCLAW_STATE_DIR": "state"}) == tmp_path / "state" / sub


@pytest.mark.parametrize(("resolve", "var", "sub"), CASES)
def test_openclaw_home_replaces_the_home_in_openclaws_default(
        user_home: Path, resolve: Resolve, var: str, sub: str) -> None:
    """OpenClaw's rule (its docs/help/environment.md, dist resolveStateDir): $OPENCLAW_HOME
    replaces the home in its default paths; $OPENCLAW_STATE_DIR still wins, and its ~ is
    OpenClaw's home. Before, OPENCLAW_HOME was ignored: the sidecar's data and socket were
    under ~/.openclaw while the gateway's were under $OPENCLAW_HOME/.openclaw."""
    assert resolve(None, {"OPENCLAW_HOME": "/srv/oc"}) == Path("/srv/oc/.openclaw") / sub
    assert resolve(None, {"OPENCLAW_HOME": "~/svc"}) == user_home / "svc" / ".openclaw" / sub
    for unset in ("", "  ", "undefined", "null"):  # what OpenClaw counts as unset
        assert resolve(None, {"OPENCLAW_HOME": unset}) == user_home / ".openclaw" / sub
    assert resolve(None, {"OPENCLAW_HOME": "/srv/oc", "OPENCLAW_STATE_DIR": "/st"}) == (
        Path("/st") / sub)
    assert resolve(None, {"OPENCLAW_HOME": "/srv/oc", "OPENCLAW_STATE_DIR": "~/st"}) == (
        Path("/srv/oc/st") / sub)
    assert resolve(None, {var: "/own", "OPENCLAW_HOME": "/srv/oc"}) == Path("/own")


def test_the_default_state_dir_is_openclaws(user_home: Path) -> None:
    assert resolve_openclaw_state_dir({}) == user_home / ".openclaw"
    assert resolve_openclaw_state_dir({"HOME": "/h", "OPENCLAW_HOME": "/srv"}) == (
        Path("/srv/.openclaw"))


def test_home_files_are_where_the_spec_puts_them(tmp_path: Path) -> None:
    h = Home(tmp_path / "zettelclaw")
    assert h.log == tmp_path / "zettelclaw" / "log.jsonl"
    assert h.subjects == tmp_path / "zettelclaw" / "subjects.json"
    assert h.lock.parent == h.root


# -- ensure ----------------------------------------------------------------------------------


@pytest.mark.usefixtures("umask_022")
def test_ensure_creates_a_private_directory_and_log(tmp_path: Path,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    h = Home(tmp_path / "state" / "zettelclaw")
    assert not h.exists()
    with caplog.at_level(logging.WARNING, logger="zettelclaw.home"):
        h.ensure()
    assert h.exists()
    assert mode(h.root) == 0o700
    assert mode(h.log) == 0o600
    assert h.log.read_bytes() == b""
    assert caplog.records == []  # nothing was open to others: nothing to warn about


@pytest.mark.usefixtures("umask_022")
def test_ensure_tightens_an_open_directory_and_log_with_warnings(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    h = Home(tmp_path / "zettelclaw")
    h.root.mkdir()
    h.root.chmod(0o755)
    h.log.write_bytes(b'{"kept": true}\n')
    h.log.chmod(0o644)

    with caplog.at_level(logging.WARNING, logger="zettelclaw.home"):
        h.ensure()

    assert mode(h.root) == 0o700
    assert mode(h.log) == 0o600
    assert h.log.read_bytes() == b'{"kept": true}\n'  # never truncated
    messages = [r.getMessage() for r in caplog.records]
    assert all(r.levelno == logging.WARNING for r in caplog.records)
    assert len(messages) == 2
    assert str(h.root) in messages[0]
    assert "755" in messages[0]
    assert str(h.log) in messages[1]
    assert "644" in messages[1]


@pytest.mark.usefixtures("umask_022")
def test_ensure_tightens_only_what_is_open(tmp_path: Path,
                                           caplog: pytest.LogCaptureFixture) -> None:
    h = Home(tmp_path / "zettelclaw")
    h.root.mkdir(mode=0o700)
    h.log.write_bytes(b"")
    h.log.chmod(0o640)
    with caplog.at_level(logging.WARNING, logger="zettelclaw.home"):
        h.ensure()
    assert mode(h.log) == 0o600
    [record] = caplog.records
    assert str(h.log) in record.getMessage()


@pytest.mark.usefixtures("umask_022")
def test_ensure_twice_changes_nothing(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    h = Home(tmp_path / "zettelclaw")
    h.ensure()
    h.log.write_bytes(b"data\n")
    with caplog.at_level(logging.WARNING, logger="zettelclaw.home"):
        h.ensure()
    assert h.log.read_bytes() == b"data\n"
    assert (mode(h.root), mode(h.log)) == (0o700, 0o600)
    assert caplog.records == []


def test_ensure_reports_a_directory_it_cannot_use(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_bytes(b"")
    h = Home(tmp_path / "a-file" / "zettelclaw")
    with pytest.raises(DataDirError) as info:
        h.ensure()
    assert str(h.root) in info.value.message
