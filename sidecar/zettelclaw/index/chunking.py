"""Cutting Markdown into overlapping chunks, the way OpenClaw's memory-core does. Pure.

About 400 tokens a chunk with 80 tokens of overlap, counted as 4 characters a token, cut at
line boundaries so that every chunk names the exact lines it holds (``startLine``/``endLine``,
1-based, inclusive). A single line longer than a chunk is a chunk of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

CHARS_PER_TOKEN = 4
CHUNK_TOKENS = 400
OVERLAP_TOKENS = 80


@dataclass(frozen=True)
class Chunk:
    start_line: int
    end_line: int
    text: str


def chunk_markdown(text: str, chunk_tokens: int = CHUNK_TOKENS,
                   overlap_tokens: int = OVERLAP_TOKENS) -> list[Chunk]:
    limit = chunk_tokens * CHARS_PER_TOKEN
    overlap = overlap_tokens * CHARS_PER_TOKEN
    lines = text.splitlines()
    chunks: list[Chunk] = []
    start = 0
    while start < len(lines):
        end, size = start, 0
        while end < len(lines) and (size == 0 or size + len(lines[end]) + 1 <= limit):
            size += len(lines[end]) + 1
            end += 1
        body = "\n".join(lines[start:end])
        if body.strip():
            chunks.append(Chunk(start + 1, end, body))
        if end >= len(lines):
            break
        # the next chunk starts with the last `overlap` characters' worth of whole lines
        back, carried = end, 0
        while back - 1 > start and carried + len(lines[back - 1]) + 1 <= overlap:
            back -= 1
            carried += len(lines[back]) + 1
        start = back
    return chunks
