"""Extraction's operations on disk: prompts, results, finishing jobs, listing and retrying them.

Synchronous and called from worker threads (the async loop is ``worker``). Finishing a job is
idempotent: it appends only the entries of the job's saved result that the log does not hold
yet, then deletes the job. A crash anywhere in it is finished by running it again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zettelclaw import failpoints, lock, prompts_loader
from zettelclaw.config import AdmissionConfig, ExtractionConfig, RetentionConfig
from zettelclaw.errors import InvalidParamsError, NotFoundError
from zettelclaw.extraction import context, outcomes, parts, relative_dates, retention
from zettelclaw.extraction.admission import REASON_PREFIX, AdmissionStatus, Subject
from zettelclaw.extraction.bookkeeping import extracted_locked, failed_locked, outcome_locked
from zettelclaw.extraction.intake import Intake
from zettelclaw.extraction.output import OutputReport, build_entries, same
from zettelclaw.extraction.pause import ModelPause
from zettelclaw.extraction.provenance import Provenance, check_session_id
from zettelclaw.extraction.spool import Job, JobSummary, Spool
from zettelclaw.extraction.transcript import Message, render
from zettelclaw.files import remove_stale_temps
from zettelclaw.home import Home
from zettelclaw.index import entries
from zettelclaw.index.database import Index
from zettelclaw.index.freshness import Freshness
from zettelclaw.llm.host import retired_handle
from zettelclaw.llm.route import BudgetStatus, Router, RouteStatus
from zettelclaw.log.schema import (
    Entry,
    entry_to_dict,
    now_timestamp,
    parse_timestamp,
    validate_entry,
)
from zettelclaw.log.store import LogStore
from zettelclaw.recall import receipts
from zettelclaw.state import BeforeInstall, Outcome, State, load_state, update_state_locked
from zettelclaw.subjects.registry import SubjectRegistry
from zettelclaw.workspace.memory_files import FileSlice

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 2  # the first call and one retry (docs/04-extraction.md#the-model)
IMPORT_HINT = "zettelclaw import openclaw (see its plan first; --apply extracts them)"
BEFORE_INSTALL = ("before this memory's start (its last activity is older than Zettelclaw's "
                  "install): `zettelclaw import openclaw` takes it, with a plan and a budget")


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


class Extraction:
    def __init__(self, home: Home, freshness: Freshness, config: ExtractionConfig,
                 router: Router, transcript_roots: Sequence[Path] = (), *,
                 admission: AdmissionConfig | None = None,
                 retention: RetentionConfig | None = None) -> None:
        self.home = home
        self.freshness = freshness
        self.index: Index = freshness.index
        self.subjects: SubjectRegistry = freshness.subjects
        self.config = config
        self.router = router
        self.provenance = Provenance(self.home)
        self.spool = Spool(self.home)
        self.store = LogStore(self.home)
        self.intake = Intake(self.home, config, self.provenance, self.spool, transcript_roots,
                             admission=admission)
        self.retention = retention or RetentionConfig()
        self.pause = ModelPause()  # why and until when no job is started

    # -- start-up ------------------------------------------------------------------------------

    def recover(self) -> None:
        """Mend what a crash left: messages spooled but not recorded; waiting jobs retry now."""
        with lock.exclusive(self.home.lock):
            for directory in (self.spool.dir, self.provenance.dir):
                remove_stale_temps(directory)  # a killed process's half-written copies
            self.intake.recover_locked()
            self._waiting_due_locked()

    def resume(self) -> int:
        """A route became usable (a host offered llm.complete): waiting jobs are due now, and so
        are the jobs that failed only because the host's handle on its model was retired (a
        plugin reload, counted as failed attempts by an older plugin or sidecar): their
        attempts are given back. Returns how many go now."""
        self.pause.lift()
        with lock.exclusive(self.home.lock):
            return self._waiting_due_locked() + self._host_outage_failures_due_locked()

    def _waiting_due_locked(self) -> int:
        waiting = [job for job in self.spool.jobs() if job.state == "waiting"]
        for job in waiting:
            job.not_before = None
            self.spool.save(job)
        return len(waiting)

    def prune_transcripts(self, now: float | None = None) -> retention.Pruned:
        """Drop the text of transcripts past ``retention.transcriptDays`` (retention.py)."""
        return retention.prune(self.home, self.provenance, self.spool,
                               self.retention.transcript_days, now)

    def _host_outage_failures_due_locked(self) -> int:
        failed = [job for job in self.spool.jobs()
                  if job.state == "failed" and retired_handle(job.last_error)]
        for job in failed:
            job.state, job.attempts, job.not_before = "pending", 0, None
            self.spool.save(job)
            logger.info("job %s failed only because the host's model handle was retired: "
                        "retried", job.job_id)
        return len(failed)

    # -- one job -------------------------------------------------------------------------------

    def parts(self, job: Job) -> tuple[list[list[Message]], int]:
        """The job's messages in the parts its route's model is sent (one, on a route that
        reads long prompts), and how many earliest messages were left out to fit."""
        local = self.router.choose().route == "local"
        part_chars = (self.config.local_part_chars if local
                      else self.config.max_transcript_chars)
        return parts.split(job.message_objects(), part_chars, self.config.max_transcript_chars)

    def prompt(self, job: Job, part: int = 0, earlier: Sequence[str] = ()) -> str:
        """The prompt for the job (for its ``part``-th part, after the replies ``earlier``
        gave the parts before it)."""
        cut_up, left_out = self.parts(job)
        messages = cut_up[min(part, len(cut_up) - 1)]
        transcript, cut = render(messages, self.config.max_transcript_chars)
        if job.context:
            transcript = with_context(job, transcript, self.config.max_transcript_chars)
        cut += left_out if part == 0 else 0
        self.freshness.sync()
        subjects = self.subjects.load()
        subject_lines = [f"- {slug}: {s.display} ({s.type})" for slug, s in subjects.items()]
        with self.index.read() as conn:
            # what this conversation already put in memory (memory.remember): shown as held,
            # so the model does not write it again (prompts/extraction.md, rule 8)
            own = [found.entry for i in sorted(receipts.remembered(self.home, job.session_id))
                   if (found := entries.get_entry(conn, i)) is not None and found.current]
            shown = context.shown_entries(conn, self.freshness.terms, messages, own,
                                          self.config.relevant_entries)
        # a handoff the sidecar assembled is no memory of the model's: shown, it was copied
        entry_lines = [_entry_line(e) for e in shown if e.get("detail") != FALLBACK_NOTE]
        entry_lines += parts.earlier_lines(earlier)
        date = next((m.timestamp[:10] for m in messages if m.timestamp), now_timestamp()[:10])
        return prompts_loader.fill(prompts_loader.load("extraction"), {
            "subjects": "\n".join(subject_lines) or "(none yet)",
            "entries": "\n".join(entry_lines) or "(none)",
            "session": job.session_id,
            "date": date,
            "truncation": " ".join(filter(None, [
                f"(The {cut} earliest messages were left out to fit.)" if cut else "",
                (f"(Part {part + 1} of {len(cut_up)} of this conversation: the entries of the "
                 "earlier parts are listed above as held.)") if len(cut_up) > 1 else ""])),
            "transcript": transcript,
        })

    def result(self, job: Job, reply: str, *, cut: bool = False, continued: int = 0,
               looping: bool = False) -> dict[str, Any]:
        """Entries from the model's reply, with ids, timestamp and session injected. ``cut``:
        the reply stopped at its token limit (after ``continued`` calls to go on).

        Raises ``UnreadReply`` when nothing in the reply could be used (no object read, or
        every one dropped): a failed attempt, shown as such, and no stand-in handoff written.
        """
        self.freshness.sync()

        def current(entry_id: str) -> str | None:
            with self.index.read() as conn:
                found = entries.get_entry(conn, entry_id)
            if found is None:
                return None
            return found.newest["id"]

        def fallback(entries: Sequence[Entry]) -> tuple[str, str] | None:
            return _fallback_handoff(entries)

        def held(entry: Entry) -> bool:
            with self.index.read() as conn:
                found = entries.current_contents(conn, entry.type, entry.subject,
                                                 entry.content)
            return same(entry.type, entry.content) in {same(entry.type, c) for c in found}

        report = OutputReport(continued=continued, looping=looping)
        built, report = build_entries(reply, job.session_id, job.entries_at or now_timestamp(),
                                      current, fallback, held=held, report=report)
        report.cut = report.cut or cut
        if report.unread() or (not built and report.invalid):
            raise outcomes.UnreadReply(report)
        if job.imported is not None:
            # an imported conversation's handoff would become the live one (the last in the
            # log): the state at the end of a conversation of last year is no handoff for today
            built = [e for e in built if e.type != "handoff"]
        on = relative_dates.conversation_date([m.get("timestamp") for m in job.messages],
                                              job.entries_at)
        return {"entries": [relative_dates.dated(entry_to_dict(e), on) for e in built],
                "report": report.to_json(), "at": now_timestamp()}

    def keep_result(self, job: Job) -> bool:
        """Save the model's result into the job, unless the job was removed while the model
        answered (a purge of its session, an import's rollback: under the data lock, as they
        remove it). False: it is gone, and its result must not reach the log."""
        with lock.exclusive(self.home.lock):
            if not self.spool.path(job.job_id).exists():
                return False
            self.spool.save(job)
            return True

    def finish(self, job: Job) -> int:
        """Append the job's entries that the log lacks, record it, delete it. Idempotent."""
        assert job.result is not None
        found = [validate_entry(e) for e in job.result["entries"]]
        with lock.exclusive(self.home.lock):
            if not self.spool.path(job.job_id).exists():
                return 0  # removed since it was read (a purge): nothing of it is appended
            self.freshness.sync(locked=True)
            with self.index.read() as conn:
                # not in the log yet: neither indexed nor hidden (a hidden entry has no row);
                # and not what the owner had remembered in this conversation (memory.remember)
                held = {_same(got.entry) for i in receipts.remembered(self.home, job.session_id)
                        if (got := entries.get_entry(conn, i)) is not None}
                missing = [e for e in found if entries.get_entry(conn, e.id) is None
                           and not entries.is_hidden(conn, e.id)
                           and _same({"type": e.type, "content": e.content}) not in held]
            subjects = {e.subject for e in found if e.subject}
            if subjects:
                self.subjects.ensure_locked(subjects)
            with self.index.read() as conn:  # what the owner is told at the next turn
                landed = [e.id for e in found if entries.get_entry(conn, e.id) is not None
                          or e in missing]
            # recorded before the sync below, whose change listeners format the receipt line
            # (a finish run again after a crash records the same receipt, not a second one)
            if job.imported is None:  # an import's entries are its manifest's, not a receipt
                receipts.record_locked(self.home, job.session_id, landed,
                                       source="extraction", job_id=job.job_id)
            if missing:
                self.store.append_locked(missing)
                # indexed before the job is gone: the hook, which does not catch up itself
                # (index/syncer.py), gives the new handoff once the job is no longer listed
                self.freshness.sync(locked=True)
            failpoints.reach("after-append")
            # an import keeps an outcome only when something was lost: thousands must not
            # each rewrite state.json
            outcome = outcomes.finished(job, appended=len(missing))
            if job.imported is None or outcomes.notable(outcome):
                self._keep_outcome_locked(outcome)
            logger.info("job %s (session %s): %s", job.job_id, job.session_id,
                        outcomes.describe(outcome))
            # an import's conversation is recorded by its manifest: thousands of them must not
            # each rewrite state.json, which would grow with every one (unless it failed before)
            if job.imported is None or job.session_id in load_state(self.home).failed_sessions:
                extracted_locked(self.home, job.session_id, entries=len(found),
                                 job_id=job.job_id, prune_days=self.config.prune_days)
            self.provenance.make_durable(job.session_id)  # the job's copy of them goes next
            self.spool.delete(job.job_id)
        self.freshness.sync()
        return len(missing)

    def _keep_outcome_locked(self, outcome: Outcome) -> None:
        kept = load_state(self.home).extraction_outcomes
        if kept and kept[-1].job_id == outcome.job_id and outcome.failed is None \
                and kept[-1].failed is None:
            return  # a finish run again after a crash: already kept
        outcome_locked(self.home, outcome)

    def fail(self, job: Job, reason: str, route: str | None = None,
             outcome: Outcome | None = None) -> None:
        """Count a failed model call: retry later once, then mark the job failed. ``outcome``:
        the reply was read and nothing in it could be used (kept for ``jobs`` and ``status``)."""
        if outcome is not None:
            with lock.exclusive(self.home.lock):
                self._keep_outcome_locked(outcome)
        job.attempts += 1
        job.route = route
        job.last_error = reason
        if job.attempts >= MAX_ATTEMPTS:
            job.state = "failed"
            job.not_before = None
            with lock.exclusive(self.home.lock):
                failed_locked(self.home, job.session_id, error=reason,
                              retries=job.attempts - 1, job_id=job.job_id,
                              prune_days=self.config.prune_days)
                self.spool.save(job)
            return
        job.state = "pending"
        job.not_before = time.time() + self.config.retry_wait_seconds
        self.spool.save(job)

    def wait(self, job: Job, reason: str, retry_after: float | None,
             route: str | None = None) -> None:
        """The model cannot be asked now: keep the job, try again later, use no attempt."""
        job.state = "waiting"
        job.route = route
        job.last_error = reason
        job.not_before = time.time() + max(retry_after or 0.0, self.config.retry_wait_seconds)
        self.spool.save(job)

    # -- the jobs methods ----------------------------------------------------------------------

    def jobs(self) -> JobsReport:
        jobs = self.spool.jobs()
        return JobsReport(jobs=[j.summary() for j in jobs], extraction=self.status(jobs))

    def retry(self, job_id: str | None) -> list[str]:
        """Make failed (or waiting) jobs due now, with one more attempt each."""
        self.pause.lift()
        retried = []
        with lock.exclusive(self.home.lock):
            jobs = self.spool.jobs()
            if job_id is not None and not any(j.job_id == job_id for j in jobs):
                raise NotFoundError(f"no job {job_id} in the spool", {"jobId": job_id})
            for job in jobs:
                if (job_id is None and job.state == "pending") or job_id not in (None,
                                                                                job.job_id):
                    continue
                if job.state == "failed":
                    job.attempts = MAX_ATTEMPTS - 1
                job.state, job.not_before = "pending", None
                self.spool.save(job)
                retried.append(job.job_id)
        return retried

    def status(self, jobs: Sequence[Job] | None = None) -> ExtractionStatus:
        jobs = self.spool.jobs() if jobs is None else jobs
        counts = JobCounts(*(sum(j.state == state for j in jobs)
                             for state in ("pending", "waiting", "failed")))
        waiting = self.pause.reason or next((j.last_error for j in jobs if j.state == "waiting"),
                                       None)
        return ExtractionStatus(
            model=self.config.model_id, api_key=bool(self.config.api_key),
            base_url=self.config.base_url, jobs=counts, waiting_for=waiting,
            concurrency=self.config.concurrency, route=self.router.status(),
            admission=self._admission_status(),
            transcripts=retention.kept(self.provenance, self.retention.transcript_days),
            budget=self.router.budget_status(),
            before_install=self._before_install_status(),
            recent=load_state(self.home).extraction_outcomes)

    def _before_install_status(self) -> BeforeInstallStatus:
        state = load_state(self.home)
        sessions = state.before_install.sessions
        return BeforeInstallStatus(since=state.since, sessions=sessions,
                                   at=state.before_install.at,
                                   hint=IMPORT_HINT if sessions else None)

    def _admission_status(self) -> AdmissionStatus:
        state = load_state(self.home)
        sessions = sum(1 for r in state.skipped_sessions.values()
                       if (r.reason or "").startswith(REASON_PREFIX))
        return self.intake.admission.status(state.admission_refused, sessions)

    # -- the gateway sweep ---------------------------------------------------------------------

    def sweep(self, sessions: Sequence[HostSession]) -> SweepReport:
        """Which of the host's sessions need extraction, and from which message; and retry the
        failed jobs that have not had their sweep retry. A session this memory has never seen
        whose last activity is older than the memory's start (``since``) is left out: it is
        ``zettelclaw import openclaw``'s, with its plan and budget (docs/13-import.md)."""
        need: list[Need] = []
        skipped: list[Skipped] = []
        since = _since_millis(load_state(self.home).since)
        before_install = 0
        for session in sessions:
            try:
                session_id = check_session_id(session.session_id)
            except InvalidParamsError as exc:  # that one session, named; not the whole sweep
                skipped.append(Skipped(session.session_id, exc.message))
                continue
            reason = self.intake.refusal(Subject(session_key=session.session_key,
                                                 agent_id=session.agent_id))
            if reason is not None:
                skipped.append(Skipped(session_id, reason))
                continue
            updated = session.updated_at
            seen = self.provenance.seen(session_id)
            if updated is not None and seen is not None and seen >= updated:
                continue  # read for a hook since its last activity
            last = self.provenance.last(session_id)
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
        with lock.exclusive(self.home.lock):
            update_state_locked(self.home, lambda state: _count_before_install(
                state, before_install))
            for job in self.spool.jobs():
                if job.state == "failed" and not job.sweep_retried:
                    job.state, job.attempts, job.sweep_retried = "pending", MAX_ATTEMPTS - 1, True
                    job.not_before = None
                    self.spool.save(job)
                    retried.append(job.job_id)
        return SweepReport(sessions=need, skipped=skipped, retried=retried)

    # -- provenance for memory.get --------------------------------------------------------------

    def transcript(self, session_id: str, start: int, count: int | None) -> FileSlice:
        records = self.provenance.messages(check_session_id(session_id))
        lines = [f"[{r.get('timestamp') or '?'}] {r.get('role')}: {r.get('text')}"
                 for r in records]
        chosen = lines[start - 1: None if count is None else start - 1 + count]
        return FileSlice(path=f"session:{session_id}", text="\n".join(chosen), start=start,
                    count=len(chosen), total=len(lines), truncated=False)


