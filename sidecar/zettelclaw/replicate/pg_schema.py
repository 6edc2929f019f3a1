"""The team database's schema and roles (Postgres): the one place that says what a member may do.

A team memory is a grow-only set of log lines keyed by entry id (docs/15-team.md). The database
holds it in ``zettelclaw.entries``; each line is inserted if absent by id, and numbered by
``seq`` in commit order: every insert takes one transaction-scoped advisory lock before any row
gets its number (a statement trigger, so no client can skip it), so a reader that has seen
``seq = n`` has seen every row numbered below it, and a pull cursor is one number per machine.

Roles: ``zettelclaw_member`` (a group role: read every entry, append entries under one's own
name, purge one's own) and ``zettelclaw_admin`` (a member who may purge anyone's). Row-level
security holds the rules, so a member's own SQL cannot pass them. A removed member is a role
without ``zettelclaw_member``: no grant is left to read or write with.

A purge deletes rows inside a transaction that names its ``purges`` row
(``set_config('zettelclaw.purge', ...)``); a trigger records each deleted id in ``purged``, and
an id there is never inserted again: a machine offline during the purge cannot bring it back.
"""

from __future__ import annotations

SCHEMA = "zettelclaw"
MEMBER = "zettelclaw_member"
ADMIN = "zettelclaw_admin"
CHANNEL = "zettelclaw"  # LISTEN/NOTIFY: a payload "entries" or "purge"
VERSION = 1

# one statement per item: psycopg sends each alone (no multi-statement strings)
ROLES = [
    f"""DO $$ BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{MEMBER}') THEN
        CREATE ROLE {MEMBER} NOLOGIN;
      END IF;
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{ADMIN}') THEN
        CREATE ROLE {ADMIN} NOLOGIN IN ROLE {MEMBER};
      END IF;
    END $$""",
]

TABLES = [
    f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}",
    f"""CREATE TABLE IF NOT EXISTS {SCHEMA}.meta (
      key text PRIMARY KEY,
      value text NOT NULL)""",
    f"""CREATE TABLE IF NOT EXISTS {SCHEMA}.entries (
      seq bigserial PRIMARY KEY,
      id text NOT NULL UNIQUE,
      machine text NOT NULL,
      member name NOT NULL DEFAULT current_user,
      line text NOT NULL,
      added_at timestamptz NOT NULL DEFAULT now())""",
    f"""CREATE TABLE IF NOT EXISTS {SCHEMA}.purges (
      purge bigserial PRIMARY KEY,
      member name NOT NULL DEFAULT current_user,
      machine text NOT NULL,
      asked integer NOT NULL,
      at timestamptz NOT NULL DEFAULT now())""",
    f"""CREATE TABLE IF NOT EXISTS {SCHEMA}.purged (
      id text PRIMARY KEY,
      purge bigint NOT NULL REFERENCES {SCHEMA}.purges)""",
    f"""CREATE TABLE IF NOT EXISTS {SCHEMA}.machines (
      machine text PRIMARY KEY,
      member name NOT NULL DEFAULT current_user,
      pulled bigint NOT NULL DEFAULT 0,
      seen_at timestamptz NOT NULL DEFAULT now())""",
    f"""CREATE TABLE IF NOT EXISTS {SCHEMA}.acks (
      purge bigint NOT NULL REFERENCES {SCHEMA}.purges,
      machine text NOT NULL REFERENCES {SCHEMA}.machines,
      at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (purge, machine))""",
]

FUNCTIONS = [
    # numbers in commit order: the lock is taken before any row of the statement is numbered
    # and held until commit
    f"""CREATE OR REPLACE FUNCTION {SCHEMA}.serialise() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext('{SCHEMA}.entries'));
        RETURN NULL;
      END $$""",
    # a purged id never comes back; a line's id is the row's
    f"""CREATE OR REPLACE FUNCTION {SCHEMA}.admit() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM {SCHEMA}.purged p WHERE p.id = NEW.id) THEN
          RETURN NULL;
        END IF;
        IF (NEW.line::jsonb ->> 'id') IS DISTINCT FROM NEW.id THEN
          RAISE EXCEPTION 'line and id disagree: %', NEW.id USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
      END $$""",
    # security definer: members cannot write purged themselves (they could block others' ids)
    f"""CREATE OR REPLACE FUNCTION {SCHEMA}.record_purged() RETURNS trigger
      LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
      DECLARE
        asked bigint := nullif(current_setting('{SCHEMA}.purge', true), '')::bigint;
      BEGIN
        IF asked IS NULL THEN
          RAISE EXCEPTION 'entries are deleted only by a purge'
            USING ERRCODE = 'insufficient_privilege';
        END IF;
        INSERT INTO {SCHEMA}.purged (id, purge) VALUES (OLD.id, asked) ON CONFLICT DO NOTHING;
        RETURN OLD;
      END $$""",
    f"""CREATE OR REPLACE FUNCTION {SCHEMA}.announce() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('{CHANNEL}', TG_ARGV[0]);
        RETURN NULL;
      END $$""",
]

