"""``zettelclaw import`` in this process (files mode): the plan for people and --json, the
apply's progress on stderr, errors that name the file, --list and --rollback; and which kind a
path is (importing/registry.py)."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import pytest

from zettelclaw.cli.main import main
from zettelclaw.errors import InvalidParamsError
from zettelclaw.importing import registry

pytestmark = pytest.mark.usefixtures("_no_openclaw_config")


@pytest.fixture
def _no_openclaw_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for var in list(os.environ):
        if var.startswith(("OPENCLAW_", "ZETTELCLAW_")):
            monkeypatch.delenv(var)
    monkeypatch.setenv("OPENCLAW_CONFIG_PATH", str(tmp_path / "no-openclaw.json"))


@pytest.fixture
def site(tmp_path: Path) -> list[str]:
    (tmp_path / "ws").mkdir()
    return ["--home", str(tmp_path / "home"), "--workspace", str(tmp_path / "ws"),
            "--no-sidecar"]


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    old = tmp_path / "old"
    (old / "memory").mkdir(parents=True)
    (old / "memory" / "2026-01-05.md").write_text("- the car is a blue Volvo\n- [ ] vet visit\n"
                                                  "\nA paragraph about the garden.\n")
    return old


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_plan_then_apply_then_rollback(capsys: pytest.CaptureFixture[str], site: list[str],
                                       notes: Path, tmp_path: Path) -> None:
    rc, out, _ = run(capsys, *site, "import", str(notes))
    assert rc == 0
    assert "would add  1 conversation(s) (1 messages) for extraction, 2 note(s)" in out
    assert "nothing was imported" in out
    assert not (tmp_path / "home" / "imports").exists()

    rc, out, _ = run(capsys, *site, "import", "memory-core", str(notes), "--json")
    plan = json.loads(out)
    assert (plan["kind"], plan["notes"], plan["conversations"]) == ("memory-core", 2, 1)

    rc, out, err = run(capsys, *site, "import", str(notes), "--apply")
    assert rc == 0
    assert "importing" in err  # the progress, on stderr
    assert "3/3 items" in err
    assert "2 note(s) written, 1 conversation(s) spooled" in out
    import_id = out.split()[1].rstrip(":")

    rc, out, _ = run(capsys, *site, "import", "--list")
    assert import_id in out
    rc, out, _ = run(capsys, *site, "jobs")
    assert "import:" in out
    rc, out, _ = run(capsys, *site, "status")
    assert "budget     0 tokens today" in out

    rc, out, _ = run(capsys, *site, "import", "--rollback", "last")
    assert rc == 0
    assert f"import {import_id} rolled back: 2 entries purged, 1 job(s)" in out


def test_bad_input_names_the_file(capsys: pytest.CaptureFixture[str], site: list[str],
                                  tmp_path: Path) -> None:
    rc, _, err = run(capsys, *site, "import", str(tmp_path / "missing.zip"))
    assert rc == 2
    assert "missing.zip: no such file or directory" in err
    foreign = tmp_path / "conversations.json"
    foreign.write_text('[{"hello": "world"}]')
    rc, _, err = run(capsys, *site, "import", str(foreign))
    assert rc == 2
    assert f"{foreign}: a JSON file of neither a ChatGPT export" in err
    broken = tmp_path / "export.zip"
    broken.write_bytes(b"PK\x03\x04 truncated")
    rc, _, err = run(capsys, *site, "import", str(broken))
    assert "export.zip: not a readable zip" in err
    rc, _, err = run(capsys, *site, "import")
    assert rc == 2
    assert "import needs a SOURCE" in err
    rc, _, err = run(capsys, *site, "import", "--rollback", "no-such-import")
    assert rc != 0
    assert "no import no-such-import" in err


def test_the_kind_of_a_path(tmp_path: Path) -> None:
    chatgpt = tmp_path / "chatgpt.json"
    chatgpt.write_text('[{"title": "x", "mapping": {}, "current_node": "a"}]')
    claude = tmp_path / "claude" / "conversations.json"
    claude.parent.mkdir()
    claude.write_text('[{"uuid": "u", "chat_messages": []}]')
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("conversations.json", chatgpt.read_text())
    state = tmp_path / "openclaw"
    (state / "agents").mkdir(parents=True)
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / ".clawvault.json").write_text("{}")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "MEMORY.md").write_text("- x\n")
    assert registry.detect(chatgpt) == "chatgpt"
    assert registry.detect(claude) == "claude"
    assert registry.detect(claude.parent) == "claude"
    assert registry.detect(archive) == "chatgpt"
    assert registry.detect(state) == "openclaw"
    assert registry.detect(vault) == "clawvault"
    assert registry.detect(ws) == "memory-core"
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(InvalidParamsError, match="cannot tell"):
        registry.detect(text)


def test_a_kind_without_its_reader_installed_is_said_so(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    monkeypatch.setitem(registry.KINDS, "chatgpt", "zettelclaw.importing.sources.not_there")
    with pytest.raises(InvalidParamsError, match="no reader for chatgpt"):
        registry.reader("chatgpt")
    with pytest.raises(InvalidParamsError, match="unknown source kind"):
        registry.reader("myspace")


def test_import_openclaw_without_a_path_reads_openclaws_state_dir(
        capsys: pytest.CaptureFixture[str], site: list[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where OpenClaw keeps its state: $OPENCLAW_STATE_DIR, else $OPENCLAW_HOME/.openclaw, else
    ~/.openclaw (its docs, openclaw-agent-runtime.md, help/environment.md)."""
    from tests.importing.test_import_openclaw_sessions import make_store

    state = tmp_path / "gateway-state"
    make_store(state)
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(state))
    rc, out, _ = run(capsys, "import", "openclaw", *site, "--json")
    assert rc == 0
    plan = json.loads(out)
    assert (plan["kind"], plan["path"], plan["total"]) == ("openclaw", str(state), 4)
    monkeypatch.delenv("OPENCLAW_STATE_DIR")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    make_store(tmp_path / "user" / ".openclaw")
    rc, out, _ = run(capsys, "import", "openclaw", *site, "--json")
    assert rc == 0
    assert json.loads(out)["path"] == str(tmp_path / "user" / ".openclaw")
    monkeypatch.setenv("OPENCLAW_HOME", str(tmp_path / "service"))
    make_store(tmp_path / "service" / ".openclaw")
    rc, out, _ = run(capsys, "import", "openclaw", *site, "--json")
    assert rc == 0
    assert json.loads(out)["path"] == str(tmp_path / "service" / ".openclaw")
