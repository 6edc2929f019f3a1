"""``zettelclaw team``: a memory shared with a team through the team's Postgres (docs/15-team.md).

The commands talk to the database themselves (no protocol method: the sidecar's part is its
background task, replicate/team_task.py). A round that changes the local log (``team sync``,
the local side of ``team purge``) runs here only when no sidecar answers: a running sidecar
does it within about a second, woken by the database's NOTIFY.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any, TypeVar

import trio

from zettelclaw.agent_ids import MAIN, AgentIdError, check_agent_id
from zettelclaw.cli.exits import EXIT_NOT_FOUND, EXIT_OK, EXIT_UNAVAILABLE, EXIT_USAGE, print_json
from zettelclaw.client import Client, SidecarUnavailableError, ask
from zettelclaw.home import Home
from zettelclaw.protocol import contract as rpc
from zettelclaw.protocol import params as p

T = TypeVar("T")

HELP = """\
Share one agent's memory with a team through a Postgres database the team runs. Each member's
sidecar publishes the entries written here and takes everyone else's, within about a second
(LISTEN/NOTIFY); when the database is unreachable, local work goes on and catches up later.
The owner's private memory (main) never joins a team: a team memory is another agent's.

  zettelclaw team init "host=db.example dbname=team user=alice" --agent team
  zettelclaw team status --agent team
  zettelclaw team purge ID... --agent team     # from the database and every member's copy
  zettelclaw team member add bob --agent team  # an administrator: let a login role in

