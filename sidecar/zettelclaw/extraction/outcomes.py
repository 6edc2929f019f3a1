"""What became of an extraction job's model reply (``Outcome``, kept in state.json after the
job is gone: ``jobs`` and ``status`` show the last ones), and the reply nothing could be read
from (``UnreadReply``: a failed attempt, not a stand-in entry)."""

from __future__ import annotations

from zettelclaw.extraction.output import OutputReport
from zettelclaw.extraction.spool import Job
from zettelclaw.log.schema import now_timestamp
from zettelclaw.state import Outcome


def finished(job: Job, appended: int, held_late: int = 0) -> Outcome:
    """``held_late``: entries of the reply that memory came to hold after it was read (another
    job's, finished first), dropped when the job finished: counted as held, not written."""
    assert job.result is not None
    report = job.result.get("report") or {}
    invalid, duplicates, held = (int(report.get(k) or 0)
                                 for k in ("invalid", "duplicates", "held"))
    held += held_late
    written = len(job.result["entries"]) - held_late
    outcome = Outcome(at=now_timestamp(), job_id=job.job_id, session_id=job.session_id,
                      route=job.route, lines=int(report.get("lines") or 0),
                      objects=int(report.get("objects") or 0),
                      entries=written, appended=appended,
                      dropped=invalid + duplicates + held, duplicates=duplicates, held=held,
                      reasons=list(dict.fromkeys(report.get("invalidReasons") or []))[:5],
                      cut=bool(report.get("cut")), continued=int(report.get("continued") or 0),
                      looping=bool(report.get("looping")),
                      nothing_new=bool(report.get("nothingNew")) or (held_late > 0
                                                                     and written == 0),
                      set_aside=int(report.get("setAside") or 0))
    outcome.note = describe(outcome)
    return outcome


def unread_outcome(job: Job, error: UnreadReply, route: str | None) -> Outcome:
    report = error.report
    outcome = Outcome(at=now_timestamp(), job_id=job.job_id, session_id=job.session_id,
                      route=route, lines=report.lines, objects=report.objects,
                      dropped=len(report.invalid),
                      reasons=list(dict.fromkeys(report.invalid))[:5], cut=report.cut,
                      continued=report.continued, looping=report.looping,
                      set_aside=report.set_aside, failed=error.reason)
    outcome.note = describe(outcome)
    return outcome


def notable(outcome: Outcome) -> bool:
    return bool(outcome.dropped or outcome.cut or outcome.continued or outcome.failed)


class UnreadReply(Exception):
    """The model's reply gave no usable entry: what was read and why each was dropped."""

    def __init__(self, report: OutputReport) -> None:
        reasons = "; ".join(dict.fromkeys(report.invalid[:5])) or "no JSON object in it"
        cut = " (it stopped at its token limit)" if report.cut else ""
        super().__init__(f"no entry could be read from the model's reply{cut}: "
                         f"{report.objects} object(s) read, {len(report.invalid)} dropped "
                         f"({reasons})")
        self.reason = str(self)
        self.report = report


def describe(outcome: Outcome) -> str:
    """The outcome in one sentence, for the log, ``jobs`` and ``status``."""
    if outcome.failed:
        return f"failed: {outcome.failed}"
    if outcome.nothing_new:
        parts = [f"nothing new: {outcome.lines} line(s), {outcome.objects} object(s) read, "
                 "all of them held already or repeated, no entry written"]
    else:
        parts = [f"{outcome.objects} object(s) read, {outcome.entries} entr"
                 f"{'y' if outcome.entries == 1 else 'ies'} written"]
    drops = []
    if outcome.duplicates:
        drops.append(f"{outcome.duplicates} repeated in the reply")
    if outcome.held:
        drops.append(f"{outcome.held} already in memory")
    invalid = outcome.dropped - outcome.duplicates - outcome.held
    if invalid > 0:
        reasons = "; ".join(outcome.reasons[:3])
        drops.append(f"{invalid} invalid ({reasons})" if reasons else f"{invalid} invalid")
    if drops:
        parts.append("dropped: " + ", ".join(drops))
    if outcome.set_aside:
        parts.append(f"{outcome.set_aside} fact(s) of a message read alone set aside (not "
                     "its speaker's, or of the talk)")
    if outcome.cut:
        how = " while repeating itself" if outcome.looping else ""
        went_on = (f" after {outcome.continued} call(s) to go on" if outcome.continued
                   else "")
        parts.append(f"the reply stopped at its token limit{how}{went_on}: entries past the "
                     "cut are missing")
    elif outcome.continued:
        parts.append(f"the reply reached its token limit and was continued "
                     f"{outcome.continued} time(s)")
    return "; ".join(parts)
