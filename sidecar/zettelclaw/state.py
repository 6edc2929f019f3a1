"""state.json: the sidecar's own bookkeeping, one model for the whole file (``State``), read with
defaults and replaced whole, atomically, under the data lock: here and nowhere else.

It records, per session, which were extracted (``extractedSessions``), which failed for good
(``failedSessions``) and which were left out and why (``skippedSessions``); how many hooks the
admission policy refused (``admissionRefused``); the briefing's last and next runs
(``briefing``); the memory's start (``since``: set once, app.py ``_mend_home``), before which
the gateway's sweep extracts no session it has never seen, and how many the last sweep left out
so (``beforeInstall``). These are records for people and ``status``: the exactly-once guarantees
rest on the spool and the provenance transcripts. Every field has a default, so a file of any
earlier version reads (a missing part is empty); a key this version does not know is kept as it
was, and a record that does not read (not an object, a wrong type) is dropped rather than the file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from zettelclaw.files import atomic_write_json, read_json_object
from zettelclaw.home import Home

STATE_VERSION = 1

T = TypeVar("T")


class Part(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")


class Extracted(Part):
    at: str | None = None
    entries: int = 0  # added up over the session's jobs
    jobs: int = 0
    last_job: str | None = None


class Failed(Part):
    at: str | None = None
    error: str | None = None
    retries: int | None = None
    job_id: str | None = None


class Skipped(Part):
    at: str | None = None
    reason: str | None = None


class Outcome(Part):
    """What became of one extraction job's model reply: objects read, entries written, what was
    dropped and why, whether the reply was cut at its token limit; or why the job failed."""

    at: str | None = None
    job_id: str | None = None
    session_id: str | None = None
    route: str | None = None
    lines: int = 0  # non-blank lines of the reply
    objects: int = 0  # JSON objects read from the reply
    entries: int = 0  # entries the reply gave, once checked and deduplicated
    appended: int = 0  # of those, appended (the rest were in the log already: a rerun)
    dropped: int = 0  # objects not written: invalid, repeated, or already held
    duplicates: int = 0
    held: int = 0
    reasons: list[str] = Field(default_factory=list)  # why, the first few
    cut: bool = False
    continued: int = 0
    looping: bool = False
    nothing_new: bool = False  # every object read was held already or repeated: no failure
    set_aside: int = 0  # facts the local route's second reading did not keep
    failed: str | None = None  # the reply could not be used: why
    note: str = ""  # the above in one sentence


def _outcomes(value: Any) -> Any:
    if not isinstance(value, list):
        return []
    kept = []
    for record in value:
        try:
            kept.append(Outcome.model_validate(record))
        except ValidationError:
            continue
    return kept


class ModelRun(Part):
    """What the briefing's model did in a run (briefing/summaries.py)."""

    used: bool = False
    summaries: int = 0
    contradictions: int = 0
    error: str | None = None
    skipped: str | None = None


class LastResult(Part):
    """The last briefing run: what it wrote, or (``ok`` false) what failed."""

    ok: bool
    trigger: str | None = None
    path: str | None = None
    changed: bool | None = None
    lines: int | None = None
    cut: bool | None = None
    model: ModelRun | None = None
    error: str | None = None


def _or_none(kind: type[BaseModel]) -> Callable[[Any], Any]:
    def read(value: Any) -> Any:
        try:
            return None if value is None else kind.model_validate(value)
        except ValidationError:
            return None
    return read


def _or_default(kind: type[BaseModel]) -> Callable[[Any], Any]:
    def read(value: Any) -> Any:
        try:
            return kind.model_validate(value)
        except ValidationError:
            return kind()
    return read


def _records(kind: type[BaseModel]) -> Callable[[Any], Any]:
    def read(value: Any) -> Any:
        if not isinstance(value, dict):
            return {}
        kept = {}
        for session_id, record in value.items():
            try:
                kept[str(session_id)] = kind.model_validate(record)
            except ValidationError:
                continue
        return kept
    return read


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class BeforeInstall(Part):
    """The last sweep's sessions left out as older than ``since`` (import's to take)."""

    sessions: int = 0
    at: str | None = None


class BriefingRecord(Part):
    last_run: str | None = None
    last_result: Annotated[LastResult | None, BeforeValidator(_or_none(LastResult))] = None
    next_run: str | None = None


class State(Part):
    """The whole of state.json."""

    version: int = STATE_VERSION
    extracted_sessions: Annotated[dict[str, Extracted], BeforeValidator(_records(Extracted))] = \
        Field(default_factory=dict)
    failed_sessions: Annotated[dict[str, Failed], BeforeValidator(_records(Failed))] = \
        Field(default_factory=dict)
    skipped_sessions: Annotated[dict[str, Skipped], BeforeValidator(_records(Skipped))] = \
        Field(default_factory=dict)
    admission_refused: Annotated[int, BeforeValidator(_count)] = 0
    # the last jobs' outcomes, newest last (extraction/bookkeeping.py keeps OUTCOMES of them)
    extraction_outcomes: Annotated[list[Outcome], BeforeValidator(_outcomes)] = \
        Field(default_factory=list)
    since: str | None = None  # the memory's start, ISO 8601 (docs/13-import.md)
    before_install: Annotated[BeforeInstall, BeforeValidator(_or_default(BeforeInstall))] = \
        Field(default_factory=BeforeInstall)
    briefing: Annotated[BriefingRecord, BeforeValidator(_or_default(BriefingRecord))] = \
        Field(default_factory=BriefingRecord)


def load_state(home: Home) -> State:
    """state.json with defaults for what it lacks (none: all defaults). Raises ValueError naming
    the file when it holds something other than a JSON object."""
    return State.model_validate(read_json_object(home.state) or {})


def save_state_locked(home: Home, state: State) -> None:
    """Replace the file with ``state``, whole (the caller holds the data lock). Parts left at
    their defaults are not written: they read back the same."""
    atomic_write_json(home.state, {"version": state.version,
                                   **state.model_dump(by_alias=True, exclude_defaults=True)})


def update_state_locked(home: Home, change: Callable[[State], T]) -> T:
    """Read state.json, let ``change`` alter it, write it back whole; the caller holds the data
    lock, so no other writer comes between the read and the write."""
    state = load_state(home)
    result = change(state)
    save_state_locked(home, state)
    return result
