"""The params models: the names protocol.md documents, their bounds, and the date rules."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from zettelclaw.protocol.params import (
    BeforePromptBuildParams,
    GatewayStartParams,
    GetParams,
    HookTranscriptParams,
    SearchParams,
    StatusParams,
    SubjectsAddParams,
    SubjectsListParams,
    SubjectsRenameParams,
    day_bounds,
    field_errors,
)


def errors_of(model: type[BaseModel], params: dict[str, Any]) -> list[dict[str, str]]:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(params)
    return field_errors(caught.value.errors(include_url=False))


def fields_of(model: type[BaseModel], params: dict[str, Any]) -> set[str]:
    return {e["field"] for e in errors_of(model, params)}


def ts(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


# -- names -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("model", "params"), [
    (SearchParams, {"maxresults": 5}),
    (SearchParams, {"query": "x", "limit": 3}),
    (GetParams, {"path": "MEMORY.md", "offset": 2}),
    (SubjectsListParams, {"all": True}),
    (SubjectsAddParams, {"slug": "a", "kind": "person"}),
    (SubjectsRenameParams, {"from": "a", "to": "b", "merge": True}),
    (BeforePromptBuildParams, {"prompt": "hello"}),
    (StatusParams, {"verbose": True}),
])
def test_unknown_fields_are_rejected_by_name(model: type[BaseModel],
                                             params: dict[str, Any]) -> None:
    errors = errors_of(model, params)
    unknown = next(iter(set(params) - set(model.model_fields)
                        - {f.alias for f in model.model_fields.values()}))
    assert {"field": unknown, "message": "Extra inputs are not permitted",
            "type": "extra_forbidden"} in errors


def test_search_aliases_are_the_accepted_names() -> None:
    params = SearchParams.model_validate({"maxResults": 7, "includeReplaced": True})
    assert (params.max_results, params.include_replaced) == (7, True)
    assert fields_of(SearchParams, {"max_results": 7}) == {"max_results"}
    assert fields_of(SearchParams, {"include_replaced": True}) == {"include_replaced"}


def test_get_takes_from_not_from_() -> None:
    assert GetParams.model_validate({"path": "MEMORY.md", "from": 3}).from_ == 3
    assert fields_of(GetParams, {"path": "MEMORY.md", "from_": 3}) == {"from_"}


def test_rename_takes_from_and_to() -> None:
    params = SubjectsRenameParams.model_validate({"from": "old-name", "to": "new-name"})
    assert (params.from_, params.to) == ("old-name", "new-name")
    assert "from" in fields_of(SubjectsRenameParams, {"from_": "a", "to": "b"})


def test_hook_aliases_are_the_accepted_names() -> None:
    params = BeforePromptBuildParams.model_validate({
        "sessionId": "s1", "sessionKey": "agent:main:main", "agentId": "main",
        "channel": "telegram", "workspaceDir": "/w", "chatType": "direct",
        "senderIsOwner": True})
    assert params.session_key == "agent:main:main"
    assert (params.session_id, params.agent_id, params.workspace_dir) == ("s1", "main", "/w")
    assert (params.chat_type, params.sender_is_owner) == ("direct", True)
    snake = {"session_key": "agent:main:main", "chat_type": "direct", "sender_is_owner": True}
    assert fields_of(BeforePromptBuildParams, snake) == set(snake)


def test_every_params_field_is_known_by_its_alias() -> None:
    """camelCase on the wire: no multi-word field is reachable by its Python name."""
    for model in (SearchParams, GetParams, SubjectsAddParams, SubjectsRenameParams,
                  BeforePromptBuildParams):
        for name, info in model.model_fields.items():
            if "_" in name:
                assert info.alias is not None, (model, name)
                assert "_" not in info.alias, (model, name)


def test_defaults() -> None:
    search = SearchParams.model_validate({})
    assert (search.max_results, search.include_replaced, search.query) == (10, False, None)
    get = GetParams.model_validate({"path": "MEMORY.md"})
    assert (get.from_, get.lines) == (1, None)
    assert SubjectsAddParams.model_validate({"slug": "x"}).type == "project"


# -- bounds ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("model", "base", "field", "good", "bad"), [
    (SearchParams, {}, "maxResults", [1, 1000], [0, -1, 1001]),
    (SearchParams, {}, "query", ["q" * 2000, ""], ["q" * 2001]),
    (SearchParams, {}, "since", ["2026-02-20T14:00:00.000000+00:00"], ["2" * 41]),
    (SearchParams, {}, "type", ["task", "handoff"], ["note", "Task"]),
    (SearchParams, {}, "status", ["open", "done"], ["closed"]),
    (SearchParams, {}, "subject", ["auth-migration", "a" * 80],
     ["Auth", "auth_migration", "-a", "a--b", "a" * 81]),
    (SearchParams, {}, "session", ["sess-1"], ["", "a\nb", "s" * 201]),
    (GetParams, {"path": "MEMORY.md"}, "from", [1, 10**6], [0, -5]),
    (GetParams, {"path": "MEMORY.md"}, "lines", [1, 100_000], [0, 100_001]),
    (GetParams, {}, "path", ["x", "p" * 4096], ["", "p" * 4097]),
    (SubjectsAddParams, {"slug": "a"}, "display", ["Auth", "d" * 120], ["", "   ", "d" * 121]),
    (SubjectsAddParams, {"slug": "a"}, "type", ["person", "system-2"], ["Person", "2x", ""]),
    (SubjectsAddParams, {}, "slug", ["a", "a-1"], ["A", "a b", "a_b", ""]),
    (BeforePromptBuildParams, {}, "sessionKey", ["k" * 4096], ["k" * 4097]),
    (BeforePromptBuildParams, {}, "chatType", ["direct", "group", "channel"], ["dm"]),
])
def test_bounds(model: type[BaseModel], base: dict[str, Any], field: str,
                good: list[Any], bad: list[Any]) -> None:
    for value in good:
        model.model_validate({**base, field: value})
    for value in bad:
        assert fields_of(model, {**base, field: value}) == {field}, value


def test_display_is_stripped() -> None:
    assert SubjectsAddParams.model_validate({"slug": "a", "display": "  Auth  "}).display == "Auth"


def test_required_fields() -> None:
    assert errors_of(GetParams, {}) == [
        {"field": "path", "message": "Field required", "type": "missing"}]
    assert fields_of(SubjectsRenameParams, {"from": "a"}) == {"to"}
    assert fields_of(SubjectsAddParams, {}) == {"slug"}


def test_rename_to_the_same_slug_is_rejected() -> None:
    errors = errors_of(SubjectsRenameParams, {"from": "auth", "to": "auth"})
    assert [e["message"] for e in errors] == ["from and to are the same slug"]


# -- dates -----------------------------------------------------------------------------------


def test_a_date_as_since_is_the_start_of_that_utc_day() -> None:
    assert day_bounds("2026-02-20", end=False) == ts("2026-02-20T00:00:00+00:00")


def test_a_date_as_until_covers_the_whole_utc_day() -> None:
    end = day_bounds("2026-02-20", end=True)
    assert ts("2026-02-20T23:59:59.999999+00:00") <= end < ts("2026-02-21T00:00:00+00:00")


def test_a_date_time_without_zone_is_utc() -> None:
    moment = datetime(2026, 2, 20, 14, 30, tzinfo=UTC).timestamp()
    assert day_bounds("2026-02-20T14:30", end=False) == moment
    assert day_bounds("2026-02-20T14:30:00", end=True) == moment  # no widening for a time


def test_a_date_time_with_a_zone_keeps_it() -> None:
    assert day_bounds("2026-02-20T14:30:00+02:00", end=False) == ts("2026-02-20T12:30:00+00:00")
    assert day_bounds("2026-02-20T14:30:00Z", end=True) == ts("2026-02-20T14:30:00+00:00")


@pytest.mark.parametrize("value", ["yesterday", "2026-02-30", "2026-13-01", "20-02-2026",
                                   "2026-02-20T25:00", "", "now"])
def test_day_bounds_rejects_what_is_not_iso_8601(value: str) -> None:
    with pytest.raises(ValueError):  # noqa: PT011  (the message is datetime's own)
        day_bounds(value, end=False)


@pytest.mark.parametrize("name", ["since", "until"])
@pytest.mark.parametrize("value", ["yesterday", "2026-02-30", "last week", "2026-02-20 lunch"])
def test_since_and_until_reject_invalid_strings_naming_the_field(name: str, value: str) -> None:
    errors = errors_of(SearchParams, {name: value})
    assert len(errors) == 1
    assert errors[0]["field"] == name
    assert "not an ISO 8601 date or date-time" in errors[0]["message"]
    assert repr(value) in errors[0]["message"]


def test_since_and_until_accept_dates_and_date_times() -> None:
    params = SearchParams.model_validate({"since": "2026-02-01", "until": "2026-02-20T10:00Z"})
    assert (params.since, params.until) == ("2026-02-01", "2026-02-20T10:00Z")


@pytest.mark.parametrize(("model", "params"), [
    (SearchParams, {"maxResults": "5"}),
    (SearchParams, {"includeReplaced": "yes"}),
    (SearchParams, {"includeReplaced": 1}),
    (GetParams, {"path": "MEMORY.md", "from": "2"}),
])
def test_json_types_are_taken_as_they_are(model: type[Any], params: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        model.model_validate(params)


@pytest.mark.parametrize(("facts", "reason"), [
    ({}, None),
    ({"isGroup": True}, "group chat: others can read it"),
    ({"chatId": "-100123", "senderId": "42"}, "group chat: others can read it"),
    ({"chatId": 42, "senderId": "42"}, None),
    ({"isGroup": False, "chatId": "1", "senderId": "2"}, "group chat: others can read it"),
    ({"chatType": "direct", "isGroup": True}, None),  # the host's own chatType wins
    ({"isGroup": False, "senderIsOwner": False}, "the sender is not the owner"),
])
def test_raw_audience_facts_are_read_by_the_sidecar(facts: dict[str, object],
                                                     reason: str | None) -> None:
    params = BeforePromptBuildParams.model_validate({"sessionKey": "agent:main:main", **facts})
    assert params.audience().private_reason() == reason
    assert SearchParams.model_validate({"query": "x", "sessionKey": "agent:main:main",
                                        **facts}).restriction() == reason


@pytest.mark.parametrize(("value", "millis"), [
    (1795234915428, 1795234915428.0),
    (1795234915, 1795234915000.0),  # seconds, as some hosts send them
    ("2026-11-20T10:21:55.428Z", 1795170115428.0),
    ("2026-11-20T10:21:55.428", 1795170115428.0),  # no zone: UTC
    (None, None),
])
def test_read_at_in_the_shapes_updated_at_takes(value: Any, millis: float | None) -> None:
    params = HookTranscriptParams.model_validate({"sessionId": "s", "readAt": value})
    assert params.read_at_ms() == millis


def test_a_time_that_is_no_time_is_refused_naming_its_field() -> None:
    [error] = errors_of(HookTranscriptParams, {"sessionId": "s", "readAt": "yesterday"})
    assert (error["field"], error["message"]) == (
        "readAt", "not epoch milliseconds or ISO 8601: 'yesterday'")
    [error] = errors_of(GatewayStartParams, {"sessions": [{"sessionId": "s"},
                                                          {"sessionId": "t", "updatedAt": "x"}]})
    assert (error["field"], error["message"]) == (
        "sessions.1.updatedAt", "not epoch milliseconds or ISO 8601: 'x'")
