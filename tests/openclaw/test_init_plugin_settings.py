"""`zettelclaw init` and the plugin's own settings.

A misspelt key in ``plugins.entries.zettelclaw.config`` (``timeoutMS``) made OpenClaw refuse to
start the gateway, ``openclaw doctor --fix`` then turned the plugin off, and ``zettelclaw init``
exited 5 without naming the key (it ran ``openclaw`` first, which refuses such a config). Now
init checks the settings against the plugin's schema before running OpenClaw, moves a misspelt
key to the one it was meant for, turns the plugin on again, and refuses anything else naming
each key. The fake ``openclaw`` here refuses a config as the real one does (verified with
OpenClaw 2026.9.6: README, With OpenClaw).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from zettelclaw import __version__
from zettelclaw.cli.main import main
from zettelclaw.openclaw.plugin_config import config_schema, problems

FAKE_OPENCLAW = f"""#!{sys.executable}
# refuses a config whose zettelclaw settings have a key the schema does not know, as OpenClaw
# does; else says the plugin of this version is installed
import json, os, sys
config = json.load(open(os.environ["OPENCLAW_CONFIG_PATH"]))
entry = config.get("plugins", {{}}).get("entries", {{}}).get("zettelclaw", {{}})
settings = entry.get("config", {{}})
bad = [k for k in settings if k not in {sorted(config_schema()["properties"])!r}]
if bad:
    print("OpenClaw config is invalid; run openclaw doctor --fix", file=sys.stderr)
    sys.exit(1)
print(json.dumps({{"plugin": {{"version": {__version__!r}}}, "install": {{"installPath": "/x"}}}}))
"""


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "openclaw"
    fake.write_text(FAKE_OPENCLAW)
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    path = tmp_path / "openclaw.json"
    monkeypatch.setenv("OPENCLAW_CONFIG_PATH", str(path))
    return path


def init(capsys: pytest.CaptureFixture[str], tmp_path: Path, *extra: str
         ) -> tuple[int, str, str]:
    rc = main(["init", "--home", str(tmp_path / "data"), "--workspace", str(tmp_path), *extra])
    out, err = capsys.readouterr()
    return rc, out, err


def write(path: Path, settings: Any, enabled: bool = False) -> None:
    path.write_text(json.dumps({"plugins": {"entries": {"zettelclaw": {
        "enabled": enabled, "config": settings}}}}))


def test_a_misspelt_key_is_named_moved_and_the_plugin_turned_on_again(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, config: Path) -> None:
    write(config, {"timeoutMS": 3000, "autostart": False})
    rc, out, err = init(capsys, tmp_path)
    assert rc == 0, err
    assert "timeoutMS: unknown key; did you mean timeoutMs?" in out
    entry = json.loads(config.read_text())["plugins"]["entries"]["zettelclaw"]
    assert entry["config"] == {"autostart": False, "timeoutMs": 3000,
                               "dreaming": {"enabled": False}}
    assert entry["enabled"] is True
    assert "turned on again" in out
    backups = list(tmp_path.glob("openclaw.json.zettelclaw-backup-*"))
    assert any("timeoutMS" in b.read_text() for b in backups)  # the original is kept


def test_a_dry_run_names_the_key_and_writes_nothing(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, config: Path) -> None:
    write(config, {"timeoutMS": 3000})
    before = config.read_text()
    rc, out, err = init(capsys, tmp_path, "--dry-run")
    assert rc == 0, err
    assert "would set plugins.entries.zettelclaw.config.timeoutMs = 3000" in out
    assert "timeoutMS" in out
    assert config.read_text() == before


def test_what_cannot_be_moved_is_refused_naming_each_key(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, config: Path) -> None:
    write(config, {"colour": "blue", "timeoutMs": 5, "autostart": "yes"})
    before = config.read_text()
    rc, _, err = init(capsys, tmp_path)
    assert rc == 2
    assert "plugins.entries.zettelclaw.config.colour: unknown key" in err
    assert "plugins.entries.zettelclaw.config.timeoutMs: 5 is less than the minimum of 100" in err
    assert "plugins.entries.zettelclaw.config.autostart: 'yes' is not of type 'boolean'" in err
    assert "openclaw config unset plugins.entries.zettelclaw.config.colour" in err
    assert config.read_text() == before
    assert not (tmp_path / "data").exists()


def test_valid_settings_are_no_problem() -> None:
    assert problems(None) == []
    assert problems({"socketPath": "/x.sock", "autostart": False, "timeoutMs": 3000,
                     "sidecarCommand": ["python3", "-m", "zettelclaw"]}) == []
    assert [str(p) for p in problems({"timeoutms": 1000})] == [
        "plugins.entries.zettelclaw.config.timeoutms: unknown key; did you mean timeoutMs?"]
    assert [p.fix for p in problems({"timeoutMS": 1, "timeoutMs": 2000})] == [None]
    # what is not known here: settings from an $include, an environment reference
    assert problems({"$include": "./zettelclaw.json5"}) == []
    assert problems({"timeoutMs": "${ZC_TIMEOUT_MS}"}) == []


def test_the_schema_checked_is_the_plugins_manifest() -> None:
    manifest = Path(__file__).resolve().parents[2] / "clients/openclaw/openclaw.plugin.json"
    assert config_schema() == json.loads(manifest.read_text())["configSchema"]
    assert config_schema()["additionalProperties"] is False  # README: why it stays strict
