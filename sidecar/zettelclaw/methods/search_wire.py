"""``memory.search``'s answer as sent, built from the search engine's hits: memory-core's fields
(``path``, ``startLine``, ``endLine``, ``citation``, ``source``) are made here and nowhere else.
The answer is ``protocol/results/``'s ``SearchResult`` in its wire form, built directly."""

from __future__ import annotations

from typing import Any

from zettelclaw.index.entries import ENTRY_COLUMNS
from zettelclaw.search.query import Answer, ChunkHit, EntryHit

# A result's content and detail in a list: an entry of 50 MB (written by hand) must not make
# every search answer 50 MB; memory.get returns the whole entry.
RESULT_TEXT_CHARS = 16_384


def search_wire(answer: Answer) -> dict[str, Any]:
    """``memory.search``'s answer as sent: ``SearchResult``'s wire form, built directly (through
    the models it was a sizeable share of a quick search's whole call; bench/README.md).
    The models stay the contract: tests/protocol/test_results.py holds the two equal, key order
    included, over generated answers."""
    out: dict[str, Any] = {"results": [
        _log_wire(hit) if isinstance(hit, EntryHit) else _memory_wire(hit)
        for hit in answer.hits], "mode": answer.mode}
    if answer.fallback is not None:
        out["fallback"] = {"reason": answer.fallback}
    if answer.stale is not None:
        out["stale"] = {"reason": answer.stale}
    return out


def _log_wire(hit: EntryHit) -> dict[str, Any]:
    entry = hit.entry
    out: dict[str, Any] = {key: entry[key] for key in ENTRY_COLUMNS}  # LogResult's order
    cut: dict[str, bool] = {}
    for key in ("content", "detail"):
        text = out[key]
        if text is not None and len(text) > RESULT_TEXT_CHARS:
            out[key] = text[:RESULT_TEXT_CHARS]
            cut[f"{key}Truncated"] = True
    line = hit.line
    out.update(path=entry["id"], startLine=line, endLine=line, line=line,
               replacedBy=hit.replaced_by, source="log", citation=f"log.jsonl#L{line}",
               snippet=hit.snippet, score=round(hit.score, 6))
    if hit.keyword is not None:
        out["textScore"] = round(hit.keyword, 6)
    if hit.semantic is not None:
        out["vectorScore"] = round(hit.semantic, 6)
    out.update(cut)
    return out


def _memory_wire(hit: ChunkHit) -> dict[str, Any]:
    lines = (f"#L{hit.start_line}" if hit.start_line == hit.end_line
             else f"#L{hit.start_line}-L{hit.end_line}")
    out: dict[str, Any] = {
        "path": hit.path, "startLine": hit.start_line, "endLine": hit.end_line,
        "source": "memory", "citation": f"{hit.path}{lines}", "snippet": hit.snippet,
        "score": round(hit.score, 6), "textScore": round(hit.keyword, 6)}
    if hit.semantic is not None:
        out["vectorScore"] = round(hit.semantic, 6)
    return out
