"""`zettelclaw team` without a database to reach: what is refused before anything is written
(a password in the DSN, the owner's main memory), an unreachable database at init (exit 5,
nothing written), and `team status` of a team memory whose database is down (it says so)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from zettelclaw.cli.main import main
from zettelclaw.home import Home
from zettelclaw.replicate import pg_store, team

NOWHERE = "host=/nonexistent-zettelclaw-db port=5432 dbname=team user=ann"


def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["team", *argv, "--home", str(tmp_path / "data"), "--workspace",
                 str(tmp_path / "ws"), "--socket", str(tmp_path / "none.sock")])
    out, err = capsys.readouterr()
    return code, out, err


def test_refused_before_anything_is_written(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(tmp_path, capsys, "init", NOWHERE)  # no --agent: main
    assert code == 2
    assert "private memory" in err
    code, _, err = run(tmp_path, capsys, "init", NOWHERE + " password=s3cret", "--agent", "team")
    assert code == 2
    assert "~/.pgpass" in err
    assert "s3cret" not in err
    code, _, err = run(tmp_path, capsys, "init", "--agent", "team")
    assert (code, "one DSN" in err) == (2, True)
    assert not (tmp_path / "data" / "agents").exists()


def test_an_unreachable_database_at_init_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(tmp_path, capsys, "init", NOWHERE, "--agent", "team")
    assert code == 5
    assert "unreachable" in err
    assert not team.configured(Home(tmp_path / "data" / "agents" / "team"))


def test_status_of_a_team_memory_whose_database_is_down(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = Home(tmp_path / "data" / "agents" / "team")
    home.ensure()
    team.save_dsn(home, NOWHERE)
    code, out, _ = run(tmp_path, capsys, "status", "--agent", "team")
    assert code == 0
    assert "unreachable" in out
    assert "catches up when the database is back" in out
    code, out, _ = run(tmp_path, capsys, "status", "--agent", "team", "--json")
    value = orjson.loads(out)
    assert (value["reachable"], value["database"]) == (False, None)
    assert value["local"]["pulled"] == 0
    code, _, err = run(tmp_path, capsys, "sync", "--agent", "team")
    assert code == 5
    assert "unreachable" in err


def test_a_password_never_reaches_the_disk(tmp_path: Path) -> None:
    home = Home(tmp_path / "m")
    home.ensure()
    with pytest.raises(team.TeamSettingsError):
        team.save_dsn(home, "postgresql://ann:s3cret@db.example/team")
    assert not team.configured(home)
    assert pg_store.redact("postgresql://ann:s3cret@db.example/team") == \
        "postgresql://ann:***@db.example/team"
