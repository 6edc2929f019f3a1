"""workspace/markers.py: the block replaced between the markers, byte for byte outside them.

Covers: manual content before, between (two edits in a row) and after the block kept exactly;
marker lines kept as written (indentation, case, spacing); markers appended at the end when
absent (after a blank line; a file without a final newline gets one; an empty file gets just
the markers); CRLF files keep CRLF; an empty block; the malformed cases refused (BEGIN without
END, END without BEGIN, END first, two pairs) with MarkersError; inline mentions of the markers
in prose are not markers; count_lines.
"""

from __future__ import annotations

import pytest

from zettelclaw.errors import MarkersError
from zettelclaw.workspace.markers import BEGIN, END, count_lines, layout, splice

MANUAL_HEAD = "## Goals\n- Ship auth migration\n\n## Preferences\n- Bun, never yarn\n\n"
MANUAL_TAIL = "\n## Notes\nkept *exactly*   \n\ttabs too\n"


def test_the_block_is_replaced_and_everything_else_kept() -> None:
    text = f"{MANUAL_HEAD}{BEGIN}\n## Active\n- old line\n{END}\n{MANUAL_TAIL}"
    new = splice(text, ["## Active", "- new line"])
    assert new == f"{MANUAL_HEAD}{BEGIN}\n## Active\n- new line\n{END}\n{MANUAL_TAIL}"


def test_manual_edits_around_the_block_survive_successive_rewrites() -> None:
    text = splice(MANUAL_HEAD, ["- one"])
    # a person edits before and after the block between two runs
    text = "# Added on top\n" + text + "trailing note without newline"
    text = splice(text, ["- two", "- three"])
    assert text == (f"# Added on top\n{MANUAL_HEAD}{BEGIN}\n- two\n- three\n{END}\n"
                    "trailing note without newline")
    assert splice(text, ["- two", "- three"]) == text


def test_marker_lines_are_kept_as_written() -> None:
    begin, end = "  <!--BEGIN generated briefing-->  ", "<!--   END GENERATED BRIEFING -->"
    text = f"x\n{begin}\nold\n{end}\ny\n"
    assert splice(text, ["new"]) == f"x\n{begin}\nnew\n{end}\ny\n"


@pytest.mark.parametrize(("before", "after"), [
    ("", f"{BEGIN}\n- a\n{END}\n"),
    ("# Goals\n", f"# Goals\n\n{BEGIN}\n- a\n{END}\n"),
    ("# Goals", f"# Goals\n\n{BEGIN}\n- a\n{END}\n"),
    ("# Goals\n\n", f"# Goals\n\n{BEGIN}\n- a\n{END}\n"),
    ("# Goals\r\n- x\r\n", f"# Goals\r\n- x\r\n\r\n{BEGIN}\r\n- a\r\n{END}\r\n"),
])
def test_markers_are_added_at_the_end_when_absent(before: str, after: str) -> None:
    assert splice(before, ["- a"]) == after
    assert after.startswith(before)  # what was there stays, byte for byte


def test_crlf_marker_lines_keep_crlf() -> None:
    text = f"a\r\n{BEGIN}\r\nold\r\n{END}\r\nb\r\n"
    assert splice(text, ["new"]) == f"a\r\n{BEGIN}\r\nnew\r\n{END}\r\nb\r\n"


def test_an_empty_block() -> None:
    assert splice(f"{BEGIN}\nold\n{END}\n", []) == f"{BEGIN}\n{END}\n"


def test_non_utf8_bytes_survive_via_surrogates() -> None:
    raw = b"caf\xe9 \xff\n"
    text = raw.decode("utf-8", "surrogateescape")
    new = splice(text, ["- a"]).encode("utf-8", "surrogateescape")
    assert new.startswith(raw)


def test_markers_mentioned_inline_are_not_markers() -> None:
    text = f"Put {BEGIN} and {END} in your file.\n"
    assert not layout(text).found
    assert splice(text, ["- a"]).startswith(text)


@pytest.mark.parametrize(("text", "problem"), [
    (f"a\n{BEGIN}\nb\n", "without an END"),
    (f"a\n{END}\nb\n", "without a BEGIN"),
    (f"{END}\nx\n{BEGIN}\n", "comes before"),
    (f"{BEGIN}\n{END}\n{BEGIN}\n{END}\n", "expected one pair"),
])
def test_malformed_markers_are_refused(text: str, problem: str) -> None:
    with pytest.raises(MarkersError) as info:
        splice(text, ["- a"])
    assert problem in info.value.message
    assert info.value.code == -32011


@pytest.mark.parametrize(("text", "lines"), [
    ("", 0), ("a", 1), ("a\n", 1), ("a\nb", 2), ("a\n\n", 2), ("\n", 1)])
def test_count_lines(text: str, lines: int) -> None:
    assert count_lines(text) == lines