TRIGGERS = [
    ("serialise", "entries",
     f"BEFORE INSERT ON {SCHEMA}.entries FOR EACH STATEMENT "
     f"EXECUTE FUNCTION {SCHEMA}.serialise()"),
    ("admit", "entries",
     f"BEFORE INSERT ON {SCHEMA}.entries FOR EACH ROW EXECUTE FUNCTION {SCHEMA}.admit()"),
    ("record_purged", "entries",
     f"AFTER DELETE ON {SCHEMA}.entries FOR EACH ROW "
     f"EXECUTE FUNCTION {SCHEMA}.record_purged()"),
    ("announce_entries", "entries",
     f"AFTER INSERT ON {SCHEMA}.entries FOR EACH STATEMENT "
     f"EXECUTE FUNCTION {SCHEMA}.announce('entries')"),
    ("announce_purge", "purged",
     f"AFTER INSERT ON {SCHEMA}.purged FOR EACH STATEMENT "
     f"EXECUTE FUNCTION {SCHEMA}.announce('purge')"),
]


def _trigger(name: str, table: str, body: str) -> str:
    return f"""DO $$ BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = '{name}'
                     AND tgrelid = '{SCHEMA}.{table}'::regclass) THEN
        CREATE TRIGGER {name} {body};
      END IF;
    END $$"""


_ADMIN_CHECK = f"pg_has_role(current_user, '{ADMIN}', 'MEMBER')"
_MINE = "member = current_user"
# (table, policy, command, USING, WITH CHECK)
POLICIES = [
    ("entries", "read", "SELECT", "true", None),
    ("entries", "append", "INSERT", None, _MINE),
    ("entries", "purge", "DELETE", f"{_MINE} OR {_ADMIN_CHECK}", None),
    ("purges", "read", "SELECT", "true", None),
    ("purges", "ask", "INSERT", None, _MINE),
    ("purged", "read", "SELECT", "true", None),
    ("machines", "read", "SELECT", "true", None),
    ("machines", "join", "INSERT", None, _MINE),
    ("machines", "move", "UPDATE", _MINE, _MINE),
    ("acks", "read", "SELECT", "true", None),
    ("acks", "ack", "INSERT", None,
     f"machine IN (SELECT m.machine FROM {SCHEMA}.machines m WHERE m.{_MINE})"),
    ("meta", "read", "SELECT", "true", None),
]

GRANTS = [
    f"GRANT USAGE ON SCHEMA {SCHEMA} TO {MEMBER}",
    f"GRANT SELECT ON ALL TABLES IN SCHEMA {SCHEMA} TO {MEMBER}",
    f"GRANT INSERT, DELETE ON {SCHEMA}.entries TO {MEMBER}",
    f"GRANT INSERT ON {SCHEMA}.purges, {SCHEMA}.acks TO {MEMBER}",
    f"GRANT INSERT, UPDATE ON {SCHEMA}.machines TO {MEMBER}",
    f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA {SCHEMA} TO {MEMBER}",
    f"REVOKE ALL ON SCHEMA {SCHEMA} FROM PUBLIC",
]


def _policy(table: str, name: str, command: str, using: str | None, check: str | None) -> str:
    clauses = (f" USING ({using})" if using else "") + (f" WITH CHECK ({check})" if check else "")
    return f"""DO $$ BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_policies WHERE schemaname = '{SCHEMA}'
                     AND tablename = '{table}' AND policyname = 'zc_{name}') THEN
        CREATE POLICY zc_{name} ON {SCHEMA}.{table} FOR {command} TO {MEMBER}{clauses};
      END IF;
    END $$"""


def statements() -> list[str]:
    """Everything ``team init`` runs, in order; each is idempotent (a second init changes
    nothing)."""
    rls = [f"ALTER TABLE {SCHEMA}.{table} ENABLE ROW LEVEL SECURITY"
           for table in ("meta", "entries", "purges", "purged", "machines", "acks")]
    return [*ROLES, *TABLES, *FUNCTIONS,
            *(_trigger(name, table, body) for name, table, body in TRIGGERS),
            *rls, *(_policy(*p) for p in POLICIES), *GRANTS,
            f"INSERT INTO {SCHEMA}.meta VALUES ('version', '{VERSION}') "
            "ON CONFLICT (key) DO NOTHING"]


def add_member(role: str, *, admin: bool = False) -> list[str]:
    """What an administrator runs to let a login role in (``team member add``), made when
    missing (without a password: the server's authentication is the team's); ``admin``: one
    who may purge anyone's entries."""
    quoted = _ident(role)
    return [f"""DO $$ BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{role}') THEN
        CREATE ROLE {quoted} LOGIN;
      END IF;
    END $$""", f"GRANT {ADMIN if admin else MEMBER} TO {quoted}"]


def remove_member(role: str) -> list[str]:
    """What takes a member out: no grant is left to read or write with (their rows stay)."""
    return [f"REVOKE {MEMBER} FROM {_ident(role)}", f"REVOKE {ADMIN} FROM {_ident(role)}"]


def _ident(role: str) -> str:
    if not role or len(role) > 63 or not all(c.isalnum() or c in "_-." for c in role):
        raise ValueError(f"not a role name: {role!r}")
    return '"' + role + '"'
