"""The vault under careless and hostile hands: a page renamed or moved (Obsidian rewrites the
links to it), a line the person adds, a line too long for an entry, a stale copy of a page saved
over a purge, an entry hidden and given back (docs/09-vault.md)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import entry
from tests.direct import open_app
from tests.vault.test_vault import AUTH, DAY1, WriteLog, line_of, log_entries, pages, story, sync
from zettelclaw.app import App
from zettelclaw.home import Home
from zettelclaw.vault import blocks
from zettelclaw.vault.build import build
from zettelclaw.vault.state import load

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


def test_a_renamed_page_is_followed_its_edits_taken_and_the_old_page_not_made_again(
        app: App, write_log: WriteLog) -> None:
    e = story(write_log)
    build(app)
    root = app.home.root / "vault"
    rename_like_obsidian(root, AUTH, RENAMED)
    page = root / RENAMED
    page.write_text(page.read_text().replace("- [ ] Backfill 47", "- [x] Backfill 47"))
    (receipt,) = sync(app)["receipts"]
    assert (receipt["page"], receipt["action"], receipt["of"]) == (RENAMED, "done",
                                                                   e["task"]["id"])
    write_log(entry("fact", "Canary is green", subject="auth-migration",
                    timestamp="2026-02-22T09:00:00Z"))
    report = build(app)
    assert not (root / AUTH).exists()
    assert page.read_text().count("Canary is green") == 1
    journal = (root / "03 Journal/2026-02-22.md").read_text()
    assert "Canary is green ([[Auth Migration 2026|Auth Migration]])" in journal
    assert report.skipped_pages == []
    state = load(app.home)
    assert state is not None
    assert state.subjects["auth-migration"] == RENAMED
    assert AUTH not in state.pages
    # its items are kept under the new name only
    assert len(list((app.home.root / "vault-state" / "pages").iterdir())) == len(state.pages)


def test_a_journal_moved_to_another_folder_gets_its_days_lines_there(
        app: App, write_log: WriteLog) -> None:
    story(write_log)
    build(app)
    root = app.home.root / "vault"
    (root / "Archive").mkdir()
    (root / DAY1).rename(root / "Archive" / "Feb 20.md")
    write_log(entry("fact", "Canary is green", subject="auth-migration",
                    timestamp="2026-02-20T19:00:00Z"))
    build(app)
    assert not (root / DAY1).exists()
    assert "Canary is green" in (root / "Archive" / "Feb 20.md").read_text()
    assert "Canary is green ([[Feb 20]])" in (root / AUTH).read_text()


def test_a_page_found_by_its_block_ids_when_edited_before_it_was_moved(
        app: App, write_log: WriteLog) -> None:
    e = story(write_log)
    build(app)
    root = app.home.root / "vault"
    text = (root / AUTH).read_text().replace("Enough for 10k", "Enough for 30k")
    (root / AUTH).unlink()
    (root / "00 Inbox" / "auth.md").write_text(text)  # another stamp: found by its ids
    (receipt,) = sync(app)["receipts"]
    assert (receipt["page"], receipt["of"]) == ("00 Inbox/auth.md", e["question"]["id"])


def test_a_deleted_page_is_not_followed_into_the_trash(app: App, write_log: WriteLog) -> None:
    story(write_log)
    build(app)
    root = app.home.root / "vault"
    (root / ".trash").mkdir()
    (root / AUTH).rename(root / ".trash" / "Auth Migration.md")
    write_log(entry("fact", "Canary is green", subject="auth-migration",
                    timestamp="2026-02-22T09:00:00Z"))
    build(app)
    text = (root / AUTH).read_text()  # made again with only what is new
    assert "Canary is green" in text
    assert "Backfill" not in text


def test_a_purge_takes_the_lines_off_a_renamed_page(app: App, write_log: WriteLog) -> None:
    from zettelclaw.forget.select import Criteria
    from zettelclaw.forget.service import purge

    e = story(write_log)
    build(app)
    root = app.home.root / "vault"
    rename_like_obsidian(root, AUTH, RENAMED)
    purge(app, Criteria(ids=[e["fact"]["id"]]), dry_run=False)
    assert not any("Backoff is" in t for t in pages(root).values())
    assert not (root / AUTH).exists()


def test_the_watch_follows_a_renamed_page_at_its_next_look_and_looks_once_for_a_deleted_one(
        app: App, write_log: WriteLog) -> None:
    from zettelclaw.agents.background import vault_watcher

    story(write_log)
    build(app)
    root = app.home.root / "vault"
    watcher = vault_watcher(app, 1.0)
    watcher.look()
    rename_like_obsidian(root, AUTH, RENAMED)
    (root / "01 Notes/Sarah Chen.md").unlink()
    watcher.look()  # the rename is followed at once; the deleted page is looked for
    state = load(app.home)
    assert state is not None
    assert RENAMED in state.pages
    assert "01 Notes/Sarah Chen.md" in state.pages  # deleted: still known, not made again
    syncs = watcher.syncs
    watcher.look()
    watcher.look()
    assert watcher.syncs == syncs  # not looked for again while nothing else is lost


def test_purged_lines_saved_back_from_a_stale_copy_leave_the_page_again(
        app: App, write_log: WriteLog) -> None:
    from zettelclaw.agents.background import vault_watcher
    from zettelclaw.forget.select import Criteria
    from zettelclaw.forget.service import purge

    e = story(write_log)
    build(app)
    root = app.home.root / "vault"
    stale = (root / AUTH).read_text()  # the editor's copy, open during the purge
    purge(app, Criteria(ids=[e["fact"]["id"]]), dry_run=False)
    assert "Backoff is" not in (root / AUTH).read_text()
    before = len(log_entries(app.home))
    # the editor saves its copy, with a tick made meanwhile
    (root / AUTH).write_text(stale.replace("- [ ] Backfill 47", "- [x] Backfill 47"))
    watcher = vault_watcher(app, 1.0)
    watcher.look()
    watcher.look()  # settled: synced
    assert "Backoff is" not in (root / AUTH).read_text()
    assert "- [x] Backfill 47" in (root / AUTH).read_text()  # the rest of the save stays
    added = log_entries(app.home)[before:]
    assert [(a["replaces"], a["status"]) for a in added] == [(e["task"]["id"], "done")]
    assert not any("Backoff" in str(a) for a in log_entries(app.home))
    assert b"Backoff" not in b"".join(p.read_bytes() for p in
                                      (app.home.root / "vault-state").rglob("*") if p.is_file())
    assert sync(app)["receipts"] == []


def test_a_hidden_entry_leaves_the_pages_and_comes_back_when_given_back(
        app: App, write_log: WriteLog) -> None:
    from zettelclaw.agents.background import vault_watcher
    from zettelclaw.forget.select import Criteria
    from zettelclaw.forget.service import hide, unhide

    e = story(write_log)
    build(app)
    root = app.home.root / "vault"
    person = e["person"]["id"]
    watcher = vault_watcher(app, 1.0)
    watcher.look()
    hide(app, Criteria(ids=[person]), dry_run=False)
    watcher.look()  # the log changed: the build takes the hidden entry off its pages
    assert not any("Sarah prefers" in t for t in pages(root).values())
    state = load(app.home)
    assert state is not None
    assert all(blocks.encode(person) not in p.items for p in state.pages.values())
    assert build(app).lines_added == 0  # and does not put it back
    assert not any("Sarah prefers" in t for t in pages(root).values())
    unhide(app, [person], dry_run=False)
    watcher.look()
    assert sum(t.count("Sarah prefers async updates") for t in pages(root).values()) == 2
    assert build(app).lines_added == 0
    # hidden again: taken off again
    hide(app, Criteria(ids=[person]), dry_run=False)
    build(app)
    assert not any("Sarah prefers" in t for t in pages(root).values())


def test_a_task_the_person_adds_to_a_topic_page_becomes_an_entry_of_its_subject(
        app: App, write_log: WriteLog) -> None:
    story(write_log)
    build(app)
    root = app.home.root / "vault"
    page = root / AUTH
    text = page.read_text()
    pending = line_of(text, "- [ ] Backfill 47")
    page.write_text(text.replace(pending, pending + "\n- [ ] Write the runbook")
                    + "\n## My own\n- not an entry\nA paragraph.\n")
    before = len(log_entries(app.home))
    result = sync(app)
    (receipt,) = result["receipts"]
    assert (receipt["action"], receipt["applied"], receipt["page"]) == ("add", True, AUTH)
    made = receipt["entry"]
    assert {k: made[k] for k in ("type", "status", "content", "subject", "session")} == {
        "type": "task", "status": "open", "content": "Write the runbook",
        "subject": "auth-migration", "session": "vault"}
    assert log_entries(app.home)[before:] == [made]
    # the line is the entry's from now on: it carries its block id
    assert f"- [ ] Write the runbook ^{blocks.encode(made['id'])}" in page.read_text()
    assert "- not an entry\n" in page.read_text()
    assert sync(app)["receipts"] == []
    build(app)
    assert page.read_text().count("Write the runbook") == 1
    journals = [t for rel, t in pages(root).items() if rel.startswith("03 Journal/")]
    assert sum(t.count("Write the runbook") for t in journals) == 1  # today's journal
    # ticked later: a correction of the entry it became
    page.write_text(page.read_text().replace("- [ ] Write the runbook",
                                             "- [x] Write the runbook"))
    (receipt,) = sync(app)["receipts"]
    assert (receipt["action"], receipt["replaces"]) == ("done", made["id"])


def test_lines_added_to_a_journal_take_their_sections_type(
        app: App, write_log: WriteLog) -> None:
    story(write_log)
    build(app)
    page = app.home.root / "vault" / DAY1
    text = page.read_text()
    text = text.replace("## Todo\n", "- Decided: Ship on Friday\n* The queue is SQS\n\n## Todo\n")
    text = text.replace("## Questions\n", "## Questions\n- Who owns the pager?\n"
                        "  - an indented note\n")
    page.write_text(text)
    result = sync(app)
    got = sorted((r["entry"]["type"], r["entry"]["content"], r["entry"].get("subject"))
                 for r in result["receipts"])
    assert got == [("decision", "Ship on Friday", None), ("fact", "The queue is SQS", None),
                   ("question", "Who owns the pager?", None)]
    assert "- Decided: Ship on Friday ^zc" in page.read_text()
    assert "  - an indented note\n" in page.read_text()


def test_an_added_line_too_long_is_refused_and_not_marked(app: App, write_log: WriteLog) -> None:
    story(write_log)
    build(app)
    page = app.home.root / "vault" / AUTH
    text = page.read_text()
    pending = line_of(text, "- [ ] Backfill 47")
    page.write_text(text.replace(pending, pending + "\n- [ ] " + "z" * 20_000))
    before = len(log_entries(app.home))
    (receipt,) = sync(app)["receipts"]
    assert (receipt["action"], receipt["applied"]) == ("add", False)
    assert f"of {AUTH}" in receipt["reason"]
    assert len(log_entries(app.home)) == before
    assert "z" * 20_000 + "\n" in page.read_text()  # left as written


@pytest.mark.parametrize("crash_at", ["log", "state"])
def test_an_added_line_cut_short_by_a_crash_is_taken_once(
        app: App, write_log: WriteLog, monkeypatch: pytest.MonkeyPatch, crash_at: str) -> None:
    from zettelclaw.log.store import LogStore
    from zettelclaw.vault import sync as vault_sync

    story(write_log)
    build(app)
    page = app.home.root / "vault" / AUTH
    text = page.read_text()
    pending = line_of(text, "- [ ] Backfill 47")
    page.write_text(text.replace(pending, pending + "\n- [ ] Write the runbook"))
    before = len(log_entries(app.home))

    def crash(*_: object, **__: object) -> None:
        raise OSError("killed")

    if crash_at == "log":  # the page has the block id, the log not the entry
        monkeypatch.setattr(LogStore, "append_locked", crash)
    else:  # the log has it, the state not the item
        monkeypatch.setattr(vault_sync, "save", crash)
    with pytest.raises(OSError, match="killed"):
        sync(app)
    monkeypatch.undo()
    assert page.read_text().count("^zc") == text.count("^zc") + 1
    sync(app)
    sync(app)
    made = [x for x in log_entries(app.home)[before:] if x["content"] == "Write the runbook"]
    assert len(made) == 1
    assert f"- [ ] Write the runbook ^{blocks.encode(made[0]['id'])}" in page.read_text()
    assert not (app.home.root / "vault-state" / "adding.json").exists()


def test_a_note_holding_lines_copied_from_a_deleted_page_is_not_taken_for_it(
        app: App, write_log: WriteLog) -> None:
    story(write_log)
    build(app)
    root = app.home.root / "vault"
    text = (root / AUTH).read_text()
    (root / "00 Inbox" / "clip.md").write_text(line_of(text, "Enough for 10k") + "\n")
    (root / AUTH).unlink()
    write_log(entry("fact", "Canary is green", subject="auth-migration",
                    timestamp="2026-02-22T09:00:00Z"))
    build(app)
    assert "Canary" not in (root / "00 Inbox" / "clip.md").read_text()
    assert "Canary is green" in (root / AUTH).read_text()


def test_an_added_line_cut_short_then_purged_is_not_appended_again(
        app: App, write_log: WriteLog, monkeypatch: pytest.MonkeyPatch) -> None:
    from zettelclaw.forget.select import Criteria
    from zettelclaw.forget.service import purge
    from zettelclaw.vault import sync as vault_sync

    story(write_log)
    build(app)
    page = app.home.root / "vault" / AUTH
    text = page.read_text()
    pending = line_of(text, "- [ ] Backfill 47")
    page.write_text(text.replace(pending, pending + "\n- [ ] Rotate the pager secret"))

    def crash(*_: object, **__: object) -> None:
        raise OSError("killed")

    monkeypatch.setattr(vault_sync, "save", crash)  # appended; the state never knew the line
    with pytest.raises(OSError, match="killed"):
        sync(app)
    monkeypatch.undo()
    (made,) = [x for x in log_entries(app.home) if x["content"] == "Rotate the pager secret"]
    purge(app, Criteria(ids=[made["id"]]), dry_run=False)
    sync(app)
    assert not any("Rotate the pager" in str(x) for x in log_entries(app.home))
    assert "Rotate the pager" not in page.read_text()
    assert not (app.home.root / "vault-state" / "adding.json").exists()


def test_the_command_prints_added_and_refused_lines(
        app: App, write_log: WriteLog) -> None:
    from zettelclaw.cli import render

    story(write_log)
    build(app)
    page = app.home.root / "vault" / AUTH
    text = page.read_text()
    pending = line_of(text, "- [ ] Backfill 47")
    page.write_text(text.replace(pending, pending + "\n- [ ] Write the runbook\n- [ ] "
                                 + "z" * 20_000))
    printed = render.vault_sync(sync(app))
    assert re.search(rf"  added \S+ \({re.escape(AUTH)}\): Write the runbook\n", printed)
    assert f"not added ({AUTH}): line " in printed


def test_purged_ids_outlive_a_build_from_scratch(app: App, write_log: WriteLog) -> None:
    from zettelclaw.forget.select import Criteria
    from zettelclaw.forget.service import purge

    e = story(write_log)
    build(app)
    root = app.home.root / "vault"
    stale = (root / AUTH).read_text()
    purge(app, Criteria(ids=[e["fact"]["id"]]), dry_run=False)
    build(app, from_scratch=True)
    (root / AUTH).write_text(stale)  # the editor's copy, from before both
    sync(app)
    assert "Backoff is" not in (root / AUTH).read_text()


def test_a_new_page_where_a_renamed_one_was_gets_its_own_items(
        app: App, write_log: WriteLog) -> None:
    story(write_log)
    build(app)
    root = app.home.root / "vault"
    rename_like_obsidian(root, AUTH, RENAMED)
    # a new subject whose page takes the old name
    app.home.subjects.write_text('{"auth-migration": {"display": "Auth Migration", "type": '
                                 '"project"}, "am": {"display": "Auth Migration", "type": '
                                 '"project"}}')
    sync(app)
    (root / "01 Notes/Extra.md").unlink(missing_ok=True)
    write_log(entry("fact", "A new one", subject="am", timestamp="2026-02-22T09:00:00Z"))
    build(app)
    state = load(app.home)
    assert state is not None
    files = [p.file for p in state.pages.values()]
    assert len(files) == len(set(files))
    assert len(list((app.home.root / "vault-state" / "pages").iterdir())) == len(state.pages)
    assert "Backfill 47" in (root / RENAMED).read_text()
    assert sync(app)["receipts"] == []


@pytest.mark.slow  # a sidecar serving, about a second
async def test_under_a_running_sidecar_a_rename_is_followed_and_an_added_task_taken(
        home: Home, workspace: Path, short_dir: Path, write_log: WriteLog) -> None:
    import trio

    from tests.vault.test_vault_watch import built_and_watched, eventually
    from zettelclaw.serve import serve

    home.subjects.write_text('{"auth-migration": {"display": "Auth Migration", "type": '
                             '"project"}}')
    story(write_log)
    root, config = built_and_watched(home, workspace, short_dir)
    async with trio.open_nursery() as nursery:
        await nursery.start(serve, config)
        rename_like_obsidian(root, AUTH, RENAMED)
        page = root / RENAMED
        text = page.read_text()
        pending = line_of(text, "- [ ] Backfill 47")
        page.write_text(text.replace(pending, pending + "\n- [ ] Write the runbook"))
        await eventually(lambda: any(x.get("content") == "Write the runbook"
                                     for x in log_entries(home)))
        (task,) = [x for x in log_entries(home) if x.get("session") == "vault"]
        assert task["subject"] == "auth-migration"  # nothing else: the relinked lines no edit
        # the watch rebuilds (the log grew): today's journal gets it, the old page is not made
        await eventually(lambda: any("Write the runbook" in t for rel, t in pages(root).items()
                                     if rel.startswith("03 Journal/")))
        assert not (root / AUTH).exists()
        assert page.read_text().count("Write the runbook") == 1
        nursery.cancel_scope.cancel()
