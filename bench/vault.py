"""The Markdown view at scale: `vault build` on a 100k-entry log, first and after one more
conversation; `vault sync` over the whole vault.

    .venv/bin/python bench/vault.py [--entries 100000] [--json]

A fresh data directory holds a generated log (bench/generate.py, seed 7). Timed, each in this
process through the same function the command runs (``vault.build.build``):

- index: the search index built from the log first (not the vault's cost; shown for scale);
- first build: every entry rendered into an empty vault;
- rebuild after one conversation: 15 entries of a new session appended (two of them correcting
  earlier entries, one handoff); the index catching up (timed apart: the sidecar does it for
  every call anyway), then the vault build adding them;
- rebuild, nothing new; sync, no edits (every rendered page read and compared);
- sync, one edit: a ticked task on one page, its correction appended;
- sync after a topic page was renamed (followed by its stamp); a rebuild after another was
  deleted (looked for among the vault's other files).

Prints a Markdown table and the machine; ``--json`` the figures. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))  # bench/ is a namespace package under the root
from bench import generate  # noqa: E402

from zettelclaw.app import App, build_app, build_router  # noqa: E402
from zettelclaw.config import load_config  # noqa: E402
from zettelclaw.forget.service import hide_for_vault  # noqa: E402
from zettelclaw.home import Home  # noqa: E402
from zettelclaw.index import entries as entry_reads  # noqa: E402
from zettelclaw.index.entries import Filters  # noqa: E402
from zettelclaw.log.schema import new_id, validate_entry  # noqa: E402
from zettelclaw.log.store import LogStore  # noqa: E402
from zettelclaw.vault.build import build  # noqa: E402
from zettelclaw.vault.sync import sync  # noqa: E402


def timed(fn: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def conversation(app: App) -> list[Any]:
    """One more conversation: 15 entries of a new session, two correcting current entries."""
    with app.index.read() as conn:
        tasks = entry_reads.filter_entries(conn, Filters(type="task", status="open"), 1)
        facts = entry_reads.filter_entries(conn, Filters(type="fact"), 1)
    session, stamp = "bench-" + new_id(), "2030-01-01T10:{:02d}:00Z"
    made = []
    for i in range(12):
        made.append({"id": new_id(), "timestamp": stamp.format(i), "type": "fact",
                     "content": f"A new fact number {i} from the benchmark", "session": session,
                     "subject": "bench-vault"})
    made.append({**dict(tasks[0]), "id": new_id(), "timestamp": stamp.format(12),
                 "status": "done", "replaces": tasks[0]["id"], "session": session})
    made.append({**dict(facts[0]), "id": new_id(), "timestamp": stamp.format(13),
                 "content": "A corrected fact", "replaces": facts[0]["id"], "session": session})
    made.append({"id": new_id(), "timestamp": stamp.format(14), "type": "handoff",
                 "content": "Benchmark conversation done", "session": session})
    keep = ("id", "timestamp", "type", "content", "status", "detail", "subject", "replaces",
            "session")
    return [validate_entry({k: v for k, v in e.items() if k in keep and v is not None})
            for e in made]


def run(entries: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="zc-vault-bench-") as tmp:
        home = Home(Path(tmp) / "home")
        workspace = Path(tmp) / "workspace"
        (workspace / "memory").mkdir(parents=True)
        generate.generate(entries, home.root, seed=7)
        settings = load_config(home, env={})
        app = build_app(home, workspace, settings, serving=False,
                        router=build_router(settings))
        try:
            figures: dict[str, Any] = {"entries": entries}
            figures["index_s"], _ = timed(app.freshness.sync)
            figures["first_build_s"], first = timed(lambda: build(app))
            figures["pages"] = len(first.pages_created)
            figures["lines"] = first.lines_added
            figures["vault_mb"] = round(sum(p.stat().st_size for p in (home.root / "vault")
                                            .rglob("*.md")) / 2**20, 1)
            figures["state_mb"] = round(sum(p.stat().st_size for p in (home.root / "vault-state")
                                            .rglob("*.json")) / 2**20, 1)
            LogStore(home).append(conversation(app))
            figures["catch_up_one_conversation_s"], _ = timed(app.freshness.sync)
            figures["rebuild_one_conversation_s"], again = timed(lambda: build(app))
            figures["rebuild_entries"] = again.entries
            figures["rebuild_pages"] = len(again.pages_created) + len(again.pages_updated)
            figures["rebuild_nothing_new_s"], _ = timed(lambda: build(app))
            figures["sync_no_edit_s"], _ = timed(lambda: sync(app, hide=hide_for_vault))
            page = next((home.root / "vault" / "01 Notes").glob("*.md"))
            text = page.read_text()
            page.write_text(text.replace("- [ ] ", "- [x] ", 1))
            figures["sync_one_edit_s"], done = timed(lambda: sync(app, hide=hide_for_vault))
            figures["sync_one_edit_corrections"] = done.corrections
            # a topic page renamed (followed by its stamp), then another deleted (looked for
            # among the vault's other files, none of which is one of its pages)
            page.rename(page.with_name("Renamed by the person.md"))
            figures["sync_page_renamed_s"], _ = timed(lambda: sync(app, hide=hide_for_vault))
            next((home.root / "vault" / "01 Notes").glob("*.md")).unlink()
            figures["rebuild_page_deleted_s"], _ = timed(lambda: build(app))
            figures["peak_rss_mb"] = round(
                resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        finally:
            app.close()
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = run(args.entries)
    figures["machine"] = f"{platform.machine()}, {os.cpu_count()} cores, Python " \
                         f"{platform.python_version()}"
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"| {figures['entries']} entries | seconds |\n|---|---|")
    for key in ("index_s", "first_build_s", "catch_up_one_conversation_s",
                "rebuild_one_conversation_s",
                "rebuild_nothing_new_s", "sync_no_edit_s", "sync_one_edit_s",
                "sync_page_renamed_s", "rebuild_page_deleted_s"):
        print(f"| {key} | {figures[key]:.2f} |")
    print(f"\n{figures['pages']} pages, {figures['lines']} lines, {figures['vault_mb']} MiB of "
          f"Markdown, state {figures['state_mb']} MiB, peak RSS {figures['peak_rss_mb']} MiB; "
          f"{figures['machine']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
