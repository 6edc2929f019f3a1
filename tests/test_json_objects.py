"""The one parser of models' "one JSON object per line" replies."""

from __future__ import annotations

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


def test_an_array_or_one_object_instead_of_lines() -> None:
    assert scan('[{"a": 1}, 2, {"b": 3}]') == Scan([{"a": 1}, {"b": 3}], lines=3,
                                                  invalid=["not a JSON object"])
    assert scan('```\n{\n  "a": 1,\n  "b": 2\n}\n```') == Scan([{"a": 1, "b": 2}], lines=1)


def test_nothing_usable() -> None:
    assert scan("") == Scan()
    assert scan("I could not find anything worth keeping.") == Scan(lines=1, commentary=1)
