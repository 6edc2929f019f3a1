"""Entries and hits as a person reads them: ``log``, ``search``, ``get``, ``subjects``."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping
from typing import Any

DETAIL_LABEL = {"decision": "why", "task": "note", "question": "context", "fact": "detail",
                "handoff": "detail"}


def wrap(text: str, width: int, initial: str = "    ", subsequent: str = "    ") -> list[str]:
    """``textwrap.wrap`` in linear time: a word longer than a line is cut into line-long
    pieces first (textwrap re-slices the rest of a long word for every line it fills, so one
    50 MB word took minutes)."""
    room = max(width - max(len(initial), len(subsequent)), 1)
    words = []
    for word in text.split():
        if len(word) > room:
            words += [word[i:i + room] for i in range(0, len(word), room)]
        else:
            words.append(word)
    return textwrap.wrap(" ".join(words), width, initial_indent=initial,
                         subsequent_indent=subsequent, break_long_words=False)


def entry_block(entry: Mapping[str, Any], width: int = 100) -> str:
    when = str(entry.get("timestamp", ""))[:16].replace("T", " ")
    kind = entry["type"]
    if kind == "task":
        kind += f" [{entry.get('status')}]"
    head = f"{when}  {kind:<13} {entry.get('subject') or '-':<24} {entry['id']}"
    if entry.get("replacedBy"):
        head += f"  (replaced by {entry['replacedBy']})"
    lines = [head]
    lines += wrap(entry["content"], width) or ["    "]
    if entry.get("contentTruncated"):
        lines.append(f"    (cut for the list: `zettelclaw get {entry['id']}` shows all of it)")
    if entry.get("detail"):
        label = DETAIL_LABEL.get(entry["type"], "detail")
        lines += wrap(f"{label}: {entry['detail']}", width, subsequent="      ")
    return "\n".join(lines)


def result_block(result: Mapping[str, Any], width: int = 100) -> str:
    """One ``memory.search`` result, whatever its source: a log entry, or a part of a memory
    file (cited by file and lines, with its snippet)."""
    if result.get("source", "log") == "log":
        return entry_block(result, width)
    head = f"{'':<16}  {'file':<13} {result.get('citation') or result.get('path', '?')}"
    text = " ".join(str(result.get("snippet") or "").split())
    body = wrap(text, width)
    return "\n".join([head, *(body or ["    "])])


def entries(results: Iterable[Mapping[str, Any]]) -> str:
    return "\n".join(result_block(r) for r in results)


def got(result: Mapping[str, Any]) -> str:
    """What ``zettelclaw get`` prints: an entry with its chain, or the text of a file or a
    session, with the lines it covers."""
    if "entry" in result:
        entry = result["entry"]
        lines = [entry_block({**entry, "replacedBy": (result["replacedBy"] or [{}])[-1]
                                                     .get("id")})]
        lines.append(f"    log.jsonl line {result['line']}; "
                     + ("current" if result["current"] else "replaced"))
        if entry.get("replaces"):
            lines.append(f"    replaces {entry['replaces']}")
        for older in result["replaces"]:
            lines.append(f"    older version {older['id']}: {older['content']}")
        for newer in result["replacedBy"]:
            lines.append(f"    newer version {newer['id']}: {newer['content']}")
        return "\n".join(lines)
    last = result["from"] + result["lines"] - 1
    more = " (truncated)" if result.get("truncated") else ""
    if not result["lines"]:  # an empty file (a `from` past the end is `get`'s to say)
        return f"-- {result['path']}: no lines (of {result['totalLines']}){more}"
    footer = (f"-- {result['path']}: lines {result['from']}-{last} of "
              f"{result['totalLines']}{more}")
    return str(result["text"]).rstrip("\n") + "\n" + footer


def subjects(items: list[Mapping[str, Any]]) -> str:
    if not items:
        return "no subjects yet"
    width = max(len(s["slug"]) for s in items)
    rows = [f"{'SLUG':<{width}}  {'TYPE':<10} {'ENTRIES':>7}  {'LAST ENTRY':<20} DISPLAY"]
    for s in items:
        last = (s.get("lastEntry") or "-")[:16].replace("T", " ")
        kind = s.get("type") or "(unregistered)"
        rows.append(f"{s['slug']:<{width}}  {kind:<10} {s['entries']:>7}  {last:<20} "
                    f"{s['display']}")
    return "\n".join(rows)
