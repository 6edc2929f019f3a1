"""The hooks' side of extraction: validate, keep what is new, spool it, answer.

This is all a hook waits for: no model call. Under the data lock it keeps only the messages not
received before (by key), writes them as a job in the spool (fsynced: the one durable write a
hook waits for), then appends them to the session's provenance transcript (fsynced later, before
the job is deleted), and answers. A crash between or after the two writes is mended at the next
start (``recover``): the spool is written first, so nothing accepted is lost.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from zettelclaw import failpoints, lock
from zettelclaw.config import AdmissionConfig, ExtractionConfig
from zettelclaw.errors import InvalidParamsError, NotFoundError, PathNotAllowedError
from zettelclaw.extraction.admission import Admission, Subject
from zettelclaw.extraction.bookkeeping import skipped_locked
from zettelclaw.extraction.provenance import Provenance, check_session_id
from zettelclaw.extraction.spool import Job, Spool, new_job_id
from zettelclaw.extraction.transcript import Message, normalize, read_jsonl, transcript_file
from zettelclaw.home import Home
from zettelclaw.log.schema import now_timestamp
from zettelclaw.session_keys import automated_reason


@dataclass(frozen=True)
class HookCall:
    trigger: str  # sessionEnd | beforeReset
    session_id: str
    session_key: str | None = None
    agent_id: str | None = None
    reason: str | None = None
    messages: Sequence[Any] | None = None
    transcript_path: str | None = None
    read_at: float | None = None  # when the host read the transcript (epoch ms), if it says
    channel: str | None = None  # the host's channel (telegram, ...), if it says
    sender_id: str | None = None  # who spoke to the agent, if the host says
    import_id: str | None = None  # an import's conversation (importing/): its job says so
    entries_at: str | None = None  # an import's: the time its entries take
    context: Sequence[Any] | None = None  # an import's: what an earlier import sent of it

    def subject(self) -> Subject:
        return Subject(session_key=self.session_key, agent_id=self.agent_id,
                       channel=self.channel, sender_id=self.sender_id)


@dataclass(frozen=True, slots=True)
class Accepted:
    """What a hook's transcript became: a job (``job_id``), or why none (``skipped``); and
    how many of its messages were new (None: not read)."""

    job_id: str | None = None
    skipped: str | None = None
    messages: int | None = None


NOTHING_NEW = "nothing new: these messages were already received"
SOMEONE_ELSE = "someone other than the owner speaks in this conversation"
NO_USER_MESSAGE = "no user message"


class Spoken(Protocol):
    """A message as ``declined`` reads it: the intake's, or an import's before it is keyed."""

    @property
    def role(self) -> str: ...

    @property
    def from_owner(self) -> bool | None: ...


def declined(new: Sequence[Spoken]) -> str | None:
    """Why the intake spools none of ``new``, a conversation's messages not received yet
    (None: it spools them): nothing new, someone other than the owner speaks, or nobody but
    the assistant does."""
    if not new:
        return NOTHING_NEW
    if any(m.role == "user" and m.from_owner is False for m in new):
        return SOMEONE_ELSE
    if not any(m.role == "user" for m in new):
        return NO_USER_MESSAGE
    return None


class Intake:
    def __init__(self, home: Home, config: ExtractionConfig, provenance: Provenance,
                 spool: Spool, transcript_roots: Sequence[Path], *,
                 admission: AdmissionConfig | None = None) -> None:
        self.home = home
        self.config = config
        self.admission = Admission(admission or AdmissionConfig())
        self.provenance = provenance
        self.spool = spool
        self.transcript_roots = [Path(os.path.realpath(r)) for r in transcript_roots]

    def skip_reason(self, session_key: str | None) -> str | None:
        return automated_reason(session_key, frozenset(self.config.skip_session_types))

    def refusal(self, subject: Subject) -> str | None:
        """Why ``accept`` would take nothing of a conversation before reading it (the admission
        policy, then the scope rules: a cron, group or sub-agent session); None: it reads it.
        For those that ask ahead of a hook: the gateway's sweep, an import's plan."""
        return self.admission.refusal(subject) or self.skip_reason(subject.session_key)

    def accept(self, call: HookCall) -> Accepted:
        """Spool the new part of a transcript: the job, or why there is none."""
        session_id = check_session_id(call.session_id)
        refusal = self.admission.refusal(call.subject())
        if refusal is not None:  # before the transcript is read: nothing of it is kept
            with lock.exclusive(self.home.lock):
                skipped_locked(self.home, session_id, refusal,
                               prune_days=self.config.prune_days, refused=True)
                if call.read_at is not None:  # a channel or sender the sweep cannot see:
                    # it leaves the session out until the host has newer activity in it
                    self.provenance.mark_seen(session_id, min(call.read_at, time.time() * 1000))
            return Accepted(skipped=refusal)
        reason = self.skip_reason(call.session_key)
        if reason is not None:
            self._skip(session_id, f"{reason} (key {call.session_key})")
            return Accepted(skipped=reason)
        messages = normalize(self._items(call))
        with lock.exclusive(self.home.lock):
            result = self._accept_locked(session_id, messages, call)
            if call.read_at is not None:
                # Only now that what it held is spooled or judged: a sweep may leave this
                # session out until the host has newer activity in it. Never a time to come
                # (one would hide the session's next activity from the sweep).
                self.provenance.mark_seen(session_id, min(call.read_at, time.time() * 1000))
        return result

    def pending(self, session_id: str, items: Sequence[Any]) -> tuple[list[Message], str | None]:
        """What ``accept`` would take of a conversation now, read only (an import's plan): its
        messages not received yet for ``session_id``, and why it would spool none of them
        (``declined``; None: it would spool them)."""
        received = self.provenance.keys(check_session_id(session_id))
        new = [m for m in normalize(items) if m.key not in received]
        return new, declined(new)

    def _accept_locked(self, session_id: str, messages: Sequence[Message], call: HookCall
                       ) -> Accepted:
        received = self.provenance.keys(session_id)
        new = [m for m in messages if m.key not in received]
        why = declined(new)
        if why == NOTHING_NEW:
            return Accepted(skipped=why, messages=0)
        if why == SOMEONE_ELSE:
            # Someone else speaks here (a group routed into the main session, or a DM from
            # another person): their words do not become the owner's memory. Not recorded
            # as received, so nothing of it is kept either.
            self._skip_locked(session_id, "someone other than the owner speaks in it")
            return Accepted(skipped=why, messages=0)
        if why == NO_USER_MESSAGE:
            self.provenance.append(session_id, new, None, durable=False)
            self._skip_locked(session_id, "no user message in the new part of the transcript")
            return Accepted(skipped=why, messages=len(new))
        job = Job(job_id=new_job_id(), session_id=session_id, session_key=call.session_key,
                  agent_id=call.agent_id, trigger=call.trigger, reason=call.reason,
                  created_at=now_timestamp(), messages=[m.to_json() for m in new],
                  imported=call.import_id, entriesAt=call.entries_at,
                  context=[m.to_json() for m in normalize(call.context or [])])
        self.spool.save(job)
        failpoints.reach("after-spool")
        self.provenance.append(session_id, new, job.job_id, durable=False)
        failpoints.reach("after-provenance")
        return Accepted(job_id=job.job_id, messages=len(new))

    def _items(self, call: HookCall) -> Sequence[Any]:
        if call.messages is not None:
            return call.messages
        if call.transcript_path is None:
            raise InvalidParamsError(
                "a transcript is needed: send messages (inline) or transcriptPath",
                [{"field": "messages", "message": "messages or transcriptPath is required",
                  "type": "missing"}])
        return list(read_jsonl(self._transcript_file(call.transcript_path)))

    def _transcript_file(self, path: str) -> Path:
        """The transcript file a caller names, only inside the configured transcript roots."""
        real = Path(os.path.realpath(path))
        inside = any(real.is_relative_to(root) for root in self.transcript_roots)
        transcript_name = real.name.endswith(".jsonl") or ".jsonl.reset." in real.name
        if not inside or not transcript_name:
            roots = ", ".join(str(r) for r in self.transcript_roots) or "(none configured)"
            raise PathNotAllowedError(f"transcriptPath must be a .jsonl file under {roots}",
                                      {"path": path})
        found = transcript_file(real)
        if found is None:
            raise NotFoundError(f"no transcript at {path} (nor a .reset.* rotation of it)",
                                {"path": path})
        found_real = Path(os.path.realpath(found))  # a rotation may be a link out of the roots
        if not any(found_real.is_relative_to(root) for root in self.transcript_roots):
            raise PathNotAllowedError(f"{found} leads outside the transcript roots",
                                      {"path": path})
        return found_real

    def _skip(self, session_id: str, reason: str) -> None:
        with lock.exclusive(self.home.lock):
            self._skip_locked(session_id, reason)

    def _skip_locked(self, session_id: str, reason: str) -> None:
        skipped_locked(self.home, session_id, reason, prune_days=self.config.prune_days)

    def recover_locked(self) -> int:
        """After a crash between spooling a job and recording its messages as received:
        record them now. Returns how many messages were recorded."""
        recorded = 0
        for job in self.spool.jobs():
            received = self.provenance.keys(job.session_id)
            missing = [m for m in job.message_objects() if m.key not in received]
            if missing:
                self.provenance.append(job.session_id, missing, job.job_id)
                recorded += len(missing)
        return recorded
