"""An import: plan it, apply it (in slices, resumable), roll it back.

Blocking, on one memory (``App``); the ``import.*`` methods run it in a worker thread, in the
sidecar when one runs (its extraction loop is woken for the jobs), else in the CLI's process on
the same files under the same data lock (the jobs wait in the spool for the sidecar).

- Conversations go through the live path: ``extraction.intake`` (the admission policy, the scope
  rules, the scrubber, the message keys that make extraction exactly-once, the spool), with the
  import's id and the conversation's time in the job: its entries take that time, not today's,
  and it writes no handoff (the last conversation's handoff stays the live one's).
- Notes become entries directly (``notes.py``: scrubbed, checked), with the session
  ``import:<id>``; their ids are derived from the import's id and the note's key, so a write done
  again after a crash finds them in the log and appends nothing.
- The manifest (``manifest.py``) records each item before its write and after it; the keys of
  every import not rolled back are skipped by the next (``reading.py``): re-importing adds
  nothing. What the methods answer: ``answers.py``.
- Rollback (``rollback.py``) purges what the import wrote.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass
from typing import Any, Protocol

from zettelclaw import failpoints, lock
from zettelclaw.config import Config
from zettelclaw.errors import InvalidParamsError
from zettelclaw.extraction import intake
from zettelclaw.extraction.admission import Subject
from zettelclaw.extraction.intake import HookCall
from zettelclaw.extraction.service import Extraction
from zettelclaw.home import Home
from zettelclaw.importing import estimate
from zettelclaw.importing import manifest as manifests
from zettelclaw.importing.answers import PRICES_SOURCE, Cost, Estimated, Plan, Progress, Row
from zettelclaw.importing.items import Conversation, Problem
from zettelclaw.importing.manifest import Manifest, Record
from zettelclaw.importing.notes import timestamp, write_notes
from zettelclaw.importing.reading import Read, Source, messages_digest, read
from zettelclaw.index import space
from zettelclaw.index.database import Index
from zettelclaw.index.freshness import Freshness
from zettelclaw.subjects.registry import SubjectRegistry

# the source an import is of (``reading.Source``) is the argument of plan and apply: callers
# name it here, with them
__all__ = ["App", "Source", "apply", "listing", "plan", "progress"]

logger = logging.getLogger(__name__)

CONTEXT_MESSAGES = 12  # of a continued conversation, the earlier messages shown with the rest
NOTE_BATCH = 500  # notes written per manifest step (two manifest writes and one append)
SLICE_SECONDS = 2.0  # an apply call returns after about this long; the caller calls again


class App(Protocol):
    """What of a memory (``app.App``) an import uses."""

    home: Home
    settings: Config
    index: Index
    freshness: Freshness
    subjects: SubjectRegistry
    extraction: Extraction


# -- the plan ------------------------------------------------------------------------------------

def plan(app: App, source: Source, budget: int | None = None) -> Plan:
    """What ``apply`` would do, and what it would cost; writes nothing."""
    source = source.resolved()
    resumed = _unfinished(app.home, source)
    return _proposal(app, source, read(app.home, source, current=resumed), budget=budget,
                     resumed=resumed, base=_base_tokens(app))


def _proposal(app: App, source: Source, found: Read, *, budget: int | None,
              resumed: Manifest | None, base: int) -> Plan:
    """The plan of ``found``, the source as read (``base``: a prompt's tokens without its
    conversation)."""
    config = app.settings.extraction
    kept = [_pending(app, c, base) for _, c in found.conversations
            if _refusal(app, c, source.agent) is None]
    todo = [p for p in kept if p.declined is None]
    remembered = sum(p.declined == intake.NOTHING_NEW for p in kept)
    input_tokens = sum(p.estimate.input_tokens for p in todo)
    output_tokens = sum(p.estimate.output_tokens for p in todo)
    limit = _budget(app, budget, resumed)
    route = app.extraction.router.choose().route
    costs = [Cost(model, estimate.cost(model, input_tokens, output_tokens))
             for model in estimate.models(config.model_id)]
    spooled = resumed.spooled_tokens if resumed else 0
    assert source.kind is not None  # resolved
    return Plan(
        kind=source.kind, path=str(source.path), agent=source.agent,
        conversations=len(todo),
        messages=sum(p.messages for p in todo),
        notes=len(found.notes), total=found.total,
        already_imported=found.imported, already_remembered=remembered,
        out_of_range=found.out_of_range,
        out_of_scope=len(found.conversations) - len(todo) - remembered,
        problems=list(found.problems),
        estimate=Estimated(input_tokens=input_tokens, output_tokens=output_tokens,
                           tokens=input_tokens + output_tokens, route=route,
                           model=(config.local_model if route == "local" else
                                  config.model_id if route != "host" else None), costs=costs,
                           prices=PRICES_SOURCE),
        budget=limit, fits=not limit or spooled + input_tokens + output_tokens <= limit,
        resumes=resumed.id if resumed else None)


@dataclass(frozen=True, slots=True)
class _Pending:
    """What the intake would take of a conversation now (``Intake.pending``)."""

    estimate: estimate.Estimate  # the model tokens of extracting it
    messages: int  # its messages not received yet
    declined: str | None  # why it would take none of them (``intake.declined``)


def _pending(app: App, conversation: Conversation, base: int) -> _Pending:
    """A session of the host's own (OpenClaw's) may have been taken by the live path already,
    in whole or in part: what is left of it, as the intake would see it at the apply (the
    plan and the budget count only that). A conversation without one (an export's) gets a
    session of the import's own, which nothing was received for: all of it is new, and it is
    not keyed here (keying scrubs every message, ~30 times the estimate's cost, once more for
    the plan and once more for each slice of a multi-gigabyte export)."""
    max_chars = app.settings.extraction.max_transcript_chars
    if conversation.session_id is None:
        return _Pending(estimate.conversation(conversation, max_chars, base, CONTEXT_MESSAGES),
                        len(conversation.messages), intake.declined(conversation.messages))
    new, why = app.extraction.intake.pending(conversation.session_id,
                                             [_message(m) for m in conversation.messages])
    return _Pending(estimate.transcript(new, max_chars, base), len(new), why)


def _refusal(app: App, conversation: Conversation, agent: str) -> str | None:
    """Why the intake would refuse the conversation, as it would at the apply; None: it would
    take it."""
    return app.extraction.intake.refusal(Subject(
        session_key=conversation.session_key, agent_id=agent, channel=conversation.channel))


def _base_tokens(app: App) -> int:
    """The tokens of a prompt without its conversation: the template, the subjects and the
    related entries this memory would list."""
    app.freshness.sync()
    return estimate.template_tokens() + estimate.context_tokens(
        space.entry_total(app.index), len(app.subjects.load()),
        app.settings.extraction.relevant_entries)


def _problem(problem: Problem) -> dict[str, str]:
    return {"origin": problem.origin, "message": problem.message}


def _budget(app: App, budget: int | None, resumed: Manifest | None) -> int:
    if budget is not None:
        return budget
    if resumed is not None and resumed.budget:
        return resumed.budget
    return app.settings.budget.import_tokens


def _unfinished(home: Home, source: Source) -> Manifest | None:
    """The last import of this source that did not finish (cut short, or stopped at its
    budget): an apply goes on with it."""
    for found in reversed(manifests.every(home)):
        if found.state in ("running", "stopped") and found.kind == source.kind and \
                found.path == str(source.path) and found.agent == source.agent:
            return found
    return None


# -- applying ------------------------------------------------------------------------------------

def apply(app: App, source: Source, *, budget: int | None = None,
          slice_seconds: float = SLICE_SECONDS) -> Progress:
    """Import for about ``slice_seconds`` (the items of an unfinished import of the same source
    first), then say how far it got; called again until its ``state`` is not ``running``."""
    source = source.resolved()
    started = time.monotonic()
    current = _unfinished(app.home, source)
    # a new import reads the source once, for its plan and its first slice alike
    found: Read | None = None
    base: int | None = None
    if current is None:
        found, base = read(app.home, source), _base_tokens(app)
        proposal = _proposal(app, source, found, budget=budget, resumed=None, base=base)
        if not proposal.conversations and not proposal.notes:  # no import to make
            # (what the scope rules refuse is not one: the apply would only skip it)
            return Progress(import_id=None, state="done", stop_reason=None,
                            total=proposal.total, done=proposal.total, notes=0,
                            conversations=0, skipped=0, spooled_tokens=0,
                            budget=proposal.budget, problems=proposal.problems)
        if not proposal.fits and budget is None:  # a --budget given is taken as meant:
            # the import stops when it is reached, and goes on when applied again
            raise InvalidParamsError(
                f"this import would use about {proposal.estimate.tokens:,} model tokens,"
                f" over the default budget of {proposal.budget:,} (budget.importTokens); "
                f"pass --budget {proposal.estimate.tokens} (or more) to import it all, "
                "or a smaller one to import that much now and the rest later",
                [{"field": "budget", "message": "over budget", "type": "value_error"}])
        assert source.kind is not None
        current = Manifest(id=manifests.new_id(source.kind), kind=source.kind,
                           path=str(source.path), agent=source.agent,
                           created_at=manifests.now(), updated_at=manifests.now(),
                           budget=proposal.budget,
                           since=source.since.isoformat() if source.since else None,
                           until=source.until.isoformat() if source.until else None)
    elif budget is not None:
        current.budget = budget
    current.state, current.stop_reason = "running", None
    manifests.save(app.home, current)
    if any(r.state == "writing" and r.what == "conversation" for r in current.items.values()):
        # a job spooled before its messages were recorded as received (a kill between the
        # two): recorded now, as the worker does at start, so the intake does not spool it twice
        with lock.exclusive(app.home.lock):
            app.extraction.intake.recover_locked()
    _redo_unfinished(current)
    if found is None:  # an unfinished import goes on: its items as it holds them count as taken
        found = read(app.home, source, current=current)
    current.problems = [_problem(p) for p in found.problems]
    if base is None:
        base = _base_tokens(app)
    # every slice reads the source again: a large one (a 2 GB export) gets a slice twice as
    # long as its reading, so that reading never takes more than a third of the time
    read_seconds = time.monotonic() - started
    deadline = time.monotonic() + max(slice_seconds, 2 * read_seconds)
    notes = found.notes
    while notes and time.monotonic() < deadline:
        batch, notes = notes[:NOTE_BATCH], notes[NOTE_BATCH:]
        write_notes(app, current, batch)
    conversations = found.conversations
    while conversations and not notes and time.monotonic() < deadline:
        key, conversation = conversations[0]
        pending = _pending(app, conversation, base)
        tokens = pending.estimate.tokens if pending.declined is None else 0
        if tokens and current.budget and current.spooled_tokens + tokens > current.budget:
            current.state = "stopped"
            current.stop_reason = (
                f"the import's budget is reached: {current.spooled_tokens:,} of "
                f"{current.budget:,} tokens spooled; {len(conversations)} conversation(s) "
                "left: apply again with a larger --budget to go on")
            break
        _spool(app, current, key, conversation, tokens)
        conversations = conversations[1:]
    left = len(notes) + len(conversations)
    if current.state == "running" and left == 0:
        current.state = "done"
    manifests.save(app.home, current)
    return progress(current, found.total, left)


def progress(current: Manifest, total: int, left: int) -> Progress:
    records = current.items.values()
    return Progress(import_id=current.id, state=current.state, stop_reason=current.stop_reason,
                    total=total, done=total - left,
                    notes=sum(r.what == "note" and bool(r.entries) for r in records),
                    conversations=sum(r.job_id is not None for r in records),
                    skipped=sum(r.skipped is not None for r in records),
                    spooled_tokens=current.spooled_tokens, budget=current.budget,
                    problems=[Problem(p["origin"], p["message"]) for p in current.problems])


def _redo_unfinished(current: Manifest) -> None:
    """Items recorded as being written when the import was cut short: their records go, so the
    items count as new and are written again (a note's entry has the same id, found in the log
    if it got there; a conversation goes through the intake again, whose message keys know
    whether it was spooled). What they may have written stays listed for a rollback."""
    for key, record in list(current.items.items()):
        if record.state != "writing":
            continue
        current.uncertain_entries += [i for i in record.entries
                                      if i not in current.uncertain_entries]
        if record.what == "conversation" and record.session not in current.uncertain_sessions:
            current.uncertain_sessions.append(record.session)
        logger.info("import %s: %s was cut short; it is written again", current.id,
                    record.origin)
        del current.items[key]


def _spool(app: App, current: Manifest, key: str, conversation: Conversation,
           tokens: int) -> None:
    digest = hashlib.blake2b(key.encode(), digest_size=6).hexdigest()
    session = conversation.session_id or f"import:{current.id}:{digest}"
    record = Record(source_id=conversation.source_id, what="conversation",
                    origin=conversation.origin, session=session, tokens=tokens)
    if conversation.session_id is None:  # an export's: a later export may continue it
        whole = (*conversation.context, *conversation.messages)
        record.sent, record.digest = len(whole), messages_digest(whole)
    current.items[key] = record
    manifests.save(app.home, current)
    failpoints.reach("import-after-manifest")
    last = next((m.at for m in reversed(conversation.messages) if m.at is not None), None)
    answer = app.extraction.intake.accept(HookCall(
        trigger="import", session_id=session, session_key=conversation.session_key,
        agent_id=current.agent, reason=f"import {current.id}", channel=conversation.channel,
        messages=[_message(m) for m in conversation.messages], import_id=current.id,
        entries_at=timestamp(last) if last else None,
        context=[_message(m) for m in conversation.context[-CONTEXT_MESSAGES:]] or None))
    failpoints.reach("import-after-spool")
    record.job_id = answer.job_id
    if record.job_id is None:
        record.skipped = answer.skipped or "nothing spooled"
    else:
        current.spooled_tokens += tokens
    record.state = "done"
    manifests.save(app.home, current)


def _message(message: Any) -> dict[str, Any]:
    value: dict[str, Any] = {"role": message.role, "content": message.text,
                             "timestamp": estimate.iso(message.at)}
    if message.from_owner is not None:
        value["__openclaw"] = {"senderIsOwner": message.from_owner}
    return value


# -- listing (rollback: rollback.py) ---------------------------------------------------------------

def listing(home: Home) -> list[Row]:
    return [Row(import_id=m.id, kind=m.kind, path=m.path, agent=m.agent, state=m.state,
                created_at=m.created_at, updated_at=m.updated_at,
                notes=sum(bool(r.entries) for r in m.items.values()),
                conversations=sum(r.job_id is not None for r in m.items.values()),
                spooled_tokens=m.spooled_tokens, budget=m.budget)
            for m in manifests.every(home)]
