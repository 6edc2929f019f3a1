"""What ``jobs`` and ``status`` say of extraction: the jobs by state, the route, what the last
replies became (``extraction.recent``), the sessions left to the import."""

from __future__ import annotations

from dataclasses import dataclass

from zettelclaw.extraction import retention
from zettelclaw.extraction.admission import AdmissionStatus
from zettelclaw.extraction.spool import JobSummary
from zettelclaw.llm.route import BudgetStatus, RouteStatus
from zettelclaw.state import Outcome, State

IMPORT_HINT = "zettelclaw import openclaw (see its plan first; --apply extracts them)"


@dataclass(frozen=True, slots=True)
class JobCounts:
    pending: int
    waiting: int
    failed: int


@dataclass(frozen=True, slots=True)
class BeforeInstallStatus:
    """The memory's start and the sessions the last sweep left out as older (import's)."""

    since: str | None
    sessions: int
    at: str | None  # that sweep's time
    hint: str | None  # what takes them, when there are any


@dataclass(frozen=True, slots=True)
class ExtractionStatus:
    """How extraction is doing: its model and route, the jobs by state, what they wait for,
    the admission patterns and the transcripts kept."""

    model: str
    api_key: bool
    base_url: str | None
    jobs: JobCounts
    waiting_for: str | None
    concurrency: int
    route: RouteStatus
    admission: AdmissionStatus
    transcripts: retention.Kept
    budget: BudgetStatus
    before_install: BeforeInstallStatus
    recent: list[Outcome]  # what became of the last jobs' replies, newest last


@dataclass(frozen=True, slots=True)
class JobsReport:
    jobs: list[JobSummary]
    extraction: ExtractionStatus


def before_install_status(state: State) -> BeforeInstallStatus:
    sessions = state.before_install.sessions
    return BeforeInstallStatus(since=state.since, sessions=sessions, at=state.before_install.at,
                               hint=IMPORT_HINT if sessions else None)
