"""Which socket the CLI asks: the one the OpenClaw plugin's sidecar listens on.

Precedence, first found: --socket, $ZETTELCLAW_SOCKET, the plugin's socketPath in openclaw.json
(unless --home names another data directory than the gateway's), HOME/sidecar.sock. And the
whole way: a sidecar serving on a custom socketPath is the one `zettelclaw status` reports.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from zettelclaw.cli.main import main, socket_path
from zettelclaw.cli.parser import build_parser
from zettelclaw.home import Home, resolve_home

ZETTELCLAW = Path(sys.executable).with_name("zettelclaw")


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An OpenClaw state directory whose openclaw.json the tests write."""
    for var in list(os.environ):
        if var.startswith("OPENCLAW_"):
            monkeypatch.delenv(var)
    state = tmp_path / "state"
    state.mkdir()
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(state))
    return state


def plugin_socket(state: Path, value: str) -> None:
    (state / "openclaw.json").write_text(json.dumps(
        {"plugins": {"entries": {"zettelclaw": {"enabled": True,
                                                "config": {"socketPath": value}}}}}))


def resolved(*argv: str, env: dict[str, str] | None = None) -> Path:
    env = {**os.environ, **(env or {})}
    args = build_parser().parse_args(["status", *argv])
    return socket_path(args, env, Home(resolve_home(getattr(args, "home", None), env)))


def test_the_plugins_socket_path_is_used(state: Path) -> None:
    plugin_socket(state, "/x/zc.sock")
    assert resolved() == Path("/x/zc.sock")


def test_precedence(state: Path) -> None:
    plugin_socket(state, "/x/zc.sock")
    assert resolved("--socket", "/a.sock", env={"ZETTELCLAW_SOCKET": "/b.sock"}) == Path(
        "/a.sock")
    assert resolved(env={"ZETTELCLAW_SOCKET": "/b.sock"}) == Path("/b.sock")
    # --home naming the gateway's data directory: still the plugin's socket
    assert resolved("--home", str(state / "zettelclaw")) == Path("/x/zc.sock")
    # another data directory: its own socket, never the gateway's sidecar (other data)
    assert resolved("--home", str(state / "other")) == state / "other" / "sidecar.sock"


def test_without_the_setting_or_a_readable_config_the_home_default(state: Path) -> None:
    assert resolved() == state / "zettelclaw" / "sidecar.sock"  # no openclaw.json
    (state / "openclaw.json").write_text("{not json5")
    assert resolved() == state / "zettelclaw" / "sidecar.sock"
    plugin_socket(state, "${NO_SUCH_VARIABLE_HERE}/zc.sock")
    assert resolved() == state / "zettelclaw" / "sidecar.sock"


def test_variables_and_home_in_the_setting_are_expanded(state: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZC_RUN", "/run/zc")
    plugin_socket(state, "${ZC_RUN}/zc.sock")
    assert resolved() == Path("/run/zc/zc.sock")
    plugin_socket(state, "~/zc.sock")
    assert resolved() == Path.home() / "zc.sock"


@pytest.fixture
def served(state: Path, short_dir: Path) -> Iterator[Path]:
    """A sidecar serving the gateway's data directory on a custom socket, as the plugin starts
    it (`serve --socket <socketPath>`)."""
    socket = short_dir / "zc.sock"
    plugin_socket(state, str(socket))
    env = {**os.environ, "ZETTELCLAW_SEARCH_SEMANTIC": "off"}
    proc = subprocess.Popen([str(ZETTELCLAW), "serve", "--socket", str(socket), "--set",
                             "cron.schedule=off"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        ready = proc.stdout.readline()  # the ready line, printed once it listens
        assert "listening on" in ready, ready
        yield socket
    finally:
        proc.terminate()
        proc.wait(60)
        if proc.stdout is not None:
            proc.stdout.close()


@pytest.mark.slow  # a sidecar process
def test_status_finds_the_sidecar_on_the_plugins_socket(
        served: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["status", "--json"])
    result = orjson.loads(capsys.readouterr().out)
    assert rc == 0
    assert result["server"]["socket"] == str(served)
