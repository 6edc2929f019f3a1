"""The rules the sidecar and the plugin both compute, held to one case table each in
tests/cases/ (the plugin's tests read the same files: clients/openclaw/test/shared_cases.test.ts):
OpenClaw's state directory, the sidecar's socket, the agents openclaw.json configures."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from zettelclaw.cli.main import socket_path
from zettelclaw.home import Home, resolve_home, resolve_openclaw_state_dir
from zettelclaw.openclaw.agents import openclaw_workspaces

CASES = Path(__file__).parents[1] / "cases"
PATHS = json.loads((CASES / "openclaw_paths.json").read_text())
AGENTS = json.loads((CASES / "openclaw_agents.json").read_text())["cases"]


def expected(case: dict[str, Any], cwd: Path) -> Path:
    return Path(case["expected"].replace("{cwd}", str(cwd)))


@pytest.mark.parametrize("case", PATHS["stateDir"], ids=lambda c: json.dumps(c["env"]))
def test_openclaws_state_directory(case: dict[str, Any], tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert resolve_openclaw_state_dir(case["env"]) == expected(case, tmp_path)


@pytest.mark.parametrize("case", PATHS["socket"],
                         ids=lambda c: json.dumps([c["env"], c.get("socketPath")]))
def test_the_sidecars_socket(case: dict[str, Any], tmp_path: Path,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "openclaw.json"
    if "socketPath" in case:  # the plugin's setting, where the CLI finds it
        config.write_text(json.dumps({"plugins": {"entries": {"zettelclaw": {
            "config": {"socketPath": case["socketPath"]}}}}}))
    env = {**case["env"], "OPENCLAW_CONFIG_PATH": str(config)}
    args = argparse.Namespace(socket=None)
    assert socket_path(args, env, Home(resolve_home(None, env))) == expected(case, tmp_path)


@pytest.mark.parametrize("case", AGENTS, ids=lambda c: json.dumps(c["config"]))
def test_the_configured_agents(case: dict[str, Any]) -> None:
    assert list(openclaw_workspaces(case["config"], {"HOME": "/h"})) == case["agents"]
