"""extraction/output.py: the model's reply turned into entries, taken generously, checked strictly.

Covers parse_objects and build_entries: plain JSON lines; code fences; commentary and garbage lines
dropped and counted apart (commentary vs invalid); a JSON array reply (also pretty-printed and
fenced); numbered and bulleted lines; the model's own id/timestamp/session ignored and replaced by
injected ones (valid, unique ids that the log does not already hold); unknown types and blank
content dropped with a reason; subjects normalized to kebab-case or dropped; task status defaults
and normalization, status dropped from other types; ``replaces`` kept, redirected to the current
version, or dropped and counted; a handoff synthesized when the model wrote none (through the
service's own fallback too), the last of several handoffs kept and moved to the end; every entry
valid for the log schema; and, for arbitrary text, no exception and exactly one handoff, last.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zettelclaw.extraction import output
from zettelclaw.extraction.output import OutputReport, build_entries, parse_objects
from zettelclaw.extraction.service import _fallback_handoff
from zettelclaw.log.schema import (
    ID_RE,
    Entry,
    TaskEntry,
    entry_to_dict,
    entry_to_line,
    parse_entry_json,
    validate_entry,
)

TIMESTAMP = "2026-11-21T05:15:00Z"
SESSION = "5f0c7a1e-2b8d-4c61-9e3f-0a1b2c3d4e5f"


def jl(*objects: dict[str, Any]) -> str:
    return "\n".join(json.dumps(o) for o in objects)


def no_entries(_id: str) -> str | None:
    return None


def fixed_fallback(entries: Sequence[Entry]) -> tuple[str, str]:
    return "fallback handoff", f"{len(entries)} entries"


def build(text: str, current: Callable[[str], str | None] = no_entries,
          fallback: Callable[[Sequence[Entry]], tuple[str, str] | None] = fixed_fallback,
          held: Callable[[Entry], bool] = lambda _: False,
          ) -> tuple[list[Entry], OutputReport]:
    return build_entries(text, SESSION, TIMESTAMP, current, fallback, held=held)


FACT = {"type": "fact", "content": "Rosa's staging database is Postgres 16", "subject": "staging"}
DECISION = {"type": "decision", "content": "Use blue-green deploys", "detail": "no downtime"}
HANDOFF = {"type": "handoff", "content": "Migration half done", "detail": "users table next"}


# -- parse_objects ----------------------------------------------------------------------------


def test_parse_plain_json_lines() -> None:
    report = OutputReport()
    assert parse_objects(jl(FACT, DECISION, HANDOFF), report) == [FACT, DECISION, HANDOFF]
    assert (report.lines, report.commentary, report.invalid) == (3, 0, [])


def test_parse_skips_blank_lines_without_counting_them() -> None:
    report = OutputReport()
    text = "\n\n" + json.dumps(FACT) + "\n   \n\n" + json.dumps(HANDOFF) + "\n\n"
    assert parse_objects(text, report) == [FACT, HANDOFF]
    assert report.lines == 2


def test_parse_code_fences_are_not_lines() -> None:
    report = OutputReport()
    text = "```json\n" + jl(FACT, HANDOFF) + "\n```"
    assert parse_objects(text, report) == [FACT, HANDOFF]
    assert (report.lines, report.commentary, report.invalid) == (2, 0, [])


def test_parse_commentary_and_garbage_are_counted_apart() -> None:
    report = OutputReport()
    text = "\n".join([
        "Here are the entries I extracted:",
        json.dumps(FACT),
        "{this is not json}",
        "{'type': 'fact', 'content': 'single quotes'}",
        json.dumps(HANDOFF),
        "Let me know if you need anything else!",
    ])
    assert parse_objects(text, report) == [FACT, HANDOFF]
    assert report.lines == 6
    assert report.commentary == 2
    assert len(report.invalid) == 2
    assert all(reason.startswith("not valid JSON") for reason in report.invalid)


def test_parse_a_json_array_reply() -> None:
    report = OutputReport()
    assert parse_objects(json.dumps([FACT, DECISION, HANDOFF]), report) == [FACT, DECISION,
                                                                            HANDOFF]
    assert (report.lines, report.commentary, report.invalid) == (1, 0, [])  # one line


def test_parse_a_pretty_printed_array_in_a_fence() -> None:
    report = OutputReport()
    text = "```json\n" + json.dumps([FACT, HANDOFF], indent=2) + "\n```\n"
    assert parse_objects(text, report) == [FACT, HANDOFF]
    assert report.invalid == []


def test_parse_array_elements_that_are_not_objects_are_invalid() -> None:
    report = OutputReport()
    assert parse_objects(json.dumps([FACT, 3, "a fact", None, HANDOFF]), report) == [FACT,
                                                                                    HANDOFF]
    assert report.lines == 1
    assert report.invalid == ["not a JSON object"] * 3


@pytest.mark.parametrize("prefix", ["1. ", "2) ", "- ", "* ", "  10. ", "• "])
def test_parse_numbered_and_bulleted_lines(prefix: str) -> None:
    report = OutputReport()
    text = "\n".join(prefix + json.dumps(o) for o in (FACT, HANDOFF))
    assert parse_objects(text, report) == [FACT, HANDOFF]
    assert (report.commentary, report.invalid) == (0, [])


# -- build_entries: what the sidecar injects ---------------------------------------------------


def test_plain_lines_become_entries_with_the_handoff_last() -> None:
    entries, report = build(jl(HANDOFF, FACT, DECISION))
    assert [(e.type, e.content) for e in entries] == [
        ("fact", FACT["content"]), ("decision", DECISION["content"]),
        ("handoff", HANDOFF["content"])]
    assert entries[0].subject == "staging"
    assert entries[1].detail == "no downtime"
    assert entries[2].detail == "users table next"
    assert report.entries == 3
    assert not report.synthesized_handoff
    assert report.extra_handoffs == 0


def test_model_supplied_id_timestamp_and_session_are_replaced() -> None:
    forged = {"id": "AAAAAAAAAAAA", "timestamp": "1999-01-01T00:00:00Z", "session": "other"}
    text = jl({**FACT, **forged}, {**DECISION, **forged}, {**HANDOFF, **forged})
    entries, report = build(text)
    assert len(entries) == 3
    ids = [e.id for e in entries]
    assert all(ID_RE.match(i) for i in ids)
    assert len(set(ids)) == 3
    assert "AAAAAAAAAAAA" not in ids
    assert {e.timestamp for e in entries} == {TIMESTAMP}
    assert {e.session for e in entries} == {SESSION}
    assert report.invalid == []


def test_ids_are_unique_across_a_large_batch() -> None:
    text = jl(*({"type": "fact", "content": f"fact number {i}"} for i in range(200)))
    entries, _ = build(text)
    assert len(entries) == 201
    assert len({e.id for e in entries}) == 201


def test_a_fresh_id_never_collides_with_the_log_or_the_batch(
        monkeypatch: pytest.MonkeyPatch) -> None:
    existing = "existing0001"
    candidates = iter([existing, "fresh0000001", existing, "fresh0000001", "fresh0000002",
                       "fresh0000003"])
    monkeypatch.setattr(output, "new_id", lambda: next(candidates))
    entries, _ = build(jl(FACT, HANDOFF),
                       current=lambda i: i if i == existing else None)
    assert [e.id for e in entries] == ["fresh0000001", "fresh0000002"]


# -- build_entries: dropped and normalized fields ----------------------------------------------


def test_unknown_type_is_dropped_with_a_reason() -> None:
    text = jl({"type": "note", "content": "a note"}, {"content": "no type at all"}, FACT)
    entries, report = build(text)
    assert [e.type for e in entries] == ["fact", "handoff"]
    assert len(report.invalid) == 2
    assert "type must be one of" in report.invalid[0]
    assert "'note'" in report.invalid[0]
    assert "None" in report.invalid[1]


def test_type_is_case_and_space_insensitive() -> None:
    entries, report = build(jl({"type": " Decision ", "content": "Ship on Friday"}))
    assert entries[0].type == "decision"
    assert report.invalid == []


@pytest.mark.parametrize("content", ["", "   ", "\n\t", None])
def test_blank_or_missing_content_is_dropped(content: str | None) -> None:
    obj: dict[str, Any] = {"type": "fact"}
    if content is not None:
        obj["content"] = content
    entries, report = build(jl(obj, FACT))
    assert [e.content for e in entries if e.type == "fact"] == [FACT["content"]]
    assert len(report.invalid) == 1
    assert "content" in report.invalid[0]


@pytest.mark.parametrize(("given", "slug"), [
    ("Auth Migration", "auth-migration"),
    ("auth_migration", "auth-migration"),
    ("  Project: Zettelclaw v3!  ", "project-zettelclaw-v3"),
    ("already-kebab", "already-kebab"),
])
def test_subject_is_normalized_to_kebab_case(given: str, slug: str) -> None:
    entries, report = build(jl({**FACT, "subject": given}))
    assert entries[0].subject == slug
    assert report.invalid == []


@pytest.mark.parametrize("given", ["!!!", "   ", "—", "🙂"])
def test_subject_with_nothing_left_is_dropped_but_the_entry_kept(given: str) -> None:
    entries, report = build(jl({**FACT, "subject": given}))
    assert entries[0].type == "fact"
    assert entries[0].subject is None
    assert report.invalid == []


def test_task_without_status_is_open() -> None:
    entries, _ = build(jl({"type": "task", "content": "Rotate the API keys"}))
    assert isinstance(entries[0], TaskEntry)
    assert entries[0].status == "open"


@pytest.mark.parametrize(("given", "status"), [("done", "done"), ("DONE", "done"),
                                               (" Open ", "open"), ("in progress", "open")])
def test_task_status_is_normalized(given: str, status: str) -> None:
    entries, _ = build(jl({"type": "task", "content": "Rotate the API keys", "status": given}))
    assert isinstance(entries[0], TaskEntry)
    assert entries[0].status == status


@pytest.mark.parametrize("kind", ["fact", "decision", "question", "handoff"])
def test_status_on_a_non_task_is_dropped(kind: str) -> None:
    entries, report = build(jl({"type": kind, "content": "something", "status": "done"}))
    assert entries[0].type == kind
    assert "status" not in entries[0].model_dump(exclude_none=True)
    assert report.invalid == []


def test_unknown_fields_are_ignored() -> None:
    entries, report = build(jl({**FACT, "confidence": 0.9, "tags": ["a"]}))
    assert entries[0].content == FACT["content"]
    assert report.invalid == []


# -- build_entries: replaces -------------------------------------------------------------------


def test_replaces_kept_redirected_or_dropped() -> None:
    chain = {"aaaaaaaaaaa1": "aaaaaaaaaaa1",  # current itself
             "bbbbbbbbbbb1": "bbbbbbbbbbb3"}  # replaced since: bbbbbbbbbbb3 is current
    asked: list[str] = []

    def current(entry_id: str) -> str | None:
        asked.append(entry_id)
        return chain.get(entry_id)

    text = jl({"type": "fact", "content": "kept", "replaces": "aaaaaaaaaaa1"},
              {"type": "fact", "content": "redirected", "replaces": "bbbbbbbbbbb1"},
              {"type": "fact", "content": "unknown id", "replaces": "zzzzzzzzzzz1"},
              {"type": "fact", "content": "malformed id", "replaces": "not an id"},
              {"type": "fact", "content": "not a string", "replaces": 12},
              HANDOFF)
    entries, report = build(text, current=current)
    by_content = {e.content: e for e in entries}
    assert by_content["kept"].replaces == "aaaaaaaaaaa1"
    assert by_content["redirected"].replaces == "bbbbbbbbbbb3"
    assert by_content["unknown id"].replaces is None
    assert by_content["malformed id"].replaces is None
    assert by_content["not a string"].replaces is None
    assert report.dropped_replaces == 3
    assert report.invalid == []
    assert "zzzzzzzzzzz1" in asked


# -- build_entries: the handoff ----------------------------------------------------------------


def test_zero_handoffs_synthesizes_one_from_the_entries() -> None:
    seen: list[list[str]] = []

    def fallback(entries: Sequence[Entry]) -> tuple[str, str]:
        seen.append([e.content for e in entries])
        return "Session covered: " + "; ".join(e.content for e in entries), "assembled"

    entries, report = build(jl(FACT, DECISION), fallback=fallback)
    assert seen == [[FACT["content"], DECISION["content"]]]
    assert [e.type for e in entries] == ["fact", "decision", "handoff"]
    handoff = entries[-1]
    assert handoff.content == f"Session covered: {FACT['content']}; {DECISION['content']}"
    assert handoff.detail == "assembled"
    assert (handoff.session, handoff.timestamp) == (SESSION, TIMESTAMP)
    assert ID_RE.match(handoff.id)
    assert report.synthesized_handoff
    assert report.entries == 3
    assert report.to_json()["synthesizedHandoff"] is True


def test_the_service_fallback_uses_the_entries() -> None:
    entries, report = build(jl(FACT, DECISION), fallback=_fallback_handoff)
    assert report.synthesized_handoff
    assert FACT["content"] in entries[-1].content
    assert DECISION["content"] in entries[-1].content


def test_the_service_fallback_writes_no_stand_in_without_entries() -> None:
    """A stand-in ("Conversation without lasting information") came back in later prompts as
    an entry memory held, and a small model copied it: with no entry, no handoff."""
    entries, report = build("Nothing worth remembering here.", fallback=_fallback_handoff)
    assert entries == []
    assert not report.synthesized_handoff
    assert report.unread()


def test_an_empty_reply_still_gives_one_handoff() -> None:
    entries, report = build("")
    assert [(e.type, e.content) for e in entries] == [("handoff", "fallback handoff")]
    assert entries[0].detail == "0 entries"
    assert report.synthesized_handoff
    assert report.lines == 0


def test_several_handoffs_keep_the_last_one_at_the_end() -> None:
    text = jl({"type": "handoff", "content": "first state"}, FACT,
              {"type": "handoff", "content": "second state"}, DECISION,
              {"type": "handoff", "content": "final state"}, {"type": "question",
                                                              "content": "Which region?"})
    entries, report = build(text)
    assert [e.type for e in entries] == ["fact", "decision", "question", "handoff"]
    assert entries[-1].content == "final state"
    assert report.extra_handoffs == 2
    assert not report.synthesized_handoff
    assert report.entries == 4


def test_an_invalid_handoff_does_not_count_and_one_is_synthesized() -> None:
    entries, report = build(jl(FACT, {"type": "handoff", "content": "  "}))
    assert [e.type for e in entries] == ["fact", "handoff"]
    assert entries[-1].content == "fallback handoff"
    assert report.synthesized_handoff
    assert len(report.invalid) == 1


def test_every_entry_is_valid_for_the_log() -> None:
    text = "\n".join([
        "```jsonl",
        json.dumps({"type": "task", "content": "Write the tests", "subject": "Test Plan"}),
        "1. " + json.dumps({**DECISION, "status": "open", "id": "x"}),
        "- " + json.dumps({"type": "question", "content": "Which region?", "replaces": "bad"}),
        json.dumps({"type": "fact", "content": "Uses trio", "replaces": "aaaaaaaaaaa1"}),
        "```",
    ])
    entries, report = build(text, current=lambda i: i if i == "aaaaaaaaaaa1" else None)
    assert len(entries) == 5
    assert report.synthesized_handoff
    for e in entries:
        as_dict = entry_to_dict(e)
        assert validate_entry(as_dict) == e
        assert parse_entry_json(entry_to_line(e)) == e


def test_report_to_json_counts() -> None:
    text = "intro\n" + jl(FACT, {"type": "bogus", "content": "x"}, HANDOFF, HANDOFF)
    _, report = build(text)
    assert report.to_json() == {
        "lines": 5, "objects": 4, "entries": 2, "invalid": 1, "invalidReasons": report.invalid,
        "commentary": 1, "droppedReplaces": 0, "extraHandoffs": 1,
        "synthesizedHandoff": False, "duplicates": 0, "held": 0, "cut": False,
        "continued": 0, "looping": False, "nothingNew": False, "setAside": 0}


def test_an_entry_given_twice_or_already_held_is_written_once() -> None:
    """A 1.5B model wrote one fact 43 times in one reply; and facts memory already held."""
    again = {**FACT, "content": "  " + FACT["content"].upper() + " "}
    old = {"type": "fact", "content": "Caroline lives in Boston", "subject": "caroline"}
    text = jl(*[FACT] * 43, again, old, DECISION, HANDOFF)
    entries, report = build(text, held=lambda e: e.content == old["content"])
    assert [e.type for e in entries] == ["fact", "decision", "handoff"]
    assert (report.duplicates, report.held, report.entries) == (43, 1, 3)


def test_a_reply_of_only_repeats_is_nothing_new() -> None:
    """Every object held already or repeated, beside at most one unfinished one (the reply
    cut): nothing new. Another invalid object, two unfinished ones, or no object at all: not."""
    def held(e: Entry) -> bool:
        return e.content in (FACT["content"], DECISION["content"], HANDOFF["content"])

    def report(text: str) -> OutputReport:
        return build(text, fallback=lambda _: None, held=held)[1]

    repeats = jl(FACT, DECISION, FACT, HANDOFF)
    assert report(repeats).nothing_new()
    assert report(repeats + '\n{"type": "fact", "content": "Rosa').nothing_new()
    assert not report(repeats + '\n{"type": "fact", "conte\n{"type": "fact", "c').nothing_new()
    assert not report(repeats + "\n" + jl({"type": "bogus", "content": "x"})).nothing_new()
    assert not report(jl(FACT, {**FACT, "content": "Rosa moved to Lyon"})).nothing_new()
    assert not report("Nothing new in this conversation.").nothing_new()


# -- arbitrary replies -------------------------------------------------------------------------

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                           max_leaves=6)
field_values = {
    "type": st.sampled_from(["task", "fact", "decision", "question", "handoff", "Handoff",
                             "note", ""]) | json_values,
    "content": st.text() | json_values,
    "detail": st.text() | json_values,
    "subject": st.text() | json_values,
    "status": st.sampled_from(["open", "done", "DONE", "later"]) | json_values,
    "replaces": st.sampled_from(["aaaaaaaaaaa1", "zzzzzzzzzzz1", "bad"]) | json_values,
    "id": json_values,
    "timestamp": json_values,
    "session": json_values,
}
draft_objects = st.fixed_dictionaries({}, optional=field_values)
reply_lines = st.one_of(
    draft_objects.map(json.dumps),
    st.tuples(st.sampled_from(["1. ", "- ", "* ", "", "```", "```json\n"]), draft_objects).map(
        lambda p: p[0] + json.dumps(p[1])),
    st.text(),
    st.just("```"),
)
replies = st.one_of(
    st.text(),
    st.lists(reply_lines, max_size=12).map("\n".join),
    st.lists(draft_objects, max_size=6).map(json.dumps),
)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(replies)
def test_any_reply_gives_valid_entries_and_exactly_one_handoff_last(text: str) -> None:
    entries, report = build(text, current=lambda i: i if i == "aaaaaaaaaaa1" else None)
    assert [e.type for e in entries].count("handoff") == 1
    assert entries[-1].type == "handoff"
    assert report.entries == len(entries)
    assert len({e.id for e in entries}) == len(entries)
    for e in entries:
        assert validate_entry(entry_to_dict(e)) == e
        assert (e.session, e.timestamp) == (SESSION, TIMESTAMP)


def test_secrets_in_the_model_reply_never_reach_an_entry() -> None:
    """The model may repeat a secret the conversation held: the entry gets the marker (the
    entries are saved into the spooled job before the append, so nothing of it is written)."""
    key = "sk-proj-" + "Ab1" * 20 + "T3BlbkFJ" + "Cd2" * 20
    entries, _ = build(jl({"type": "fact", "content": f"The OpenAI key is {key}",
                           "detail": "Bearer abcdefghijklmnop1234567890"},
                          {"type": "handoff", "content": f"Set OPENAI_API_KEY={key}"}))
    dumped = "\n".join(entry_to_line(e).decode() for e in entries)
    assert key not in dumped
    assert "abcdefghijklmnop1234567890" not in dumped
    assert entries[0].content == "The OpenAI key is [redacted: OpenAI API key]"
    assert entries[0].detail == "Bearer [redacted: bearer token]"
    assert entries[-1].content == "Set OPENAI_API_KEY=[redacted: OpenAI API key]"