The DSN is libpq's (key=value or postgresql://...); it is kept without a password (use
~/.pgpass or PGPASSWORD)."""


def add_parser(command: Callable[..., argparse.ArgumentParser]) -> None:
    team = command("team", "share one agent's memory with a team through Postgres", HELP)
    team.add_argument("action", choices=["init", "status", "sync", "purge", "member", "leave"])
    team.add_argument("args", nargs="*", metavar="ARG",
                      help="init: DSN; purge: entry ids; member: add|remove ROLE")
    team.add_argument("--admin", action="store_true",
                      help="member add: the role may purge anyone's entries")
    team.add_argument("--json", action="store_true", help="print JSON for scripts")


class TeamUsage(Exception):
    pass


def run(args: argparse.Namespace, home: Home, socket: Path, workspace: Path, *,
        explicit_workspace: bool) -> int:
    from zettelclaw.replicate import pg_store
    from zettelclaw.replicate.team import TeamSettingsError

    session = _Session(args, home, socket, workspace, explicit_workspace)
    try:
        return session.dispatch()
    except (TeamUsage, TeamSettingsError, AgentIdError) as exc:
        print(f"zettelclaw: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except pg_store.TeamDbError as exc:
        print(f"zettelclaw: {exc}", file=sys.stderr)
        return EXIT_UNAVAILABLE


class _Session:
    def __init__(self, args: argparse.Namespace, root: Home, socket: Path, workspace: Path,
                 explicit_workspace: bool) -> None:
        from zettelclaw.agents.roster import memory_home
        from zettelclaw.config import load_config

        self.args = args
        self.root = root
        self.socket = socket
        self.workspace = workspace
        self.explicit_workspace = explicit_workspace
        self.agent = check_agent_id(getattr(args, "agent", None) or MAIN)
        self.memory = load_config(root).agents.share.get(self.agent, self.agent)
        self.home = memory_home(root, self.memory)
        self.as_json = bool(args.json)

    def dispatch(self) -> int:
        action = self.args.action
        if action == "init":
            return self.init()
        from zettelclaw.replicate import team

        if not team.configured(self.home):
            print(f"zettelclaw: agent {self.agent}'s memory is not a team memory: "
                  f"zettelclaw team init DSN --agent {self.agent}", file=sys.stderr)
            return EXIT_NOT_FOUND
        return {"status": self.status, "sync": self.sync, "purge": self.purge,
                "member": self.member, "leave": self.leave}[action]()

    def _dsn(self) -> str:
        from zettelclaw.replicate import team

        dsn = team.load_dsn(self.home)
        assert dsn is not None
        return dsn

    def init(self) -> int:
        from zettelclaw.agents.roster import ensure_memory_home
        from zettelclaw.replicate import pg_schema, pg_store, team

        if len(self.args.args) != 1:
            raise TeamUsage("team init takes one DSN, e.g. "
                            "zettelclaw team init 'host=db dbname=team user=me' --agent team")
        if self.memory == MAIN:
            raise TeamUsage(
                "the main memory is the owner's private memory and never reaches a team "
                f"(agent {self.agent} uses it): give the team memory an agent of its own, "
                "e.g. --agent team")
        dsn = self.args.args[0]
        team.check_dsn(dsn)  # before anything is written or sent
        with pg_store.connect(dsn) as conn:
            made = pg_store.ensure_schema(conn)
            conn.commit()
        self.root.ensure()
        ensure_memory_home(self.root, self.memory)
        team.save_dsn(self.home, dsn)
        said = (f"set up the team database ({pg_schema.SCHEMA} schema, roles "
                f"{pg_schema.MEMBER} and {pg_schema.ADMIN})" if made
                else "the team database was set up already")
        synced = self._round_here()
        result = {"agent": self.agent, "memory": self.memory, "dsn": dsn, "schemaCreated": made,
                  "round": None if synced is None else asdict(synced)}
        return self._show(result, lambda: "\n".join([
            f"agent {self.agent}'s memory is now a team memory: {pg_store.redact(dsn)}", said,
            self._round_text(synced)]))

    def status(self) -> int:
        from zettelclaw.replicate import pg_store, team
        from zettelclaw.replicate.ingest import Replica

        dsn = self._dsn()
        state = team.State.load(self.home)
        me = Replica(self.home).machine_id
        db: dict[str, Any] | None = None
        error = None
        try:
            with pg_store.connect(dsn) as conn:
                db = asdict(pg_store.status(conn))
        except pg_store.TeamDbError as exc:
            error = str(exc)
        result = {"agent": self.agent, "memory": self.memory, "dsn": pg_store.redact(dsn),
                  "machine": me, "reachable": db is not None, "error": error,
                  "local": asdict(state), "database": db}
        return self._show(result, lambda: _status_text(result))

    def sync(self) -> int:
        synced = self._round_here()
        result = {"round": None if synced is None else asdict(synced)}
        return self._show(result, lambda: self._round_text(synced))

    def purge(self) -> int:
        ids = self.args.args
        if not ids:
            raise TeamUsage("team purge takes the ids of the entries to purge")
        done = self._with_app(lambda app: _purged(app, self._dsn(), ids))
        if done.refused:
            print(f"zettelclaw: nothing purged: another member wrote {', '.join(done.refused)}"
                  " (only an administrator, a member of zettelclaw_admin, purges those)",
                  file=sys.stderr)
            return EXIT_USAGE
        synced = self._round_here()
        result = {"purge": done.purge, "removed": done.removed,
                  "round": None if synced is None else asdict(synced)}
        return self._show(result, lambda: (
            f"purge {done.purge}: {len(done.removed)} entries removed from the team database; "
            "every member's sidecar removes them from its copy and acknowledges it "
            "(team status shows who has not yet)\n" + self._round_text(synced)))

    def member(self) -> int:
        from zettelclaw.replicate import pg_schema, pg_store

        if len(self.args.args) != 2 or self.args.args[0] not in ("add", "remove"):
            raise TeamUsage("team member add ROLE | team member remove ROLE")
        verb, role = self.args.args
        try:
            statements = (pg_schema.add_member(role, admin=self.args.admin) if verb == "add"
                          else pg_schema.remove_member(role))
        except ValueError as exc:
            raise TeamUsage(str(exc)) from exc
        with pg_store.connect(self._dsn()) as conn:
            pg_store.run_all(conn, statements)
        return self._show({"role": role, "action": verb}, lambda: (
            f"{role} is a member now" if verb == "add" else
            f"{role} is no longer a member: it can neither read nor write the team memory"))

    def leave(self) -> int:
        from zettelclaw.replicate import team

        team.leave(self.home)
        return self._show({"agent": self.agent, "left": True}, lambda: (
            f"agent {self.agent}'s memory is no longer replicated (it keeps what it has)"))

    # -- helpers --------------------------------------------------------------------------

    def _sidecar_runs(self) -> bool:
        if getattr(self.args, "no_sidecar", False):
            return False
        try:
            Client(self.socket).connect().close()
        except (SidecarUnavailableError, OSError):
            return False
        return True

    def _round_here(self) -> Any:
        """A round in this process, or None when a sidecar runs (its task does it: a call
        naming the agent opens its memory there, and a team memory stays open)."""
        if self._sidecar_runs():
            client = Client(self.socket).connect()
            try:
                ask(client, rpc.STATUS, p.StatusParams(agentId=self.agent))
            finally:
                client.close()
            self._sidecar_caught_up()
            return None
        from zettelclaw.forget.service import purge_ids
        from zettelclaw.replicate import pg_store, team

        def one(app: Any) -> team.Round:
            with pg_store.connect(self._dsn()) as conn:
                return team.sync_once(app.home, conn, lambda ids: purge_ids(app, ids))
        return self._with_app(one)

    def _sidecar_caught_up(self, seconds: float = 30.0) -> None:
        """Wake the running sidecar's task (NOTIFY) and wait until it has published what the
        log holds now and taken what the database holds now."""
        from zettelclaw.replicate import pg_store, team
        from zettelclaw.replicate.ingest import Replica

        mark = team.log_mark(self.home)
        with pg_store.connect(self._dsn()) as conn:
            top = pg_store.wake(conn)
        replica = Replica(self.home)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            cursor = replica.load_cursor(team.ENGINE)
            published = mark is None or (cursor.inode == mark[0] and cursor.offset >= mark[1])
            if published and team.State.load(self.home).pulled >= top:
                return
            time.sleep(0.05)
        raise pg_store.TeamDbError(f"the running sidecar did not sync within {seconds:g} s: "
                                   "see `zettelclaw team status` and the sidecar's log")

    def _round_text(self, synced: Any) -> str:
        if synced is None:
            return "synced by the running sidecar (it follows the database by itself)"
        purges = f", {len(synced.purges)} purges applied" if synced.purges else ""
        return (f"synced: {synced.pushed} entries published, {synced.appended} taken"
                f"{purges} (cursor {synced.cursor})")

    def _with_app(self, work: Callable[[Any], T]) -> T:
        from zettelclaw.cli.backend import FilesBackend

        backend = FilesBackend(self.root, self.workspace,
                               explicit_workspace=self.explicit_workspace)

        async def leased() -> T:
            async with backend.agents.lease(self.agent) as app:
                return await trio.to_thread.run_sync(work, app)
        try:
            return trio.run(leased)
        finally:
            backend.close()

    def _show(self, result: dict[str, Any], text: Callable[[], str]) -> int:
        if self.as_json:
            print_json(_camel(result))
        else:
            print(text())
        return EXIT_OK


def _purged(app: Any, dsn: str, ids: list[str]) -> Any:
    """``ids`` and every version of each, as a local purge would take them, purged in the
    team database (``team.purge_ids``)."""
    from zettelclaw.forget.select import Criteria, select
    from zettelclaw.replicate import pg_store, team

    every = sorted(set(ids) | set(select(app.home, Criteria(ids=tuple(ids))).ids))
    with pg_store.connect(dsn) as conn:
        return team.purge_ids(app.home, conn, every)


def _status_text(result: dict[str, Any]) -> str:
    local = result["local"]
    lines = [f"team      {result['dsn']} (agent {result['agent']})",
             f"machine   {result['machine']}: pulled to {local['pulled']}, "
             f"{local['pushed_total']} published, {local['appended_total']} taken, "
             f"last round {local['last_round'] or 'never'}"]
    if local["last_error"]:
        lines.append(f"error     since {local['error_since']}: {local['last_error']}")
    if local["refused"]:
        lines.append(f"refused   purged here, another member's there (kept by the others): "
                     f"{', '.join(local['refused'][-10:])}")
    db = result["database"]
    if db is None:
        lines.append(f"database  unreachable: {result['error']} (local work goes on; it "
                     "catches up when the database is back)")
        return "\n".join(lines)
    lines.append(f"database  {db['entries']} entries, {db['purges']} purges, "
                 f"{len(db['machines'])} machines")
    for m in db["machines"]:
        behind = f", purges not acknowledged: {m['unacknowledged']} since {m['since']}" \
            if m["unacknowledged"] else ""
        lines.append(f"  {m['machine']}  {m['member']}: pulled to {m['pulled']}, "
                     f"seen {m['seen_at']}{behind}")
    return "\n".join(lines)


def _camel(value: Any) -> Any:
    """Keys as the other commands' JSON has them (camelCase)."""
    if isinstance(value, dict):
        return {_camel_key(k): _camel(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_camel(v) for v in value]
    return value


def _camel_key(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part.title() for part in rest)
