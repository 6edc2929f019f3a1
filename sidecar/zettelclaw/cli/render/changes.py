"""What a change did, as a person reads it: ``briefing``, ``forget``, ``receipts``,
``trace``, ``vault``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def briefing_run(result: Mapping[str, Any]) -> str:
    """What ``zettelclaw briefing`` prints: the block, then what happened."""
    if result["dryRun"]:
        what = "dry run, nothing written" + (" (the block would change)" if result["changed"]
                                             else " (the block is up to date)")
    else:
        what = "written" if result["written"] else "unchanged (not rewritten)"
    lines = [result["block"].rstrip("\n"), "",
             f"{result['path']}: {what}; the block is {result['lines']} lines"
             + (" (cut to fit)" if result["cut"] else "")
             + f", MEMORY.md {result['memoryMdLines']} lines"]
    model = result["model"]
    if model.get("skipped"):
        lines.append(f"model      not used: {model['skipped']}")
    elif model.get("used"):
        lines.append(f"model      {model['summaries']} summaries, {model['contradictions']} "
                     "contradiction flag(s)")
    if model.get("error"):
        lines.append(f"warning    the model failed ({model['error']}); that part of the block "
                     "comes from the log alone")
    lines += [f"warning    {w}" for w in result.get("warnings") or []]
    return "\n".join(lines)


def forgot(result: dict[str, Any]) -> str:
    """``memory.forget`` / ``memory.unforget``: each entry, then what was done."""
    verb = {"hide": "hidden", "purge": "purged", "unhide": "given back"}[result["action"]]
    lines = [f"{e['id']}  {e['type']:<8} {e['session']}  {e['content']}"
             + ("  (hidden)" if e["hidden"] and result["action"] != "unhide" else "")
             for e in result["entries"]]
    n = result["changed"]
    if result["dryRun"]:
        lines.append(f"dry run: {n} entr{'y' if n == 1 else 'ies'} would be {verb}; "
                     "nothing changed")
    else:
        lines.append(f"{n} entr{'y' if n == 1 else 'ies'} {verb}")
    removed = result.get("removed")
    if removed and not result["dryRun"]:
        lines.append(f"removed: {removed['log']['lines']} log line(s), "
                     f"{removed['transcripts']['files']} conversation copy(ies), "
                     f"{removed['spool']['jobs']} spooled job(s) and "
                     f"{removed['spool']['entries']} spooled entr(ies), "
                     f"{removed['index']['rows']} index row(s), "
                     f"{removed['index']['vectors']} vector(s) in {removed['seconds']} s")
    elif removed and removed.get("transcripts"):
        lines.append("conversation copies that would lose their text: "
                     + ", ".join(removed["transcripts"]))
    if result["action"] == "hide" and n and not result["dryRun"]:
        lines.append("undo: zettelclaw forget --undo " + " ".join(
            e["id"] for e in result["entries"] if not e["hidden"]))
    copies = result.get("inMemoryFiles") or []
    deleted = [c for c in copies if c.get("deleted")]
    if deleted:
        lines.append("deleted from your memory files:")
        lines += [f"  {c['path']}:{c['line']}: {c['text']}" for c in deleted]
    if len(deleted) < len(copies):
        lines.append("still in your memory files (not changed: search finds these lines until "
                     "you delete or edit them; --edit-files deletes them):")
        lines += [f"  {c['path']}:{c['line']}: {c['text']}" for c in copies
                  if not c.get("deleted")]
    return "\n".join(lines)


def receipts(conversations: list[dict[str, Any]]) -> str:
    if not conversations:
        return "no conversation has written entries yet"
    lines = []
    for c in conversations:
        told = "told" if c["told"] else "not told yet"
        lines.append(f"{c['at']}  {c['sessionId']}  ({c['source']}, {told})")
        for e in c["entries"]:
            text = e["content"] if e["present"] else "(forgotten or replaced)"
            lines.append(f"  {e['id']}  {e['type'] or '':<8} {text}")
    return "\n".join(lines)


def trace(turns: list[dict[str, Any]]) -> str:
    if not turns:
        return "no turn was given anything yet"
    lines = []
    for t in turns:
        parts = []
        for item in t["items"]:
            named = item.get("id") or ", ".join(item.get("ids", []))
            parts.append(f"{item['kind']} {named} ({item['chars']} chars)")
        lines.append(f"{t['at']}  {t['sessionKey']}  {t['chars']} chars: " + "; ".join(parts))
    return "\n".join(lines)


def vault_build(result: dict[str, Any]) -> str:
    lines = [f"vault {result['vault']}: {result['entries']} new entries, {result['linesAdded']} "
             f"lines added, {result['pagesCreated']} pages created, {result['pagesUpdated']} "
             f"updated in {result['seconds']:.1f} s"]
    if result.get("movedAside"):
        lines.append(f"the previous folder was moved to {result['movedAside']}")
    lines += [f"  left alone: {s['page']} ({s['reason']})" for s in result["skippedPages"]]
    lines.append("open the folder as a vault in Obsidian (Open folder as vault)")
    return "\n".join(lines)


def vault_sync(result: dict[str, Any]) -> str:
    receipts = result["receipts"]
    if not receipts:
        return f"vault {result['vault']}: no edits to take back"
    lines = [f"vault {result['vault']}: {result['corrections']} correction(s)"]
    for r in receipts:
        if r.get("applied") and r["action"] == "hide":
            ids = " ".join(r["hidden"]) or "(already hidden)"
            lines.append(f"  hidden {ids} ({r['page']}): {r['line'].strip()}"
                         + (f"; undo: zettelclaw forget --undo {' '.join(r['hidden'])}"
                            if r["hidden"] else ""))
        elif r.get("applied") and r["action"] == "add":
            entry = r["entry"]
            lines.append(f"  added {entry['id']} ({r['page']}): {entry['content']}")
        elif r.get("applied"):
            entry = r["entry"]
            what = {"done": "done", "reopen": "reopened"}.get(r["action"], "corrected")
            lines.append(f"  {what} {r['replaces']} -> {entry['id']} ({r['page']}): "
                         f"{entry['content']}")
        elif r["action"] == "add":
            lines.append(f"  not added ({r['page']}): {r['reason']}")
        else:
            lines.append(f"  not applied ({r['page']}, {r['of']}): {r['reason']}")
    return "\n".join(lines)
