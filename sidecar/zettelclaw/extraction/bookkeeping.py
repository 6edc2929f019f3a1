"""What state.json records about sessions, updated under the data lock (docs/04-extraction.md).

``extractedSessions`` (per session: when, how many entries, how many jobs), ``failedSessions``
(the last permanent failure) and ``skippedSessions`` (why a session was not extracted). Records
older than ``pruneDays`` are dropped as the file is written. These are records for people and
``status``; the exactly-once guarantees rest on the spool and the provenance transcripts. The
file's one model, and its one read and write, are ``state.py``'s.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from zettelclaw.home import Home
from zettelclaw.log.schema import now_timestamp, parse_timestamp
from zettelclaw.state import Extracted, Failed, Outcome, Skipped, State, update_state_locked

OUTCOMES = 20  # the last jobs' outcomes kept for `jobs` and `status`


def _prune(state: State, days: int) -> None:
    cutoff = datetime.now(UTC) - timedelta(days=days)
    state.extracted_sessions = {s: r for s, r in state.extracted_sessions.items()
                                if _recent(r.at, cutoff)}
    state.failed_sessions = {s: r for s, r in state.failed_sessions.items()
                             if _recent(r.at, cutoff)}
    state.skipped_sessions = {s: r for s, r in state.skipped_sessions.items()
                              if _recent(r.at, cutoff)}


def _recent(at: str | None, cutoff: datetime) -> bool:
    try:
        return at is not None and parse_timestamp(at) >= cutoff
    except ValueError:
        return False


def extracted_locked(home: Home, session_id: str, *, entries: int, job_id: str,
                     prune_days: int) -> None:
    """A job of the session finished: add its entries and one job; its failure is cleared."""
    def change(state: State) -> None:
        _prune(state, prune_days)
        previous = state.extracted_sessions.get(session_id) or Extracted()
        state.extracted_sessions[session_id] = Extracted(
            at=now_timestamp(), entries=previous.entries + entries, jobs=previous.jobs + 1,
            last_job=job_id)
        state.failed_sessions.pop(session_id, None)
    update_state_locked(home, change)


def failed_locked(home: Home, session_id: str, *, error: str, retries: int, job_id: str,
                  prune_days: int) -> None:
    def change(state: State) -> None:
        _prune(state, prune_days)
        state.failed_sessions[session_id] = Failed(at=now_timestamp(), error=error,
                                                   retries=retries, job_id=job_id)
    update_state_locked(home, change)


def skipped_locked(home: Home, session_id: str, reason: str, *, prune_days: int,
                   refused: bool = False) -> None:
    """Why the session was not extracted; ``refused``: by the admission policy (counted)."""
    def change(state: State) -> None:
        if refused:
            state.admission_refused += 1
        _prune(state, prune_days)
        state.skipped_sessions[session_id] = Skipped(at=now_timestamp(), reason=reason)
    update_state_locked(home, change)


def outcome_locked(home: Home, outcome: Outcome) -> None:
    """Keep what became of a job's reply after the job is gone (the last ``OUTCOMES``)."""
    def change(state: State) -> None:
        state.extraction_outcomes = [*state.extraction_outcomes, outcome][-OUTCOMES:]
    update_state_locked(home, change)
