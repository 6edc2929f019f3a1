"""The gateway sweep: which of the host's sessions need extraction, and from which message.

A session read for a hook since its last activity is left alone; one this memory has never seen
whose last activity is older than the memory's start (``since``) is left out as ``zettelclaw
import openclaw``'s, with its plan and budget (docs/13-import.md). The sweep also makes the
failed jobs that have not had their sweep retry due again, with one more attempt each.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from zettelclaw import lock
from zettelclaw.errors import InvalidParamsError
from zettelclaw.extraction.admission import Subject
from zettelclaw.extraction.intake import Intake
from zettelclaw.extraction.provenance import Provenance, check_session_id
from zettelclaw.extraction.spool import MAX_ATTEMPTS, Spool
from zettelclaw.home import Home
from zettelclaw.log.schema import now_timestamp, parse_timestamp
from zettelclaw.state import BeforeInstall, State, load_state, update_state_locked

BEFORE_INSTALL = ("before this memory's start (its last activity is older than Zettelclaw's "
                  "install): `zettelclaw import openclaw` takes it, with a plan and a budget")


@dataclass(frozen=True, slots=True)
class HostSession:
    """A session as the host lists it to the sweep."""

    session_id: str
    session_key: str | None = None
    agent_id: str | None = None
    updated_at: float | None = None  # its last activity, epoch ms


@dataclass(frozen=True, slots=True)
class After:
    """The last message received of a session: the host sends what came after it."""

    key: str | None
    timestamp: str | None


@dataclass(frozen=True, slots=True)
class Need:
    session_id: str
    after: After | None


@dataclass(frozen=True, slots=True)
class Skipped:
    session_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class SweepReport:
    """The sweep of one memory: the sessions to send, those left out and why, the failed jobs
    made due again."""

    sessions: list[Need]
    skipped: list[Skipped]
    retried: list[str]


def sweep(home: Home, intake: Intake, provenance: Provenance, spool: Spool,
          sessions: Sequence[HostSession]) -> SweepReport:
    need: list[Need] = []
    skipped: list[Skipped] = []
    since = _since_millis(load_state(home).since)
    before_install = 0
    for session in sessions:
        try:
            session_id = check_session_id(session.session_id)
        except InvalidParamsError as exc:  # that one session, named; not the whole sweep
            skipped.append(Skipped(session.session_id, exc.message))
            continue
        reason = intake.refusal(Subject(session_key=session.session_key,
                                        agent_id=session.agent_id))
        if reason is not None:
            skipped.append(Skipped(session_id, reason))
            continue
        updated = session.updated_at
        seen = provenance.seen(session_id)
        if updated is not None and seen is not None and seen >= updated:
            continue  # read for a hook since its last activity
        last = provenance.last(session_id)
        if last is not None and updated is not None and _millis(last) >= updated:
            continue
        if (last is None and seen is None and updated is not None and since is not None
                and updated < since):
            before_install += 1
            skipped.append(Skipped(session_id, BEFORE_INSTALL))
            continue
        need.append(Need(session_id, None if last is None else
                         After(key=last.get("key"), timestamp=last.get("timestamp"))))
    retried = []
    with lock.exclusive(home.lock):
        update_state_locked(home, lambda state: _count_before_install(state, before_install))
        for job in spool.jobs():
            if job.state == "failed" and not job.sweep_retried:
                job.state, job.attempts, job.sweep_retried = "pending", MAX_ATTEMPTS - 1, True
                job.not_before = None
                spool.save(job)
                retried.append(job.job_id)
    return SweepReport(sessions=need, skipped=skipped, retried=retried)


def _count_before_install(state: State, sessions: int) -> None:
    state.before_install = BeforeInstall(sessions=sessions, at=now_timestamp())


def _since_millis(since: str | None) -> float | None:
    try:
        return parse_timestamp(since).timestamp() * 1000 if since else None
    except ValueError:
        return None  # unreadable: no session is left out for it


def _millis(record: dict[str, Any]) -> float:
    stamp = record.get("timestamp")
    try:
        return parse_timestamp(str(stamp)).timestamp() * 1000 if stamp else 0.0
    except ValueError:
        return 0.0
