"""The one parser of models' JSON-object replies (llm/json_objects.py): every layout a model
was seen to use, and any sequence of objects in any of them (Hypothesis)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zettelclaw.llm.json_objects import Scan, scan


def test_lines_with_commentary_fences_bullets_and_broken_objects() -> None:
    reply = "\n".join([
        "Here are the entries:",
        "```json",
        '{"type": "fact", "content": "a"}',
        '- {"type": "task", "content": "b"},',
        '{"type": "fact", "content": "cut short',
        '{"type": bad}',
        "[1, 2]",
        "```",
        "",
        '{"type": "handoff", "content": "c"}',
    ])
    found = scan(reply)
    assert [o["content"] for o in found.objects] == ["a", "b", "c"]
    assert found.lines == 7
    assert found.commentary == 2  # the preamble, and the array line, which holds no object
    assert found.invalid[0] == "a JSON object without its end"
    assert found.invalid[1].startswith("not valid JSON")
    assert len(found.invalid) == 2
    assert not found.cut  # the reply goes on after the broken object


def test_an_array_or_one_object_instead_of_lines() -> None:
    assert scan('[{"a": 1}, 2, {"b": 3}]') == Scan([{"a": 1}, {"b": 3}], lines=1,
                                                  invalid=["not a JSON object"])
    assert scan('```\n{\n  "a": 1,\n  "b": 2\n}\n```') == Scan([{"a": 1, "b": 2}], lines=4)


def test_pretty_printed_objects_one_after_another() -> None:
    """A small local model's reply: several objects, each over several lines."""
    reply = ('{\n  "type": "fact",\n  "content": "Caroline went to a support group",\n'
             '  "subject": "caroline"\n}\n{\n  "type": "fact",\n  "content": "Melanie paints"\n}\n'
             '{\n  "type": "handoff",\n  "content": "Nothing in flight"\n}\n')
    found = scan(reply)
    assert [o["type"] for o in found.objects] == ["fact", "fact", "handoff"]
    assert (found.commentary, found.invalid, found.cut) == (0, [], False)


def test_a_reply_cut_inside_an_object_is_marked_cut() -> None:
    found = scan('{"type": "fact", "content": "a"}\n{"type": "fact", "content": "b is')
    assert [o["content"] for o in found.objects] == ["a"]
    assert found.invalid == ["a JSON object without its end"]
    assert found.cut
    cut_array = scan('[\n  {"type": "fact", "content": "a"},\n  {"type": "fact", "conte')
    assert [o["content"] for o in cut_array.objects] == ["a"]
    assert cut_array.cut


def test_nothing_usable() -> None:
    assert scan("") == Scan()
    assert scan("I could not find anything worth keeping.") == Scan(lines=1, commentary=1)
    assert scan("See [the notes] and [1, 2].") == Scan(lines=1, commentary=1)


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)
_VALUE: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=6)
_OBJECTS = st.lists(st.dictionaries(_TEXT, _VALUE, max_size=4), max_size=6)
# prose a model puts around its objects: anything without the characters that open JSON
_PROSE = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"],
                               exclude_characters="{[`"), max_size=30)


@st.composite
def _layouts(draw: st.DrawFn) -> tuple[list[dict[str, Any]], str]:
    objects = draw(_OBJECTS)
    layout = draw(st.sampled_from(["lines", "pretty", "array", "pretty-array", "prose"]))
    ascii_only = draw(st.booleans())
    if layout == "array":
        text = json.dumps(objects, ensure_ascii=ascii_only)
    elif layout == "pretty-array":
        text = json.dumps(objects, indent=2, ensure_ascii=ascii_only)
    else:
        indent = 2 if layout == "pretty" else None
        parts = [json.dumps(o, indent=indent, ensure_ascii=ascii_only) for o in objects]
        if layout == "prose":
            parts = [f"{draw(_PROSE)}\n{part}{draw(st.sampled_from(['', ',', ' ']))}"
                     for part in parts]
        text = "\n".join(parts)
    if draw(st.booleans()):
        text = f"{draw(_PROSE)}\n```json\n{text}\n```\n{draw(_PROSE)}"
    return objects, text


@pytest.mark.slow  # generating the cases is seconds (the scan of all of them ~0.2 s)
@settings(max_examples=300, deadline=None)
@given(_layouts())
def test_any_sequence_of_objects_in_any_layout_is_read_whole(
        case: tuple[list[dict[str, Any]], str]) -> None:
    objects, text = case
    found = scan(text)
    assert found.objects == objects
    assert (found.invalid, found.cut) == ([], False)


@pytest.mark.slow  # generating the cases is seconds
@settings(max_examples=200, deadline=None)
@given(_OBJECTS.filter(bool), st.data())
def test_a_reply_cut_anywhere_keeps_the_objects_before_the_cut(
        objects: list[dict[str, Any]], data: st.DataObject) -> None:
    """What a token limit does: the objects wholly before the cut are read, no more, none
    invented, and a cut inside an object is said."""
    lines = [json.dumps(o) for o in objects]
    text = "\n".join(lines)
    at = data.draw(st.integers(0, len(text)))
    found = scan(text[:at])
    whole = sum(1 for i in range(len(lines)) if len("\n".join(lines[:i + 1])) <= at)
    assert found.objects[:whole] == objects[:whole]
    assert len(found.objects) <= whole + 1  # the cut one, when its text happens to be whole
