"""What a person sees: one journal page and one topic page of a small vault, rendered to HTML
the way a Markdown viewer shows them, and (when Chromium is installed) a screenshot of it.

    .venv/bin/python bench/vault_preview.py OUT_DIR

A fresh data directory holds a small log: two days, three subjects (a project, a person, a
tool), a fact corrected, a decision replaced and a task done the next day, another task left
open, a question, a handoff, an entry with no subject. ``vault.build.build`` renders it; then
``OUT_DIR/preview.html`` holds the day the corrections were made (``03 Journal/...``) and the
project's page (``01 Notes/...``), each under its file name, rendered by markdown-it-py
(CommonMark, strikethrough, tables) with mdit-py-plugins' front matter (shown as a table, as
Obsidian's Properties show it, not as text) and task lists (checkboxes), and a wiki-link rule
here (``[[page]]``, ``[[page|label]]``, ``[[page#^block|label]]``: a link; a block id ``^zc...``
at a line's end: dimmed, as Obsidian hides it in reading view). With ``chromium`` on the PATH,
``OUT_DIR/preview.png`` is its headless screenshot.

Needs ``pip install markdown-it-py mdit-py-plugins`` (a docs tool here, no dependency of
Zettelclaw). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import orjson
import yaml
from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.tasklists import tasklists_plugin

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))  # bench/ is a namespace package under the root

from zettelclaw.app import build_app, build_router  # noqa: E402
from zettelclaw.config import load_config  # noqa: E402
from zettelclaw.home import Home  # noqa: E402
from zettelclaw.log.schema import new_id  # noqa: E402
from zettelclaw.vault.build import build  # noqa: E402

WIKILINK = re.compile(r"\[\[([^\]|#]*)(#\^?[^\]|]*)?(?:\|([^\]]*))?\]\]")
BLOCK_ID = re.compile(r" \^([A-Za-z0-9-]+)\s*$")
DAY1, DAY2 = "2026-02-20", "2026-02-21"


def entry(type: str, content: str, when: str, **fields: Any) -> dict[str, Any]:
    value = {"id": new_id(), "timestamp": when, "type": type, "content": content,
             "session": fields.pop("session", "sess-1")}
    if type == "task":
        value["status"] = "open"
    return {**value, **fields}


def story(home: Home) -> None:
    home.subjects.write_text(orjson.dumps({
        "auth-migration": {"display": "Auth Migration", "type": "project"},
        "sarah": {"display": "Sarah Chen", "type": "person"},
        "sqs": {"display": "SQS", "type": "tool"}}).decode())
    t1, t2 = f"{DAY1}T09:00:00Z", f"{DAY2}T10:00:00Z"
    fact = entry("fact", "Backoff is 1s, 5s, 15s", t1, subject="auth-migration")
    decision = entry("decision", "Retry inside the request handler", t1,
                     subject="auth-migration")
    task = entry("task", "Backfill the 47 failed jobs", t1, subject="auth-migration")
    rows = [
        fact, decision, task,
        entry("task", "Load-test the queue at 10k/min", t1, subject="auth-migration"),
        entry("question", "Is the queue enough for 10k/min bursts?", t1,
              subject="auth-migration"),
        entry("fact", "Sarah Chen reviews the auth PRs", t1, subject="sarah"),
        entry("handoff", "Retries done; backfill not started", f"{DAY1}T15:30:00Z",
              subject="auth-migration", session="abc12345xyz"),
        entry("fact", "Backoff is 2s, 10s, 30s", t2, subject="auth-migration",
              replaces=fact["id"]),
        entry("decision", "Retry through an SQS queue, not in the request", t2,
              subject="auth-migration", replaces=decision["id"]),
        entry("fact", "SQS visibility timeout is 30s", t2, subject="sqs"),
        entry("fact", "Sarah prefers async updates", t2, subject="sarah"),
        entry("fact", "The office wifi password rotates monthly", t2),
        {**entry("task", "Backfill the 47 failed jobs", t2, subject="auth-migration"),
         "status": "done", "replaces": task["id"]},
    ]
    home.log.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))


def wikilinks(md: MarkdownIt) -> None:
    """Obsidian's links and block ids as inline rules (mdit-py-plugins has none)."""

    def link(state: StateInline, silent: bool) -> bool:
        found = WIKILINK.match(state.src, state.pos)
        if state.src[state.pos] != "[" or found is None:
            return False
        if not silent:
            page, anchor, label = found.group(1), found.group(2) or "", found.group(3)
            token = state.push("html_inline", "", 0)
            href = html.escape(f"{page}.md{anchor.replace('#^', '#')}", quote=True)
            text = html.escape(label or (page + anchor))
            token.content = f'<a class="wikilink" href="{href}">{text}</a>'
        state.pos = found.end()
        return True

    def block_id(state: StateCore) -> None:
        for block in state.tokens:
            last = block.children[-1] if block.type == "inline" and block.children else None
            found = None if last is None or last.type != "text" else BLOCK_ID.search(last.content)
            if last is None or block.children is None or found is None:
                continue
            last.content = last.content[:found.start()]
            token = Token("html_inline", "", 0)
            token.content = f' <span class="block-id">^{html.escape(found.group(1))}</span>'
            block.children.append(token)

    md.inline.ruler.before("link", "wikilink", link)
    md.core.ruler.push("block_id", block_id)


