"""Reading speed and memory of the import source readers on generated exports.

    .venv/bin/python bench/import_sources.py [--conversations 5000] [--turns 8] [--json]

Writes, into a temporary folder, a ChatGPT export (each conversation a tree with one
regenerated answer off the current branch, a hidden system message and a tool call) as
``conversations.json`` and as a zip, and a Claude export of the same conversations; each is
written one conversation at a time, so the generator never holds the file. Each is then read by
its reader (``importing/sources``) in a child process of its own, which reports conversations,
messages, seconds and its peak RSS (``ru_maxrss``), and the same for Python alone (imports
done, nothing read) to show what reading adds. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

BENCH = Path(__file__).resolve().parent
T0 = 1_700_000_000.0
WORDS = "the quick brown fox jumps over the lazy dog while the sidecar keeps its memory "


def chatgpt_conversation(i: int, turns: int) -> dict[str, Any]:
    mapping: dict[str, Any] = {"root": {"id": "root", "message": None, "parent": None,
                                        "children": ["sys"]}}

    def add(node: str, parent: str, role: str, text: str, **extra: Any) -> None:
        mapping[node] = {"id": node, "parent": parent, "children": [], "message": {
            "id": node, "author": {"role": role, "name": None, "metadata": {}},
            "create_time": T0 + i * 1000 + len(mapping), "update_time": None,
            "content": {"content_type": extra.pop("content_type", "text"), "parts": [text]},
            "status": "finished_successfully", "end_turn": True, "weight": 1.0,
            "metadata": extra.pop("metadata", {}), "recipient": extra.pop("recipient", "all")}}
        mapping[parent]["children"].append(node)

    add("sys", "root", "system", "You are ChatGPT.",
        metadata={"is_visually_hidden_from_conversation": True})
    last = "sys"
    for t in range(turns):
        node = f"n{t}"
        add(node, last, "user" if t % 2 == 0 else "assistant",
            f"conversation {i}, turn {t}: " + WORDS * (3 if t % 2 == 0 else 12))
        if t == 1:
            add("regen", last, "assistant", "a regenerated answer, not current " + WORDS)
            add("call", node, "assistant", "print(1)", content_type="code", recipient="python")
            add("out", "call", "tool", "1", content_type="execution_output")
            node = "out"
        last = node
    return {"title": f"Conversation {i}", "create_time": T0 + i * 1000,
            "update_time": T0 + i * 1000 + 500, "mapping": mapping, "current_node": last,
            "conversation_id": f"c-{i}", "id": f"c-{i}", "default_model_slug": "gpt-4o"}


def claude_conversation(i: int, turns: int) -> dict[str, Any]:
    messages = []
    for t in range(turns):
        text = f"conversation {i}, turn {t}: " + WORDS * (3 if t % 2 == 0 else 12)
        at = f"2025-03-01T09:{t % 60:02d}:00.000000Z"
        messages.append({"uuid": f"m-{i}-{t}", "text": text, "sender":
                         "human" if t % 2 == 0 else "assistant", "created_at": at,
                         "updated_at": at, "attachments": [], "files": [],
                         "content": [{"type": "text", "text": text, "start_timestamp": at,
                                      "stop_timestamp": at, "citations": []}]})
    return {"uuid": f"conv-{i}", "name": f"Conversation {i}", "summary": "",
            "created_at": "2025-03-01T09:00:00Z", "updated_at": "2025-03-01T10:00:00Z",
            "account": {"uuid": "a"}, "chat_messages": messages}


def write_list(path: Path, items: Iterator[dict[str, Any]]) -> None:
    with path.open("wb") as out:
        out.write(b"[")
        for n, item in enumerate(items):
            out.write(b"," if n else b"")
            out.write(orjson.dumps(item))
        out.write(b"]")


def read_one(source: str, path: str) -> dict[str, Any]:
    """In the child: read ``path`` with ``source``'s reader; counts, seconds, peak RSS."""
    from zettelclaw.importing.items import Conversation
    from zettelclaw.importing.sources import chatgpt, claude

    reader = {"chatgpt": chatgpt.read, "claude": claude.read}.get(source)
    conversations = messages = problems = 0
    started = time.perf_counter()
    if reader is not None:
        for item in reader(Path(path)):
            if isinstance(item, Conversation):
                conversations += 1
                messages += len(item.messages)
            else:
                problems += 1
    seconds = time.perf_counter() - started
    return {"conversations": conversations, "messages": messages, "problems": problems,
            "seconds": seconds, "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            / 1024}


def child(source: str, path: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, "--read", source, str(path)],
                          capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conversations", type=int, default=5000)
    parser.add_argument("--turns", type=int, default=8)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--read", nargs=2, metavar=("SOURCE", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.read:
        print(json.dumps(read_one(*args.read)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        gpt = folder / "conversations.json"
        write_list(gpt, (chatgpt_conversation(i, args.turns) for i in range(args.conversations)))
        gpt_zip = folder / "chatgpt.zip"
        with zipfile.ZipFile(gpt_zip, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.write(gpt, "conversations.json")
        anthropic = folder / "claude" / "conversations.json"
        anthropic.parent.mkdir()
        write_list(anthropic, (claude_conversation(i, args.turns)
                               for i in range(args.conversations)))
        rows = [("python alone", "none", gpt), ("ChatGPT conversations.json", "chatgpt", gpt),
                ("ChatGPT zip", "chatgpt", gpt_zip), ("Claude conversations.json", "claude",
                                                      anthropic)]
        results = []
        for name, source, path in rows:
            size = path.stat().st_size if source != "none" else 0
            result = child(source, path) | {"case": name, "mib": size / 2**20}
            results.append(result)
    machine = {"python": platform.python_version(), "machine": platform.machine(),
               "cpus": os.cpu_count(), "load": os.getloadavg()}
    if args.json:
        print(json.dumps({"machine": machine, "results": results}, indent=1))
        return
    print(f"{args.conversations} conversations of {args.turns} turns; {machine}")
    print("| case | file MiB | conversations | messages | s | conversations/s | peak RSS MiB |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        rate = r["conversations"] / r["seconds"] if r["seconds"] and r["conversations"] else 0
        print(f"| {r['case']} | {r['mib']:.1f} | {r['conversations']} | {r['messages']} | "
              f"{r['seconds']:.2f} | {rate:,.0f} | {r['peak_rss_mib']:.0f} |")


if __name__ == "__main__":
    main()