def _same(entry: Mapping[str, Any]) -> tuple[str, str]:
    return same(str(entry["type"]), str(entry["content"]))


def _entry_line(entry: Mapping[str, Any]) -> str:
    status = f" [{entry['status']}]" if entry.get("status") else ""
    subject = f" ({entry['subject']})" if entry.get("subject") else ""
    return f"- id {entry['id']} · {entry['type']}{status}{subject}: {entry['content']}"


FALLBACK_NOTE = "The extraction model wrote no handoff; the sidecar assembled this one."


def _fallback_handoff(entries: Sequence[Entry]) -> tuple[str, str] | None:
    """A handoff made of the conversation's first entries, when the model wrote none; with no
    entry, none: a stand-in sentence would come back in later prompts as something memory
    holds, and the model would copy it."""
    if not entries:
        return None
    topics = "; ".join(e.content for e in entries[:3])
    return f"Session covered: {topics}"[:600], FALLBACK_NOTE


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


def with_context(job: Job, transcript: str, max_chars: int) -> str:
    """The transcript after the end of what an earlier import sent of the same conversation
    (a quarter of the budget at most), marked as context: the model sees what the new part
    answers without extracting the old part again."""
    earlier, _ = render([Message.from_json(m) for m in job.context], max_chars // 4)
    return (f"(Earlier in this conversation; already in memory, for context only: extract "
            f"nothing from this part)\n{earlier}\n\n(The conversation goes on; extract from "
            f"here)\n{transcript}")
