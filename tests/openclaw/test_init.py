"""``zettelclaw init``: what it does to openclaw.json, MEMORY.md and the data directory."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.timing import scaled
from zettelclaw.cli.main import main
from zettelclaw.openclaw.config_file import read_config, render, resolve_config_path
from zettelclaw.openclaw.init import SETTINGS
from zettelclaw.workspace.markers import BEGIN as BRIEFING_BEGIN
from zettelclaw.workspace.markers import END as BRIEFING_END

ZETTELCLAW = Path(sys.executable).with_name("zettelclaw")

# What `openclaw plugins install --link DIR --accept-capabilities` leaves in a fresh config.
INSTALLED: dict[str, Any] = {
    "gateway": {"mode": "local", "port": 18789, "bind": "loopback"},
    "agents": {"defaults": {"model": {"primary": "anthropic/claude-sonnet-4-6"}}},
    "plugins": {"load": {"paths": ["/opt/zettelclaw/clients/openclaw"]},
                "entries": {"zettelclaw": {"enabled": True}},
                "slots": {"memory": "zettelclaw"}},
    "meta": {"lastTouchedVersion": "2026.9.6"},
}


@pytest.fixture
def oc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An isolated OpenClaw state directory, with the environment pointing at it."""
    for name in list(os.environ):
        if name.startswith(("ZETTELCLAW_", "OPENCLAW_")):
            monkeypatch.delenv(name)
    state = tmp_path / "state"
    state.mkdir()
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(state))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return state


def write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value, indent=2) + "\n")
    return path


def init(*args: str) -> int:
    return main(["init", *args])


def config(state: Path) -> dict[str, Any]:
    return dict(json.loads((state / "openclaw.json").read_text()))


