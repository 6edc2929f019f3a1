"""Extraction's operations on disk: prompts, results, finishing jobs, listing and retrying them.

Synchronous and called from worker threads (the async loop is ``worker``). Finishing a job is
idempotent: it appends only the entries of the job's saved result that the log does not hold
yet, then deletes the job. A crash anywhere in it is finished by running it again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from zettelclaw import failpoints, lock, prompts_loader
from zettelclaw.config import AdmissionConfig, ExtractionConfig, RetentionConfig
from zettelclaw.errors import NotFoundError
from zettelclaw.extraction import context, outcomes, parts, relative_dates, retention, sweep
from zettelclaw.extraction.admission import REASON_PREFIX, AdmissionStatus
from zettelclaw.extraction.bookkeeping import extracted_locked, failed_locked, outcome_locked
from zettelclaw.extraction.held import holds
from zettelclaw.extraction.intake import Intake
from zettelclaw.extraction.output import OutputReport, build_entries, same
from zettelclaw.extraction.pause import ModelPause
from zettelclaw.extraction.provenance import Provenance, check_session_id
from zettelclaw.extraction.reports import (
    ExtractionStatus,
    JobCounts,
    JobsReport,
    before_install_status,
)
from zettelclaw.extraction.spool import MAX_ATTEMPTS, Job, Spool
from zettelclaw.extraction.sweep import HostSession, SweepReport
from zettelclaw.extraction.transcript import Message, render
from zettelclaw.files import remove_stale_temps
from zettelclaw.home import Home
from zettelclaw.index import entries
from zettelclaw.index.database import Index
from zettelclaw.index.freshness import Freshness
from zettelclaw.llm.host import retired_handle
from zettelclaw.llm.route import Router
from zettelclaw.log.schema import Entry, entry_to_dict, now_timestamp, validate_entry
from zettelclaw.log.store import LogStore
from zettelclaw.recall import receipts
from zettelclaw.state import Outcome, load_state
from zettelclaw.subjects.registry import SubjectRegistry
from zettelclaw.workspace.memory_files import FileSlice

logger = logging.getLogger(__name__)


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
               looping: bool = False, set_aside: int = 0) -> dict[str, Any]:
        """Entries from the model's reply, with ids, timestamp and session injected. ``cut``:
        the reply stopped at its token limit (after ``continued`` calls to go on).

        Raises ``UnreadReply`` when nothing in the reply could be used (no object read, or
        only invalid ones): a failed attempt, and no stand-in handoff written. Objects all held
        already or repeated (``OutputReport.nothing_new``) are no failure: no entry is written."""
        self.freshness.sync()

        def current(entry_id: str) -> str | None:
            with self.index.read() as conn:
                found = entries.get_entry(conn, entry_id)
            if found is None:
                return None
            return found.newest["id"]

        def fallback(entries: Sequence[Entry]) -> tuple[str, str] | None:
            return _fallback_handoff(entries)

        on = relative_dates.conversation_date([m.get("timestamp") for m in job.messages],
                                              job.entries_at)

        def held(entry: Entry) -> bool:
            # as it will be written: memory holds "last year (2022)", not "last year"
            content = relative_dates.resolve(entry.content, on)
            with self.index.read() as conn:
                return holds(conn, entry, content)

        report = OutputReport(continued=continued, looping=looping, set_aside=set_aside)
        built, report = build_entries(reply, job.session_id, job.said_at(),
                                      current, fallback, held=held, report=report)
        report.cut = report.cut or cut
        if report.unread() or (not built and report.invalid and not report.nothing_new()):
            raise outcomes.UnreadReply(report)
        if job.imported is not None:
            # an imported conversation's handoff would become the live one (the last in the
            # log): the state at the end of a conversation of last year is no handoff for today
            built = [e for e in built if e.type != "handoff"]
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
                new = [e for e in found if entries.get_entry(conn, e.id) is None
                       and not entries.is_hidden(conn, e.id)]
                # held since the reply was read: another job of this memory finished meanwhile
                # (two conversations that said the same thing, extracted side by side)
                late = {e.id for e in new if holds(conn, e, e.content)}
            found = [e for e in found if e.id not in late]
            missing = [e for e in new if e.id not in late
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
            outcome = outcomes.finished(job, appended=len(missing), held_late=len(late))
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
            before_install=before_install_status(load_state(self.home)),
            recent=load_state(self.home).extraction_outcomes)

    def _admission_status(self) -> AdmissionStatus:
        state = load_state(self.home)
        sessions = sum(1 for r in state.skipped_sessions.values()
                       if (r.reason or "").startswith(REASON_PREFIX))
        return self.intake.admission.status(state.admission_refused, sessions)

    # -- the gateway sweep ---------------------------------------------------------------------

    def sweep(self, sessions: Sequence[HostSession]) -> SweepReport:
        """Which of the host's sessions need extraction, and from which message; and retry the
        failed jobs that have not had their sweep retry (extraction/sweep.py)."""
        return sweep.sweep(self.home, self.intake, self.provenance, self.spool, sessions)

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


def with_context(job: Job, transcript: str, max_chars: int) -> str:
    """The transcript after the end of what an earlier import sent of the same conversation
    (a quarter of the budget at most), marked as context: the model sees what the new part
    answers without extracting the old part again."""
    earlier, _ = render([Message.from_json(m) for m in job.context], max_chars // 4)
    return (f"(Earlier in this conversation; already in memory, for context only: extract "
            f"nothing from this part)\n{earlier}\n\n(The conversation goes on; extract from "
            f"here)\n{transcript}")
