"""zettelclaw/openclaw/plugin_install.py: the plugin this package ships, and installing it.

OpenClaw itself installs the plugin in the end-to-end test (tests/e2e: `zettelclaw init` from
the installed wheel, then the gateway loads OpenClaw's copy). Here: what ships, what is staged
for OpenClaw's installer, and what init says when there is no `openclaw` to install into.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from tests.timing import scaled
from zettelclaw import __version__
from zettelclaw.openclaw import plugin_install

REPO = Path(__file__).resolve().parents[2]
ZETTELCLAW = Path(sys.executable).with_name("zettelclaw")


def test_the_shipped_plugin_is_compiled_and_of_this_version() -> None:
    plugin = plugin_install.shipped_plugin()
    assert plugin_install.shipped_version(plugin) == __version__
    package = json.loads((plugin / "package.json").read_text())
    assert package["openclaw"]["runtimeExtensions"] == ["./dist/index.js"]
    compiled = (plugin / "dist" / "index.js").read_text()
    assert 'from "./src/rpc.js"' in compiled, "relative imports rewritten to the .js output"
    assert (plugin / "dist" / "src" / "rpc.js").is_file()


def test_the_pyproject_package_data_ships_what_is_staged() -> None:
    """pyproject.toml's package data and PLUGIN_FILES name the same files."""
    text = (REPO / "pyproject.toml").read_text()
    shipped = {p.removeprefix("shipped-plugin/") for p in
               re.findall(r'"(shipped-plugin/[^"]+)"', text)}
    assert shipped == set(plugin_install.PLUGIN_FILES)


def test_staging_copies_the_plugin_files_only(tmp_path: Path) -> None:
    plugin = plugin_install.shipped_plugin()
    staged = plugin_install._stage(plugin, tmp_path / "zettelclaw")
    names = sorted(str(p.relative_to(staged)) for p in staged.rglob("*") if p.is_file())
    modules = sorted(p.stem for p in (plugin / "src").glob("*.ts"))
    assert {"rpc", "hooks", "tools", "service"} <= set(modules)
    assert names == sorted(["dist/index.js", *(f"dist/src/{m}.js" for m in modules), "index.ts",
                            "openclaw.plugin.json", "package.json", "skills/zettelclaw/SKILL.md",
                            *(f"src/{m}.ts" for m in modules)])
    assert not any(p.is_symlink() for p in staged.rglob("*"))


def test_without_openclaw_on_path_init_says_how_and_installs_nothing(tmp_path: Path) -> None:
    env = {"PATH": os.fspath(tmp_path), "HOME": os.fspath(tmp_path)}
    report = plugin_install.ensure_plugin(env, dry_run=False)
    assert report.action == "skipped"
    assert report.reason is not None
    assert "`openclaw` is not on PATH" in report.reason
    assert "zettelclaw-e2e}/openclaw/node_modules/.bin" in report.reason
    assert "--force --accept-capabilities" in report.reason


@pytest.mark.slow  # two `zettelclaw init` processes
def test_init_without_openclaw_prints_the_hint_and_refuses_the_slot(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENCLAW_", "ZETTELCLAW_"))}
    env.update(HOME=os.fspath(tmp_path), PATH=os.path.dirname(sys.executable))
    run = subprocess.run([os.fspath(ZETTELCLAW), "init"], env=env, capture_output=True,
                         text=True, timeout=scaled(60), check=False)
    assert run.returncode == 2
    assert "the plugin was not installed: `openclaw` is not on PATH" in run.stderr
    assert not (tmp_path / ".openclaw" / "openclaw.json").exists()
    skipped = subprocess.run([os.fspath(ZETTELCLAW), "init", "--no-plugin", "--force",
                              "--json"], env=env, capture_output=True, text=True,
                              timeout=scaled(60), check=False)
    assert skipped.returncode == 0, skipped.stderr
    assert json.loads(skipped.stdout)["plugin"] is None


def test_a_package_without_the_compiled_plugin_is_a_clear_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "shipped-plugin"
    broken.mkdir()
    (broken / "package.json").write_text('{"version": "0.0.0"}')
    # plugin_install reads its package through importlib.resources.files
    monkeypatch.setattr(resources, "files", lambda _name: tmp_path)
    with pytest.raises(plugin_install.PluginInstallError, match=r"dist/index\.js"):
        plugin_install.shipped_plugin()
