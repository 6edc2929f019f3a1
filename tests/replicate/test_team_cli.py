"""``zettelclaw team``: init, status, sync, purge, member add/remove, leave, against a real
Postgres 15 (tests/pg_server.py), the CLI run in this process with no sidecar. Slow: a server."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.conftest import entry, line
from tests.pg_server import PgServer
from zettelclaw.cli.main import main
from zettelclaw.home import Home

pytestmark = pytest.mark.slow


class Member:
    def __init__(self, tmp: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
        self.root = tmp / name
        self.capsys = capsys
        self.base = ["--home", str(self.root / "data"), "--workspace", str(self.root / "ws"),
                     "--socket", str(self.root / "none.sock")]

    def run(self, *argv: str) -> tuple[int, str, str]:
        self.capsys.readouterr()
        agent = [] if "--agent" in argv else ["--agent", "team"]
        code = main(["team", *argv, *self.base, *agent])
        out, err = self.capsys.readouterr()
        return code, out, err

    def json(self, *argv: str) -> dict[str, object]:
        code, out, err = self.run(*argv, "--json")
        assert code == 0, err
        value = orjson.loads(out)
        assert isinstance(value, dict)
        return value

    @property
    def log(self) -> Path:
        return Home(self.root / "data" / "agents" / "team").log

    def write(self, content: str) -> str:
        value = entry(content=content)
        with self.log.open("ab") as f:
            f.write(line(value))
        return str(value["id"])

    def ids(self) -> list[str]:
        return [orjson.loads(x)["id"] for x in self.log.read_bytes().splitlines() if x.strip()]


def test_team_commands(pg_team: tuple[PgServer, str], tmp_path: Path,
                       capsys: pytest.CaptureFixture[str]) -> None:
    server, db = pg_team
    boss, ann = Member(tmp_path, "boss", capsys), Member(tmp_path, "ann", capsys)
    server.sql(f'CREATE ROLE "{db}_ann" LOGIN')
    # the owner's private memory never joins a team; a password never reaches the disk
    code, _, err = boss.run("init", server.dsn(db), "--agent", "main")
    assert (code, "private memory" in err) == (2, True)
    code, _, err = boss.run("init", server.dsn(db) + " password=hunter2")
    assert (code, "~/.pgpass" in err) == (2, True)
    assert not (tmp_path / "boss" / "data" / "agents" / "team" / "replicate").exists()
    code, _, err = ann.run("status")
    assert (code, "not a team memory" in err) == (3, True)

    made = boss.json("init", server.dsn(db))
    assert made["schemaCreated"] is True
    assert boss.json("member", "add", f"{db}_ann")["action"] == "add"
    joined = ann.json("init", server.dsn(db, f"{db}_ann"))
    assert joined["schemaCreated"] is False

    theirs = boss.write("the staging database moved to db2")
    mine = ann.write("ann's plan for the release")
    boss.json("sync")
    ann.json("sync")
    boss.json("sync")
    assert sorted(boss.ids()) == sorted(ann.ids()) == sorted([theirs, mine])
    status = ann.json("status")
    assert status["reachable"] is True
    database = status["database"]
    assert isinstance(database, dict)
    assert database["entries"] == 2

    # ann purges only what she wrote
    code, _, err = ann.run("purge", theirs)
    assert (code, "another member" in err) == (2, True)
    purged = ann.json("purge", mine)
    assert purged["removed"] == [mine]
    assert mine not in ann.ids()
    status = ann.json("status")  # boss has not applied it yet: said so, with since when
    database = status["database"]
    assert isinstance(database, dict)
    behind = [m for m in database["machines"] if m["unacknowledged"]]
    assert len(behind) == 1
    assert behind[0]["since"]
    boss.json("sync")
    assert boss.ids() == [theirs]

    # ann removed: her sidecar can no longer read or write
    boss.json("member", "remove", f"{db}_ann")
    code, _, err = ann.run("sync")
    assert (code, "not allowed" in err) == (5, True)
    code, out, _ = ann.run("status")
    assert code == 0
    assert "unreachable" in out or "not allowed" in out
    assert ann.json("leave")["left"] is True
    code, _, _ = ann.run("status")
    assert code == 3
