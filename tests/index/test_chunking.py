"""index/chunking.py: Markdown cut into ~400-token chunks with ~80 tokens of overlap, at line
boundaries, each naming its lines."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zettelclaw.index.chunking import CHARS_PER_TOKEN, chunk_markdown

LIMIT = 400 * CHARS_PER_TOKEN
OVERLAP = 80 * CHARS_PER_TOKEN


def test_a_short_file_is_one_chunk_with_its_lines() -> None:
    chunks = chunk_markdown("# Goals\n- ship it\n- rest\n")
    assert len(chunks) == 1
    assert (chunks[0].start_line, chunks[0].end_line) == (1, 3)
    assert chunks[0].text == "# Goals\n- ship it\n- rest"


def test_long_files_are_cut_with_overlap() -> None:
    lines = [f"line {i:03d} " + "word " * 15 for i in range(200)]  # ~90 chars a line
    chunks = chunk_markdown("\n".join(lines))
    assert len(chunks) > 3
    for before, after in itertools.pairwise(chunks):
        assert after.start_line <= before.end_line  # they overlap
        overlap = "\n".join(lines[after.start_line - 1:before.end_line])
        assert 0 < len(overlap) <= OVERLAP
    assert all(len(c.text) <= LIMIT for c in chunks)
    assert chunks[-1].end_line == 200


def test_a_line_longer_than_a_chunk_is_a_chunk_of_its_own() -> None:
    chunks = chunk_markdown("short\n" + "x" * (LIMIT * 2) + "\nafter")
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 1), (2, 2), (3, 3)]


def test_blank_files_have_no_chunks() -> None:
    assert chunk_markdown("") == []
    assert chunk_markdown("\n\n   \n") == []


lines_strategy = st.lists(st.text(st.characters(exclude_characters="\n\r\x0b\x0c\x1c\x1d\x1e"
                                                                        "\x85\u2028\u2029"),
                                  max_size=300), max_size=120)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(lines_strategy, st.integers(5, 50), st.integers(0, 10))
def test_every_line_is_in_a_chunk_and_every_chunk_is_its_lines(
        lines: list[str], tokens: int, overlap: int) -> None:
    text = "\n".join(lines)
    chunks = chunk_markdown(text, tokens, overlap)
    source = text.splitlines()
    covered: set[int] = set()
    for chunk in chunks:
        assert 1 <= chunk.start_line <= chunk.end_line <= len(source)
        assert chunk.text == "\n".join(source[chunk.start_line - 1:chunk.end_line])
        covered.update(range(chunk.start_line, chunk.end_line + 1))
    starts = [c.start_line for c in chunks]
    assert starts == sorted(set(starts)), "chunks move forward"
    for number, line in enumerate(source, start=1):
        if line.strip():
            assert number in covered
