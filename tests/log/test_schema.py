"""The entry schema (docs/03-log.md): what validates, what is rejected and why, the line form.

Covers the five types, the task-only ``status``, unknown types and fields, the shapes of ``id``,
``subject``, ``timestamp`` and ``content``, ``new_id``, the one-line rejection reasons, and the
round trip entry -> line -> entry (a property over generated entries); the record parser (a
dict, for index builds) agrees with the model's on every generated line, valid or not.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from tests.conftest import entry
from zettelclaw.log.schema import (
    ENTRY_ADAPTER,
    ENTRY_TYPES,
    ID_ALPHABET,
    FactEntry,
    InvalidEntry,
    TaskEntry,
    describe_validation_error,
    entry_to_dict,
    entry_to_line,
    new_id,
    now_timestamp,
    parse_entry_json,
    parse_entry_record,
    parse_timestamp,
    validate_entry,
)

# Example lines, one per type, as a person would write them.
SPEC_LINES = {
    "fact": '{"id":"r7Wp3nKx_mZe","timestamp":"2026-02-20T14:35:00Z","type":"fact","content":"Exponential backoff caps at 3 retries with intervals 1s, 5s, 15s — total ~30s","subject":"auth-migration","session":"abc12345"}',  # noqa: E501
    "decision": '{"id":"a3k9x_BmQ2yT","timestamp":"2026-02-20T14:20:00Z","type":"decision","content":"Queue-based retries for webhook delivery instead of synchronous","detail":"Synchronous retries were cascading under load during the February auth outage","subject":"auth-migration","session":"abc12345"}',  # noqa: E501
    "task": '{"id":"Ht4vL_9qRx2D","timestamp":"2026-02-20T15:10:00Z","type":"task","content":"Write backfill script for 47 failed webhook jobs from last week","status":"open","subject":"auth-migration","session":"abc12345"}',  # noqa: E501
    "question": '{"id":"Jn2fR_7vKw4X","timestamp":"2026-02-20T15:15:00Z","type":"question","content":"Is the current retry strategy sufficient for webhook bursts over 10k/min?","subject":"auth-migration","session":"abc12345"}',  # noqa: E501
    "handoff": '{"id":"Ym8kP_3wNx5Q","timestamp":"2026-02-20T15:30:00Z","type":"handoff","content":"Auth migration — retry logic implementation, backfill script not started","detail":"Exponential backoff working in staging. Still need backfill script for 47 failed jobs, then canary deploy. Load testing not done yet.","subject":"auth-migration","session":"abc12345"}',  # noqa: E501
    "replacement": '{"id":"Cx6tM_1pWn8Y","timestamp":"2026-02-26T10:00:00Z","type":"decision","content":"Queue-based retries with dead-letter queue for permanent failures","detail":"Discovered some failures are non-retryable, need a DLQ","subject":"auth-migration","replaces":"a3k9x_BmQ2yT","session":"def67890"}',  # noqa: E501
}


def reason(value: Any) -> str:
    """The one-line reason ``validate_entry`` gives for rejecting ``value``."""
    with pytest.raises(InvalidEntry) as info:
        validate_entry(value)
    assert info.value.reason == str(info.value)
    return info.value.reason


# -- the five types --------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(SPEC_LINES))
def test_spec_example_lines_validate_and_are_written_back_byte_for_byte(name: str) -> None:
    raw = SPEC_LINES[name].encode()
    parsed = parse_entry_json(raw)
    assert parsed.type == orjson.loads(raw)["type"]
    # The line form puts fields in the examples' order, so a line the sidecar writes reads the
    # same as these (and a person's) lines.
    assert entry_to_line(parsed) == raw + b"\n"


@pytest.mark.parametrize("type_", ENTRY_TYPES)
def test_each_type_validates_with_only_the_common_fields(type_: str) -> None:
    value = entry(type_)
    parsed = validate_entry(value)
    assert parsed.type == type_
    assert entry_to_dict(parsed) == value


def test_the_five_types_are_the_spec_s() -> None:
    assert set(ENTRY_TYPES) == {"task", "fact", "decision", "question", "handoff"}


@pytest.mark.parametrize("status", ["open", "done"])
def test_task_takes_open_or_done(status: str) -> None:
    parsed = validate_entry(entry("task", status=status))
    assert isinstance(parsed, TaskEntry)
    assert parsed.status == status


@pytest.mark.parametrize("status", ["blocked", "Open", "", None])
def test_task_rejects_other_or_missing_status(status: str | None) -> None:
    value = entry("task")
    if status is None:
        del value["status"]
    else:
        value["status"] = status
    assert reason(value).startswith("status: ")


@pytest.mark.parametrize("type_", [t for t in ENTRY_TYPES if t != "task"])
def test_other_types_reject_status(type_: str) -> None:
    assert reason(entry(type_, status="open")) == "status: Extra inputs are not permitted"


@pytest.mark.parametrize("type_", ["note", "Fact", "", 3])
def test_unknown_type_is_rejected_with_the_list_of_types(type_: Any) -> None:
    text = reason({**entry("fact"), "type": type_})
    assert "type must be one of" in text
    for known in ENTRY_TYPES:
        assert known in text


def test_missing_type_is_named() -> None:
    value = entry("fact")
    del value["type"]
    assert reason(value) == "type is missing"


@pytest.mark.parametrize("field", ["source", "tags", "Subject", "priority"])
def test_unknown_fields_are_rejected_and_named(field: str) -> None:
    text = reason(entry("fact", **{field: "x"}))
    assert text == f"{field}: Extra inputs are not permitted"


@pytest.mark.parametrize("field", ["id", "timestamp", "content", "session"])
def test_common_fields_are_required(field: str) -> None:
    value = entry("decision")
    del value[field]
    assert reason(value) == f"{field}: Field required"


def test_optional_fields_may_be_absent_or_present() -> None:
    bare = validate_entry(entry("fact"))
    assert (bare.detail, bare.subject, bare.replaces) == (None, None, None)
    full = validate_entry(entry("fact", detail="why", subject="auth-migration",
                                replaces="a3k9x_BmQ2yT"))
    assert (full.detail, full.subject, full.replaces) == ("why", "auth-migration", "a3k9x_BmQ2yT")


# -- field shapes ----------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["r7Wp3nKx_mZe", "a3k9x_BmQ2yT", "------------", "000000000000",
                                   "_abcDEF-1234"])
def test_id_of_twelve_url_safe_characters_is_accepted(value: str) -> None:
    assert validate_entry(entry("fact", id=value)).id == value
    assert validate_entry(entry("fact", replaces=value)).replaces == value


@pytest.mark.parametrize("value", [
    "r7Wp3nKx_mZ",  # 11
    "r7Wp3nKx_mZeX",  # 13
    "r7Wp3nKx mZe",  # space
    "r7Wp3nKx.mZe",  # not in the alphabet
    "r7Wp3nKx_mZé",  # not ASCII
    "r7Wp3nKx_mZe\n",  # a trailing newline must not slip past the end anchor
    "",
])
@pytest.mark.parametrize("field", ["id", "replaces"])
def test_id_of_another_shape_is_rejected(field: str, value: str) -> None:
    assert reason(entry("fact", **{field: value})).startswith(f"{field}: ")


def test_id_that_is_not_a_string_is_rejected() -> None:
    assert reason(entry("fact", id=123456789012)).startswith("id: ")


@pytest.mark.parametrize("slug", ["auth-migration", "max", "whisper-stt", "v2", "2026-goals",
                                  "a" * 80])
def test_kebab_case_subject_is_accepted(slug: str) -> None:
    assert validate_entry(entry("fact", subject=slug)).subject == slug


@pytest.mark.parametrize("slug", ["Auth_Migration", "authMigration", "auth_migration", "Max",
                                  "auth migration", "-auth", "auth-", "auth--migration", "",
                                  "auth-migration\n", "a" * 81])
def test_subject_not_in_kebab_case_is_rejected(slug: str) -> None:
    assert reason(entry("fact", subject=slug)).startswith("subject: ")


@pytest.mark.parametrize("value", ["2026-02-20T14:00:00Z", "2026-02-20T14:00:00+02:00",
                                   "2026-02-20T14:00:00.250-05:30", "2026-02-20T14:00:00",
                                   "2026-02-20"])
def test_iso_8601_timestamp_is_accepted_and_kept_as_written(value: str) -> None:
    assert validate_entry(entry("fact", timestamp=value)).timestamp == value


@pytest.mark.parametrize("value", ["yesterday", "20/02/2026", "2026-02-30T10:00:00Z",
                                   "2026-02-20T25:00:00Z", "2026-02-20T14:00:00+25:00", "",
                                   "1771596000"])
def test_timestamp_that_is_not_iso_8601_is_rejected(value: str) -> None:
    text = reason(entry("fact", timestamp=value))
    assert text == f"timestamp: not an ISO 8601 timestamp: {value!r}"


def test_timestamp_without_zone_is_read_as_utc() -> None:
    assert parse_timestamp("2026-02-20T14:00:00") == datetime(2026, 2, 20, 14, tzinfo=UTC)
    assert parse_timestamp("2026-02-20T16:00:00+02:00") == datetime(2026, 2, 20, 14, tzinfo=UTC)


def test_now_timestamp_is_a_valid_utc_timestamp_to_the_second() -> None:
    stamp = now_timestamp()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamp)
    assert validate_entry(entry("fact", timestamp=stamp)).timestamp == stamp


@pytest.mark.parametrize("content", ["", " ", "\n\t ", "\u00a0\u2003"])
def test_blank_content_is_rejected(content: str) -> None:
    assert reason(entry("fact", content=content)) == (
        "content: must not be empty or only white space")


@pytest.mark.parametrize("session", ["", "abc\n123", "a\x00b"])
def test_empty_session_or_one_with_control_characters_is_rejected(session: str) -> None:
    assert reason(entry("fact", session=session)).startswith("session: ")


# -- new_id ----------------------------------------------------------------------------------


def test_new_id_is_always_valid_and_distinct() -> None:
    ids = [new_id() for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    for value in ids:
        assert re.fullmatch(r"[0-9A-Za-z_-]{12}", value)
        assert validate_entry(entry("fact", id=value)).id == value
    # 24,000 draws from 64 symbols: every symbol shows up unless the alphabet is cut short.
    assert set("".join(ids)) == set(ID_ALPHABET)
    assert len(set(ID_ALPHABET)) == 64


# -- rejection reasons -----------------------------------------------------------------------


@pytest.mark.parametrize(("field", "bad"), [
    ("id", "short"), ("timestamp", "soon"), ("content", "  "), ("session", ""),
    ("subject", "Not_A_Slug"), ("replaces", "x"), ("detail", 42), ("status", "later"),
])
def test_describe_validation_error_is_one_line_naming_the_field(field: str, bad: Any) -> None:
    value = entry("task", **{field: bad})
    with pytest.raises(ValidationError) as info:
        ENTRY_ADAPTER.validate_python(value)
    text = describe_validation_error(info.value)
    assert "\n" not in text
    assert text.startswith(f"{field}: ")
    # The type name is not part of the location a person sees ("task.status").
    assert "task." not in text


def test_several_problems_are_listed_on_one_line() -> None:
    text = reason(entry("fact", id="x", subject="Bad Slug", extra="y"))
    assert "\n" not in text
    parts = text.split("; ")
    assert [p.split(":")[0] for p in parts] == ["id", "subject", "extra"]


@pytest.mark.parametrize("raw", [b'{"id":', b"not json", b"\xff\xfe", b""])
def test_line_that_is_not_json_says_so(raw: bytes) -> None:
    with pytest.raises(InvalidEntry) as info:
        parse_entry_json(raw)
    assert info.value.reason.startswith("not valid JSON (")
    assert "\n" not in info.value.reason


@pytest.mark.parametrize("raw", [b"[1, 2]", b'"fact"', b"42", b"null"])
def test_json_that_is_not_an_object_is_rejected(raw: bytes) -> None:
    with pytest.raises(InvalidEntry) as info:
        parse_entry_json(raw)
    assert "object" in info.value.reason
    assert "\n" not in info.value.reason


def test_value_in_a_reason_cannot_break_the_line() -> None:
    text = reason(entry("fact", timestamp="not\na\ntime"))
    assert "\n" not in text
    assert text.startswith("timestamp: ")


# -- round trip ------------------------------------------------------------------------------

utf8_text = st.text(st.characters(codec="utf-8"), max_size=40)
ids = st.text(ID_ALPHABET, min_size=12, max_size=12)
slugs = st.from_regex(r"[a-z0-9]+(-[a-z0-9]+)*", fullmatch=True).filter(lambda s: len(s) <= 80)
offsets = st.integers(-23 * 60, 23 * 60).map(lambda m: timezone(timedelta(minutes=m)))
timestamps = st.one_of(
    st.datetimes(min_value=datetime(1000, 1, 1)).map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ")),
    st.datetimes().map(datetime.isoformat),
    st.datetimes(timezones=offsets).map(datetime.isoformat),
)
sessions = st.text(st.characters(codec="utf-8", min_codepoint=0x20), min_size=1, max_size=200)


@st.composite
def valid_entries(draw: st.DrawFn) -> dict[str, Any]:
    type_ = draw(st.sampled_from(ENTRY_TYPES))
    value: dict[str, Any] = {
        "id": draw(ids),
        "timestamp": draw(timestamps),
        "type": type_,
        "content": draw(utf8_text.filter(str.strip)),
        "session": draw(sessions),
    }
    if type_ == "task":
        value["status"] = draw(st.sampled_from(["open", "done"]))
    for key, values in (("detail", utf8_text), ("subject", slugs), ("replaces", ids)):
        if draw(st.booleans()):
            value[key] = draw(values)
    return value


@pytest.mark.slow
@settings(deadline=None)  # no timing checks: a slow machine is not a failure
@given(valid_entries())
def test_any_valid_entry_survives_the_line_round_trip(value: dict[str, Any]) -> None:
    parsed = validate_entry(value)
    raw = entry_to_line(parsed)
    # One line, whatever newlines the text holds: the log is split on b"\n".
    assert raw.endswith(b"\n")
    assert raw.count(b"\n") == 1
    again = parse_entry_json(raw)
    assert again == parsed
    assert entry_to_dict(again) == entry_to_dict(parsed)
    assert orjson.loads(raw) == value


def test_entry_to_dict_leaves_out_absent_optional_fields() -> None:
    parsed = validate_entry(entry("fact", id="abcdefghijkl", session="s"))
    assert isinstance(parsed, FactEntry)
    assert list(entry_to_dict(parsed)) == ["id", "timestamp", "type", "content", "session"]


# Values for each field, good and bad: the two parsers must agree on every mix of them.
_VALUES: dict[str, Any] = {
    "id": st.sampled_from(["r7Wp3nKx_mZe", "short", "r7Wp3nKx_mZ!", 12, None, "r7Wp3nKx_mZe\n"]),
    "timestamp": st.sampled_from(["2026-02-20T14:35:00Z", "2026-02-20T14:35:00+02:00",
                                  "2026-02-20", "nope", "0001-01-01T00:00:00Z",
                                  "9999-12-31T23:00:00-05:00", 5, None]),
    "type": st.sampled_from([*ENTRY_TYPES, "note", 3, None]),
    "content": st.sampled_from(["a fact", "", "  ", "\u2003", "\x1c", 7, None, "café"]),
    "session": st.sampled_from(["abc", "", "a\x01b", "s" * 201, "s" * 200, None, 1]),
    "status": st.sampled_from(["open", "done", "later", None, 0]),
    "detail": st.sampled_from(["why", "", None, 4, ["x"]]),
    "subject": st.sampled_from(["auth-migration", "Auth", "a--b", "x" * 81, None, "", 3]),
    "replaces": st.sampled_from(["Cx6tM_1pWn8Y", "bad", None, 1]),
    "extra": st.sampled_from(["x", None]),
}


@st.composite
def _lines(draw: st.DrawFn) -> bytes:
    shape = draw(st.sampled_from(["object", "object", "object", "array", "scalar", "text"]))
    if shape == "array":
        return b"[]"
    if shape == "scalar":
        return draw(st.sampled_from([b"1", b"null", b'"x"', b"true"]))
    if shape == "text":
        return draw(st.sampled_from([b"not json", b'{"id": ', b"{} trailing", b"\xff\xfe"]))
    fields = draw(st.lists(st.sampled_from(sorted(_VALUES)), unique=True, max_size=len(_VALUES)))
    value = {name: draw(_VALUES[name]) for name in fields}
    if draw(st.booleans()):  # mostly whole entries: the usual case, and the one that passes
        value = {**entry(), **value}
    return orjson.dumps(value)


def _parsed(parse: Any, raw: bytes) -> tuple[str, Any]:
    try:
        found = parse(raw)
    except InvalidEntry as exc:
        return "refused", exc.reason
    fields = found.model_dump() if hasattr(found, "model_dump") else found
    return "accepted", {k: v for k, v in fields.items() if v is not None}


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(raw=_lines())
def test_the_record_parser_accepts_and_refuses_what_the_models_do(raw: bytes) -> None:
    assert _parsed(parse_entry_record, raw) == _parsed(parse_entry_json, raw)


def test_both_parsers_accept_the_spec_lines_alike() -> None:
    for line in SPEC_LINES.values():
        kind, fields = _parsed(parse_entry_record, line.encode())
        assert kind == "accepted"
        assert (kind, fields) == _parsed(parse_entry_json, line.encode())
