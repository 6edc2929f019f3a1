"""prompts_loader.py: the prompts are Markdown files, filled strictly.

Covers load("extraction") (the Markdown in prompts/extraction.md, with its placeholders, and an
unknown prompt name failing), fill() (every placeholder replaced, each occurrence; values taken
literally: placeholders, backslashes and regex group references inside a value are not expanded;
single braces untouched), and fill() raising ValueError that names a missing or an unknown
placeholder.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from zettelclaw.prompts_loader import PLACEHOLDER, fill, load

PROMPTS = Path(__file__).resolve().parent.parent / "prompts"


def values_for(template: str) -> dict[str, str]:
    return {name: f"<{name} value>" for name in PLACEHOLDER.findall(template)}


def test_load_extraction_is_the_markdown_file() -> None:
    text = load("extraction")
    assert text == (PROMPTS / "extraction.md").read_text(encoding="utf-8")
    assert "memory extraction agent" in text
    assert "## Output format" in text


def test_the_extraction_prompt_has_the_placeholders_the_service_fills() -> None:
    assert {"subjects", "entries", "session", "date", "truncation", "transcript"} <= set(
        PLACEHOLDER.findall(load("extraction")))


def test_an_unknown_prompt_fails() -> None:
    with pytest.raises(FileNotFoundError):
        load("no-such-prompt")


def test_fill_replaces_every_placeholder() -> None:
    template = load("extraction")
    filled = fill(template, values_for(template))
    assert "{{" not in filled
    assert "}}" not in filled
    for name in PLACEHOLDER.findall(template):
        assert f"<{name} value>" in filled
    # the JSON examples' single braces are left alone
    assert '{"type":"handoff","content":"Ana is to send Ben her vet\'s name."}' in filled


def test_fill_replaces_each_occurrence() -> None:
    assert fill("{{a}} and {{a}}, {{b}}", {"a": "x", "b": "y"}) == "x and x, y"


def test_values_are_taken_literally() -> None:
    transcript = r"user said {{session}} and \1 \g<0> C:\new"
    filled = fill("S={{session}} T={{transcript}}", {"session": "s1", "transcript": transcript})
    assert filled == f"S=s1 T={transcript}"


def test_a_missing_placeholder_raises() -> None:
    template = load("extraction")
    values = values_for(template)
    del values["transcript"]
    with pytest.raises(ValueError, match=r"missing \['transcript'\]"):
        fill(template, values)


def test_an_unknown_placeholder_raises() -> None:
    template = load("extraction")
    with pytest.raises(ValueError, match=r"unknown \['mood'\]"):
        fill(template, {**values_for(template), "mood": "cheerful"})


def test_a_template_without_placeholders() -> None:
    assert fill("plain text {single}", {}) == "plain text {single}"
    with pytest.raises(ValueError, match="unknown"):
        fill("plain text", {"x": "1"})
