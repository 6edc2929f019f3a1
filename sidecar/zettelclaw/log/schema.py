"""The entry schema (docs/03-log.md#entries) as pydantic models, and the entry's line form.

Five types; every entry has ``id``, ``timestamp``, ``type``, ``content`` and ``session``; a task
also has ``status`` (open|done). Unknown types and unknown fields are rejected, so a typo in a
hand-written line is reported with its line number instead of being half-understood.
"""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, NotRequired, Union, cast, get_args

import orjson
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    with_config,
)
from typing_extensions import TypedDict  # pydantic's, before Python 3.12

from zettelclaw.scrub import scrub

# nanoid's URL-safe alphabet: 64 symbols, so 12 characters carry 72 random bits.
ID_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-"
ID_LENGTH = 12
ID_PATTERN = r"^[0-9A-Za-z_-]{12}$"
ID_RE = re.compile(ID_PATTERN)
SLUG_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
SLUG_RE = re.compile(SLUG_PATTERN)
ENTRY_TYPES: tuple[str, ...] = ("task", "fact", "decision", "question", "handoff")
SCRUBBED = ("content", "detail")  # the fields of free text, where a secret could be

EntryType = Literal["task", "fact", "decision", "question", "handoff"]
TaskStatus = Literal["open", "done"]


def new_id() -> str:
    """A fresh 12-character nanoid (64-symbol alphabet, so ``secrets.choice`` is unbiased)."""
    return "".join(secrets.choice(ID_ALPHABET) for _ in range(ID_LENGTH))


def now_timestamp() -> str:
    """The current time as the log writes it: UTC, second precision, ``Z`` suffix."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_timestamp(value: str) -> datetime:
    """An ISO 8601 timestamp as an aware datetime; a timestamp without a zone is taken as UTC."""
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _valid_timestamp(value: str) -> str:
    try:
        parsed = parse_timestamp(value)
    except ValueError:
        raise ValueError(f"not an ISO 8601 timestamp: {value!r}") from None
    try:  # readers show it in any zone (the briefing's): it must be a date in every one
        in_range = EARLIEST <= parsed.astimezone(UTC) < LATEST
    except (OverflowError, ValueError):
        in_range = False
    if not in_range:
        raise ValueError(f"timestamp out of range (0001-01-02 to 9999-12-30 in UTC): "
                         f"{value!r}")
    return value


# A day inside datetime's range at each end: no zone's offset (under 24 h) leaves it.
EARLIEST = datetime(1, 1, 2, tzinfo=UTC)
LATEST = datetime(9999, 12, 31, tzinfo=UTC)


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty or only white space")
    return value


EntryId = Annotated[str, StringConstraints(pattern=ID_PATTERN)]
Slug = Annotated[str, StringConstraints(pattern=SLUG_PATTERN, max_length=80)]
Timestamp = Annotated[str, AfterValidator(_valid_timestamp)]
Text = Annotated[str, AfterValidator(_not_blank)]
SessionId = Annotated[str, StringConstraints(min_length=1, max_length=200,
                                             pattern=r"^[^\x00-\x1f]+$")]


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: EntryId
    timestamp: Timestamp
    content: Text
    session: SessionId
    detail: str | None = None
    subject: Slug | None = None
    replaces: EntryId | None = None


class TaskEntry(_Entry):
    type: Literal["task"]
    status: TaskStatus


class FactEntry(_Entry):
    type: Literal["fact"]


class DecisionEntry(_Entry):
    type: Literal["decision"]


class QuestionEntry(_Entry):
    type: Literal["question"]


class HandoffEntry(_Entry):
    type: Literal["handoff"]


Entry = Annotated[
    TaskEntry | FactEntry | DecisionEntry | QuestionEntry | HandoffEntry,
    Field(discriminator="type"),
]
ENTRY_ADAPTER: TypeAdapter[Entry] = TypeAdapter(Entry)


class EntryRecord(TypedDict):
    """A valid entry as a plain dict: what ``parse_entry_record`` gives (the fields of the
    models above; an optional field is absent or None)."""

    id: str
    timestamp: str
    type: str
    content: str
    session: str
    status: NotRequired[str]  # tasks only
    detail: NotRequired[str | None]
    subject: NotRequired[str | None]
    replaces: NotRequired[str | None]


def _record_type(model: type[_Entry]) -> Any:
    """The TypedDict of ``model``'s fields, with the same constraints and validators: it
    accepts and rejects the same lines, with the same reasons (tests/log/test_schema.py checks
    it on generated lines), and validates a line in half the time (no model instance)."""
    fields: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        kind = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
        fields[name] = kind if info.is_required() else NotRequired[kind]
    record = TypedDict(f"{model.__name__}Record", fields)  # type: ignore[misc]
    return with_config(ConfigDict(extra="forbid"))(record)


RECORD_ADAPTER: TypeAdapter[Any] = TypeAdapter(Annotated[  # type: ignore[arg-type]
    # the models of Entry's union, in its order: one list of the types
    Union[tuple(_record_type(model) for model in get_args(get_args(Entry)[0]))],  # noqa: UP007
    Field(discriminator="type")])

# The order fields take in a line: docs/03-log.md's examples, so that log lines read the same
# whether a person, the sidecar or another tool wrote them.
FIELD_ORDER = ("id", "timestamp", "type", "content", "status", "detail", "subject", "replaces",
               "session")


class InvalidEntry(ValueError):
    """A line that is not a valid entry; ``reason`` says why in one line."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def describe_validation_error(exc: ValidationError) -> str:
    """One line for a person: ``field: message; field: message``."""
    parts = []
    for error in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in error["loc"] if p not in ENTRY_TYPES)
        if error["type"] == "json_invalid":
            parts.append(f"not valid JSON ({error['ctx'].get('error', error['msg'])})")
        elif error["type"] == "union_tag_invalid":
            parts.append(f"type must be one of {', '.join(ENTRY_TYPES)}")
        elif error["type"] == "union_tag_not_found":
            parts.append("type is missing")
        elif error["type"] == "model_attributes_type":
            parts.append("not a JSON object")
        else:
            msg = error["msg"].removeprefix("Value error, ")
            parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts)


