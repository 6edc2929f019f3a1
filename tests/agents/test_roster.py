"""agents/roster.py and openclaw/agents.py: which agents exist, whose memory each uses, where
their workspaces are (the host's word, then openclaw.json, then the defaults); and the
``agents.share`` setting."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from zettelclaw.agents.roster import Roster, check_workspace, memories_on_disk, memory_home
from zettelclaw.config import load_config
from zettelclaw.errors import DataDirError, InvalidParamsError
from zettelclaw.home import Home
from zettelclaw.openclaw.agents import (
    ConfiguredWorkspaces,
    configured_workspaces,
    openclaw_workspaces,
)


def test_main_is_the_data_directory_and_the_others_live_under_agents(home: Home) -> None:
    assert memory_home(home, "main") == home
    assert memory_home(home, "work").root == home.root / "agents" / "work"
    (home.root / "agents" / "work").mkdir(parents=True)
    (home.root / "agents" / ".tmp-x").mkdir()
    (home.root / "agents" / "stray.txt").write_text("")
    assert memories_on_disk(home) == ["main", "work"]


def test_openclaw_workspaces_as_openclaw_resolves_them(tmp_path: Path) -> None:
    env = {"OPENCLAW_STATE_DIR": str(tmp_path / "state")}
    config = {"agents": {"defaults": {"workspace": "/w"},
                         "entries": {"main": {}, "family": {}, "work": {"workspace": "/x/work"},
                                     "Bad Id!": {}}}}
    assert openclaw_workspaces(config, env) == {
        "main": Path("/w"), "family": Path("/w/family"), "work": Path("/x/work")}
    no_defaults = {"agents": {"list": [{"id": "main"}, {"id": "family"}]}}
    assert openclaw_workspaces(no_defaults, env) == {
        "main": tmp_path / "state" / "workspace",
        "family": tmp_path / "state" / "workspace-family"}
    default_flag = {"agents": {"entries": {"home": {"default": True}, "main": {}}}}
    assert openclaw_workspaces(default_flag, env)["home"] == tmp_path / "state" / "workspace"
    assert openclaw_workspaces({}, env) == {}
    assert openclaw_workspaces({"agents": "nonsense"}, env) == {}


def test_openclaw_workspaces_follow_openclaw_home() -> None:
    """$OPENCLAW_HOME replaces the home in OpenClaw's paths: the default state directory, and
    the ~ of a configured workspace (OpenClaw's resolveUserPath)."""
    env = {"HOME": "/h", "OPENCLAW_HOME": "/srv/oc"}
    config = {"agents": {"defaults": {"workspace": "~/ws"},
                         "entries": {"main": {}, "work": {"workspace": "~/work"}}}}
    assert openclaw_workspaces(config, env) == {
        "main": Path("/srv/oc/ws"), "work": Path("/srv/oc/work")}
    assert openclaw_workspaces({"agents": {"list": [{"id": "main"}, {"id": "family"}]}},
                               env) == {"main": Path("/srv/oc/.openclaw/workspace"),
                                        "family": Path("/srv/oc/.openclaw/workspace-family")}


def test_configured_workspaces_reads_openclaw_json_and_survives_a_broken_one(
        tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    env = {"OPENCLAW_CONFIG_PATH": str(path)}
    assert configured_workspaces(env) == {}
    path.write_bytes(orjson.dumps({"agents": {"entries": {"work": {"workspace": "/ws/w"}}}}))
    assert configured_workspaces(env) == {"work": Path("/ws/w")}
    path.write_text("{ not json")
    assert configured_workspaces(env) == {}


def test_the_hosts_word_wins_and_is_kept_across_restarts(home: Home, tmp_path: Path) -> None:
    roster = Roster(home, tmp_path / "main-ws", share={},
                    openclaw={"work": Path("/from/config")})
    assert roster.workspace_of("main") == tmp_path / "main-ws"
    assert roster.workspace_of("work") == Path("/from/config")
    assert roster.workspace_of("family") is None
    assert not roster.known("family")
    assert roster.register({"work": Path("/from/host"), "family": Path("/f")}) == ["work",
                                                                                  "family"]
    assert roster.register({"work": Path("/from/host")}) == []
    again = Roster(home, tmp_path / "main-ws", share={})
    assert again.workspace_of("work") == Path("/from/host")
    assert again.known("family")
    assert again.agents() == ["family", "main", "work"]
    assert (home.root / "agents.json").stat().st_mode & 0o777 == 0o600


def test_sharing_names_the_memory_and_nothing_else(home: Home) -> None:
    roster = Roster(home, home.root, share={"phone": "main"})
    assert roster.memory_of("phone") == "main"
    assert roster.memory_of("work") == "work"
    assert roster.known("phone")
    assert not roster.known("tablet")


def test_check_workspace_takes_absolute_paths_only() -> None:
    assert check_workspace("/a/b/../c") == Path("/a/c")
    for bad in ["relative/ws", "", "/a\x00b"]:
        with pytest.raises(InvalidParamsError):
            check_workspace(bad)


def test_agents_share_in_config_is_checked(home: Home) -> None:
    assert load_config(home, env={}, overrides=["agents.share=phone:main,Tablet:main"]
                       ).agents.share == {"phone": "main", "tablet": "main"}
    assert load_config(home, env={}).agents.share == {}
    for bad, said in [("phone:phone", "its own memory"), ("a:b,b:c", "directly"),
                      ("../x:main", "not an agent id")]:
        with pytest.raises(DataDirError, match=said):
            load_config(home, env={}, overrides=[f"agents.share={bad}"])


def test_an_agent_added_to_openclaw_json_later_is_known_without_a_restart(
        home: Home, tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    env = {"OPENCLAW_CONFIG_PATH": str(path)}
    path.write_bytes(orjson.dumps({"agents": {"entries": {"main": {}}}}))
    openclaw = ConfiguredWorkspaces(env)
    roster = Roster(home, tmp_path, share={}, openclaw=openclaw.first(), reread=openclaw.changed)
    assert not roster.known("work")
    path.write_bytes(orjson.dumps({"agents": {"entries": {
        "main": {}, "work": {"workspace": "/ws/work"}}}}))
    assert roster.known("work")
    assert roster.workspace_of("work") == Path("/ws/work")
    assert openclaw.changed() is None, "read again only when the file changed"
