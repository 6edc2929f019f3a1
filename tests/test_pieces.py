"""search/pieces.py: a chunk is cut into pieces the model reads whole, losing and repeating
nothing, and is also compared by each line that says something on its own."""

from __future__ import annotations

from zettelclaw.search.pieces import PIECE_CHARS, compared_texts, pieces


def test_a_long_chunk_is_embedded_in_pieces_the_model_reads_whole() -> None:
    lines = [f"line {i} about the garden shed and the lawnmower" for i in range(60)]
    text = "\n".join(lines)
    cut = pieces(text)
    assert len(cut) > 1
    assert all(len(p) <= PIECE_CHARS for p in cut)
    assert "\n".join(cut) == text, "nothing is lost or repeated"
    assert pieces("x" * (PIECE_CHARS * 2 + 5)) == ["x" * PIECE_CHARS] * 2 + ["x" * 5]


def test_a_chunk_is_compared_by_its_pieces_and_by_each_line_that_says_something() -> None:
    text = "\n".join(["# Health", "", "- Allergic to penicillin since childhood",
                      "* [x] Booked the flu jab for October", "1. Runs on Sundays",
                      "> Blood pressure was 120/80 in May", "## 2 November 2025"])
    assert compared_texts(text) == [*pieces(text), "Allergic to penicillin since childhood",
                                    "Booked the flu jab for October",
                                    "Blood pressure was 120/80 in May"]
    one_line = "Aisle seats on long flights, always"
    assert compared_texts(one_line) == [one_line], "a line that is its chunk is compared once"
    assert compared_texts("x" * 1200) == pieces("x" * 1200), "a long line is in the pieces"