def parse_entry_json(raw: bytes | str) -> Entry:
    """Validate one line of the log. Raises InvalidEntry with a one-line reason."""
    try:
        return ENTRY_ADAPTER.validate_json(raw)
    except ValidationError as exc:
        raise InvalidEntry(describe_validation_error(exc)) from None


def parse_entry_record(raw: bytes | str) -> EntryRecord:
    """``parse_entry_json`` without the model: a dict of the same fields, for readers of every
    line of the log (an index build: about half the time a line). Raises InvalidEntry with
    the same reason."""
    try:
        return cast(EntryRecord, RECORD_ADAPTER.validate_json(raw))
    except ValidationError as exc:
        raise InvalidEntry(describe_validation_error(exc)) from None


def validate_entry(value: Any) -> Entry:
    """Validate an already-decoded object: how every writer of the sidecar makes an entry
    (extraction's output, and any writer to come). Secrets in its text (``content``,
    ``detail``) are replaced by markers first (scrub/), so none reaches the log. Raises
    InvalidEntry with a one-line reason. (A line read from the log is ``parse_entry_json``'s:
    what a person wrote by hand is not rewritten.)"""
    if isinstance(value, dict):
        value = {**value, **{key: scrub(value[key]) for key in SCRUBBED
                             if isinstance(value.get(key), str)}}
    try:
        return ENTRY_ADAPTER.validate_python(value)
    except ValidationError as exc:
        raise InvalidEntry(describe_validation_error(exc)) from None


def entry_to_dict(entry: Entry) -> dict[str, Any]:
    """The entry's fields in line order, without the absent optional ones."""
    values = entry.model_dump(exclude_none=True)
    return {key: values[key] for key in FIELD_ORDER if key in values}


def entry_to_line(entry: Entry) -> bytes:
    """The entry as one log line, newline included."""
    return orjson.dumps(entry_to_dict(entry)) + b"\n"