def front_matter(md: MarkdownIt) -> None:
    """The front matter as a table of properties (as Obsidian shows it), not as text."""
    def render(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        data = yaml.safe_load(tokens[idx].content) or {}
        rows = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(_value(v))}"
                       "</td></tr>" for k, v in data.items())
        return f'<table class="properties">{rows}</table>\n'
    md.add_render_rule("front_matter", render)


def _value(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def renderer() -> MarkdownIt:
    md = MarkdownIt("commonmark").enable(["strikethrough", "table"])
    md.use(front_matter_plugin).use(tasklists_plugin)
    wikilinks(md)
    front_matter(md)
    return md


STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 860px; margin: 24px auto; color: #222 }
section { border: 1px solid #ddd; border-radius: 6px; padding: 4px 20px 12px; margin: 16px 0 }
.file { font: 12px monospace; color: #777; margin: 10px 0 0 }
.properties { font-size: 12px; border-collapse: collapse; margin: 8px 0; color: #555 }
.properties th { text-align: left; padding: 1px 10px 1px 0; font-weight: 600 }
a.wikilink { color: #7a3fd1; text-decoration: none }
.block-id { color: #bbb; font-size: 10px }
del { color: #999 }
ul.contains-task-list { list-style: none; padding-left: 1.2em }
h2 { font-size: 17px; margin: 14px 0 4px; border-bottom: 1px solid #eee }
"""


def page_html(md: MarkdownIt, root: Path, rel: str) -> str:
    text = (root / rel).read_text(encoding="utf-8")
    return f'<section><p class="file">{html.escape(rel)}</p>{md.render(text)}</section>'


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the folder for preview.html (and preview.png)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="zc-preview-") as tmp:
        home = Home(Path(tmp) / "home")
        home.ensure()
        story(home)
        settings = load_config(home, env={}, overrides=["search.semantic=off"])
        app = build_app(home, Path(tmp) / "workspace", settings, serving=False,
                        router=build_router(settings))
        try:
            build(app)
        finally:
            app.close()
        root = home.root / "vault"
        md = renderer()
        body = "".join(page_html(md, root, rel) for rel in
                       (f"03 Journal/{DAY2}.md", "01 Notes/Auth Migration.md"))
        page = (f'<!doctype html><html><head><meta charset="utf-8"><style>{STYLE}</style>'
                f"</head><body>{body}</body></html>")
        out_html = args.out / "preview.html"
        out_html.write_text(page, encoding="utf-8")
        print(out_html)
        for rel in (f"03 Journal/{DAY2}.md", "01 Notes/Auth Migration.md"):
            shutil.copy(root / rel, args.out / Path(rel).name)  # the Markdown, to compare
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("no chromium on the PATH: no screenshot", file=sys.stderr)
        return 0
    png = args.out / "preview.png"
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                    "--hide-scrollbars", "--window-size=1000,1700",
                    f"--screenshot={png}", out_html.resolve().as_uri()],
                   check=True, capture_output=True, timeout=120)
    print(png)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
