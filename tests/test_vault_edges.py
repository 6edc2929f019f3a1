"""The vault under careless and hostile hands: a page renamed or moved (Obsidian rewrites the
links to it), a line the person adds, a line too long for an entry, a stale copy of a page saved
over a purge, an entry hidden and given back (docs/09-vault.md)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.direct import open_app
from tests.test_vault import AUTH, DAY1, WriteLog, line_of, log_entries, story, sync
from zettelclaw.app import App
from zettelclaw.home import Home
from zettelclaw.vault.build import build

RENAMED = "01 Notes/Auth Migration 2026.md"


@pytest.fixture
def app(home: Home, workspace: Path) -> Iterator[App]:
    home.subjects.write_text('{"auth-migration": {"display": "Auth Migration", "type": '
                             '"project"}, "sarah": {"display": "Sarah Chen", "type": "person"}}')
    made = open_app(home, workspace)
    yield made
    made.close()


def rename_like_obsidian(root: Path, old: str, new: str) -> None:
    """What Obsidian does when a page is renamed: the file moved, then every link to it, in
    every page, rewritten to the new name."""
    old_name, new_name = Path(old).stem, Path(new).stem
    (root / old).rename(root / new)
    for page in root.rglob("*.md"):
        text = page.read_text()
        changed = text.replace(f"[[{old_name}]]", f"[[{new_name}]]").replace(
            f"[[{old_name}|", f"[[{new_name}|").replace(f"[[{old_name}#", f"[[{new_name}#")
        if changed != text:
            page.write_text(changed)


def test_a_link_rewritten_by_a_rename_is_not_an_edit(app: App, write_log: WriteLog) -> None:
    story(write_log)
    build(app)
    root = app.home.root / "vault"
    before = len(log_entries(app.home))
    rename_like_obsidian(root, AUTH, RENAMED)
    assert "([[Auth Migration 2026]])" in (root / DAY1).read_text()
    assert sync(app)["receipts"] == []
    assert len(log_entries(app.home)) == before
    # an edit of a line whose link was rewritten takes the text only, no link markup
    journal = (root / DAY1).read_text()
    (root / DAY1).write_text(journal.replace("Backfill 47 failed jobs", "Backfill 48 jobs"))
    (receipt,) = sync(app)["receipts"]
    assert receipt["entry"]["content"] == "Backfill 48 jobs"


def test_a_line_longer_than_an_entry_may_be_is_refused_naming_page_and_line(
        app: App, write_log: WriteLog) -> None:
    story(write_log)
    build(app)
    root = app.home.root / "vault"
    text = (root / AUTH).read_text()
    row = line_of(text, "Enough for 10k")
    number = text.splitlines().index(row) + 1
    (root / AUTH).write_text(text.replace("Enough for 10k/min bursts?", "x" * 20_000))
    before = len(log_entries(app.home))
    (receipt,) = sync(app)["receipts"]
    assert not receipt["applied"]
    assert f"line {number} of {AUTH}" in receipt["reason"]
    assert "16,384" in receipt["reason"]
    assert len(receipt["line"]) < 2000
    assert len(log_entries(app.home)) == before
    # at the limit it is taken
    (root / AUTH).write_text(text.replace("Enough for 10k/min bursts?", "y" * 16_384))
    (receipt,) = sync(app)["receipts"]
    assert receipt["applied"]
    assert len(receipt["entry"]["content"]) == 16_384