def dig(value: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        value = value[part]
    return value


def backups(state: Path) -> list[Path]:
    return sorted(state.glob("openclaw.json.zettelclaw-backup-*"))


def test_fresh_config_gets_every_setting(oc: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(oc / "openclaw.json", INSTALLED)
    assert init() == 0
    result = config(oc)
    assert result["plugins"]["slots"]["memory"] == "zettelclaw"
    assert result["plugins"]["entries"]["zettelclaw"] == {
        "enabled": True, "hooks": {"allowConversationAccess": True},
        # the Control UI's memory tab reads the memory plugin's dreaming setting (default: on)
        "config": {"dreaming": {"enabled": False}}}
    assert result["plugins"]["entries"]["memory-core"] == {"enabled": False}
    assert result["hooks"]["internal"]["entries"]["session-memory"] == {"enabled": False}
    assert result["agents"]["defaults"]["compaction"]["memoryFlush"] == {"enabled": False}
    # what `openclaw doctor` reads as OpenClaw's own memory search (docs/12-openclaw-surfaces.md)
    assert result["memory"] == {"search": {"provider": "none",
                                           "rememberAcrossConversations": False}}
    out = capsys.readouterr().out
    assert "set plugins.entries.memory-core.enabled = false (was unset)" in out
    assert "already plugins.slots.memory" in out
    assert "Memory Dreaming Promotion" in out  # says who removes memory-core's cron job


def test_other_settings_are_kept(oc: Path) -> None:
    existing = json.loads(json.dumps(INSTALLED))
    existing["channels"] = {"telegram": {"enabled": True, "botToken": "${TELEGRAM_TOKEN}"}}
    existing["plugins"]["slots"]["memory"] = "memory-core"
    existing["plugins"]["entries"]["memory-core"] = {"enabled": True, "config": {"x": 1}}
    existing["agents"]["defaults"]["compaction"] = {"mode": "safeguard",
                                                    "memoryFlush": {"enabled": True}}
    write(oc / "openclaw.json", existing)
    assert init() == 0
    result = config(oc)
    assert result["channels"] == existing["channels"]
    assert result["meta"] == existing["meta"]
    assert result["gateway"] == existing["gateway"]
    assert result["plugins"]["load"] == existing["plugins"]["load"]
    assert result["plugins"]["entries"]["memory-core"] == {"enabled": False, "config": {"x": 1}}
    assert result["agents"]["defaults"]["compaction"] == {"mode": "safeguard",
                                                          "memoryFlush": {"enabled": False}}
    assert result["agents"]["defaults"]["model"] == existing["agents"]["defaults"]["model"]
    assert list(result) == [*existing, "hooks", "memory"]  # key order kept, new sections at the end


def test_memory_search_settings_the_user_made_are_kept(oc: Path) -> None:
    """provider and rememberAcrossConversations are set only when unset: an OpenAI key the user
    configured for memory-core, or transcript recall they turned on, stay theirs."""
    existing = json.loads(json.dumps(INSTALLED))
    existing["memory"] = {"search": {"provider": "openai", "rememberAcrossConversations": True,
                                     "remote": {"apiKey": "${OPENAI_API_KEY}"}}}
    write(oc / "openclaw.json", existing)
    assert init() == 0
    assert config(oc)["memory"] == existing["memory"]
    # false is a value too: kept, not taken for unset
    existing["memory"] = {"search": {"rememberAcrossConversations": False}}
    write(oc / "openclaw.json", existing)
    assert init() == 0
    assert config(oc)["memory"] == {"search": {"rememberAcrossConversations": False,
                                               "provider": "none"}}


def test_a_plugin_turned_off_is_turned_back_on(oc: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """README, With OpenClaw: when `openclaw doctor --fix` (or a hand edit) disabled the plugin
    and gave the memory slot back, `zettelclaw init` turns both back."""
    disabled = json.loads(json.dumps(INSTALLED))
    disabled["plugins"]["entries"]["zettelclaw"]["enabled"] = False
    disabled["plugins"]["slots"]["memory"] = "memory-core"
    write(oc / "openclaw.json", disabled)
    assert init() == 0
    result = config(oc)
    assert result["plugins"]["entries"]["zettelclaw"]["enabled"] is True
    assert result["plugins"]["slots"]["memory"] == "zettelclaw"
    out = capsys.readouterr().out
    assert "set plugins.entries.zettelclaw.enabled = true (was false)" in out


def test_second_run_changes_nothing_and_says_so(oc: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    write(oc / "openclaw.json", INSTALLED)
    assert init() == 0
    first = (oc / "openclaw.json").read_bytes()
    memory_md = (oc / "workspace" / "MEMORY.md").read_bytes()
    capsys.readouterr()
    assert init("--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["changes"] == []
    assert report["nothingToDo"] is True
    assert report["written"] is False
    assert report["backup"] is None
    assert sorted(report["unchanged"]) == sorted(s.dotted for s in SETTINGS)
    assert report["memoryMd"]["action"] == "present"
    assert (oc / "openclaw.json").read_bytes() == first
    assert (oc / "workspace" / "MEMORY.md").read_bytes() == memory_md
    assert len(backups(oc)) == 1  # only the first run wrote, so only it backed up
    assert init() == 0
    assert "nothing to change" in capsys.readouterr().out


def test_backup_holds_the_old_bytes_and_mode(oc: Path) -> None:
    path = oc / "openclaw.json"
    original = ("// my config\n" + json.dumps(INSTALLED, indent=4)).encode()
    path.write_bytes(original)
    path.chmod(0o640)
    assert init() == 0
    [backup] = backups(oc)
    assert backup.read_bytes() == original
    assert stat.S_IMODE(backup.stat().st_mode) == 0o640
    assert stat.S_IMODE(path.stat().st_mode) == 0o640  # the new file keeps the mode too
    assert not list(oc.glob(".openclaw.json.*.tmp"))


def test_dry_run_prints_the_changes_and_writes_nothing(oc: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    path = write(oc / "openclaw.json", INSTALLED)
    before = path.read_bytes()
    assert init("--dry-run") == 0
    out = capsys.readouterr().out
    assert "would set plugins.entries.zettelclaw.hooks.allowConversationAccess = true" in out
    assert "would create" in out
    assert "dry run: nothing was written" in out
    assert path.read_bytes() == before
    assert backups(oc) == []
    assert not (oc / "zettelclaw").exists()
    assert not (oc / "workspace").exists()
    assert init("--dry-run", "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["dryRun"] is True
    assert report["written"] is False
    assert {c["path"] for c in report["changes"]} == {
        s.dotted for s in SETTINGS} - {"plugins.slots.memory", "plugins.entries.zettelclaw.enabled"}


@pytest.mark.parametrize("text", [
    "{ plugins: { slots: { memory: 'x' } ",   # cut short
    "not json at all",
    "[1, 2, 3]",                              # not an object
    "{\"a\": 1} trailing",
])
def test_a_config_it_cannot_parse_is_refused(oc: Path, text: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = oc / "openclaw.json"
    path.write_text(text)
    assert init() == 2
    err = capsys.readouterr().err
    assert str(path) in err
    assert "nothing was written" in err
    assert path.read_text() == text
    assert backups(oc) == []
    assert not (oc / "zettelclaw").exists()


def test_json5_is_read_and_written_back_as_json(oc: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = oc / "openclaw.json"
    path.write_text("""// OpenClaw config, JSON5
{
  gateway: { mode: 'local', port: 18789, },  // trailing comma
  plugins: { entries: { zettelclaw: { enabled: true } } },
}
""")
    assert init() == 0
    result = json.loads(path.read_text())  # plain JSON now
    assert result["gateway"] == {"mode": "local", "port": 18789}
    assert result["plugins"]["slots"]["memory"] == "zettelclaw"
    assert "comments are dropped" in capsys.readouterr().err
    assert "// OpenClaw config" in backups(oc)[0].read_text()


def test_include_in_an_edited_section_is_refused(oc: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    value = json.loads(json.dumps(INSTALLED))
    value["plugins"] = {"$include": "./plugins.json5"}
    write(oc / "openclaw.json", value)
    assert init() == 2
    err = capsys.readouterr().err
    assert "$include" in err
    assert "openclaw config set plugins.slots.memory" in err
    assert backups(oc) == []


def test_a_non_object_on_the_way_is_refused(oc: Path) -> None:
    value = json.loads(json.dumps(INSTALLED))
    value["hooks"] = "off"
    write(oc / "openclaw.json", value)
    assert init() == 2


def test_without_the_plugin_installed_it_refuses_unless_forced(
        oc: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(oc / "openclaw.json", {"gateway": {"mode": "local"}})
    assert init() == 2
    assert "openclaw plugins install" in capsys.readouterr().err
    assert config(oc) == {"gateway": {"mode": "local"}}
    monkeypatch.setenv("ZETTELCLAW_OPENCLAW_PLUGIN", "/opt/zc")  # run by the plugin itself
    assert init("--dry-run") == 0
    monkeypatch.delenv("ZETTELCLAW_OPENCLAW_PLUGIN")
    assert init("--force") == 0
    assert config(oc)["plugins"]["slots"]["memory"] == "zettelclaw"
    path.unlink()  # no config at all: --force writes a new one, 0600
    assert init("--force") == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_load_path_holding_the_plugin_counts_as_installed(oc: Path, tmp_path: Path) -> None:
    plugin = tmp_path / "plugin"
    plugin.mkdir()
    (plugin / "openclaw.plugin.json").write_text('{ id: "zettelclaw", configSchema: {} }')
    write(oc / "openclaw.json", {"plugins": {"load": {"paths": [str(plugin)]}}})
    assert init() == 0


def test_memory_md_markers_added_once_to_an_existing_file(oc: Path, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    memory_md = workspace / "MEMORY.md"
    memory_md.write_text("## Goals\n- ship it\n")
    write(oc / "openclaw.json", {**INSTALLED, "agents": {"defaults": {
        "workspace": str(workspace)}}})
    assert init() == 0
    assert memory_md.read_text() == f"## Goals\n- ship it\n\n{BRIEFING_BEGIN}\n{BRIEFING_END}\n"
    assert init() == 0
    assert memory_md.read_text().count(BRIEFING_BEGIN) == 1


def test_memory_md_with_one_marker_is_left_alone(oc: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    memory_md = tmp_path / "MEMORY.md"
    memory_md.write_text(f"notes\n{BRIEFING_END}\n")
    write(oc / "openclaw.json", INSTALLED)
    assert init("--workspace", str(tmp_path)) == 0
    assert memory_md.read_text() == f"notes\n{BRIEFING_END}\n"
    assert "briefing markers not added" in capsys.readouterr().err


def test_memory_md_markers_as_the_briefing_reads_them(oc: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """init and the briefing agree on what a marker is: markers typed by hand with other
    spacing or case are present (no second pair); END before BEGIN is named and left alone."""
    write(oc / "openclaw.json", INSTALLED)
    memory_md = tmp_path / "MEMORY.md"
    by_hand = "notes\n  <!--begin generated briefing-->\nold\n<!-- END GENERATED BRIEFING  -->\n"
    memory_md.write_text(by_hand)
    assert init("--workspace", str(tmp_path)) == 0
    assert memory_md.read_text() == by_hand
    swapped = f"{BRIEFING_END}\nnotes\n{BRIEFING_BEGIN}\n"
    memory_md.write_text(swapped)
    assert init("--workspace", str(tmp_path)) == 0
    assert memory_md.read_text() == swapped
    assert "END marker comes before the BEGIN marker" in capsys.readouterr().err


def test_data_directory_is_created(oc: Path, tmp_path: Path) -> None:
    write(oc / "openclaw.json", INSTALLED)
    assert init("--home", str(tmp_path / "data")) == 0
    assert (tmp_path / "data" / "log.jsonl").exists()
    assert stat.S_IMODE((tmp_path / "data").stat().st_mode) == 0o700


def test_config_path_resolution(tmp_path: Path) -> None:
    assert resolve_config_path("/x/c.json", {}) == Path("/x/c.json")
    assert resolve_config_path(None, {"OPENCLAW_CONFIG_PATH": "/y.json",
                                      "OPENCLAW_STATE_DIR": "/s"}) == Path("/y.json")
    assert resolve_config_path(None, {"OPENCLAW_STATE_DIR": "/s"}) == Path("/s/openclaw.json")
    assert resolve_config_path(None, {}) == Path.home() / ".openclaw" / "openclaw.json"
    # OPENCLAW_HOME replaces the home in OpenClaw's defaults (home.py, OpenClaw's rule)
    assert resolve_config_path(None, {"OPENCLAW_HOME": "/srv"}) == Path(
        "/srv/.openclaw/openclaw.json")
    assert resolve_config_path(None, {"OPENCLAW_HOME": "/srv", "OPENCLAW_STATE_DIR": "/s"}) == \
        Path("/s/openclaw.json")
    assert resolve_config_path(None, {"OPENCLAW_HOME": "/srv",
                                      "OPENCLAW_CONFIG_PATH": "~/c.json"}) == Path("/srv/c.json")


def test_config_option_and_a_symlinked_config(oc: Path, tmp_path: Path) -> None:
    real = write(tmp_path / "real.json", INSTALLED)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert init("--config", str(link)) == 0
    assert link.is_symlink()  # written through to the real file
    assert json.loads(real.read_text())["plugins"]["entries"]["memory-core"] == {"enabled": False}
    assert not (oc / "openclaw.json").exists()


def test_render_matches_openclaw_json_stringify(tmp_path: Path) -> None:
    value = {"a": {"b": [1, "é"], "c": {}}, "d": []}
    assert render(value) == b'{\n  "a": {\n    "b": [\n      1,\n      "\xc3\xa9"\n    ],\n' \
        b'    "c": {}\n  },\n  "d": []\n}\n'
    path = tmp_path / "c.json"
    path.write_text("{a: Infinity}")
    assert read_config(path).json5_syntax
    with pytest.raises(Exception, match="cannot write"):
        render(read_config(path).data)


@pytest.mark.slow
def test_the_command_line(oc: Path) -> None:
    write(oc / "openclaw.json", INSTALLED)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZETTELCLAW_")}
    proc = subprocess.run([str(ZETTELCLAW), "init", "--json"], env=env, capture_output=True,
                          text=True, timeout=scaled(60), check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["written"] is True
    (oc / "openclaw.json").write_text("{")
    proc = subprocess.run([str(ZETTELCLAW), "init"], env=env, capture_output=True, text=True,
                          timeout=scaled(60), check=False)
    assert proc.returncode == 2
    assert "cannot parse" in proc.stderr


def test_memory_md_is_written_as_the_briefing_writes_it(oc: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A new MEMORY.md is private (0600, as README says); a MEMORY.md that is a link leading
    out of the workspace is left alone, as the briefing refuses it too."""
    write(oc / "openclaw.json", INSTALLED)
    fresh = tmp_path / "fresh"
    assert init("--workspace", str(fresh)) == 0
    assert stat.S_IMODE((fresh / "MEMORY.md").stat().st_mode) == 0o600
    linked = tmp_path / "linked"
    linked.mkdir()
    outside = tmp_path / "outside.md"
    outside.write_text("not the workspace's\n")
    (linked / "MEMORY.md").symlink_to(outside)
    assert init("--workspace", str(linked)) == 0
    assert outside.read_text() == "not the workspace's\n"
    assert "leads outside the workspace" in capsys.readouterr().err


def test_every_agents_memory_md_gets_the_markers(oc: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    main_ws, family_ws = tmp_path / "ws", tmp_path / "ws-family"
    main_ws.mkdir()
    write(oc / "openclaw.json", {**INSTALLED, "agents": {
        "defaults": {"workspace": str(main_ws)},
        "entries": {"main": {}, "family": {"workspace": str(family_ws)}, "work": {}}}})
    assert init("--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["memoryMd"] == {"path": str(main_ws / "MEMORY.md"), "action": "create"}
    assert report["agents"] == [
        {"agentId": "family", "memoryMd": str(family_ws / "MEMORY.md"), "action": "create"},
        {"agentId": "work", "memoryMd": str(main_ws / "work" / "MEMORY.md"), "action": "create"}]
    for ws in (main_ws, family_ws, main_ws / "work"):
        assert (ws / "MEMORY.md").read_text() == f"{BRIEFING_BEGIN}\n{BRIEFING_END}\n"
    assert init() == 0
    out = capsys.readouterr().out
    assert f"MEMORY.md of agent family: briefing markers already in {family_ws}" in out
    assert "nothing to change" in out
