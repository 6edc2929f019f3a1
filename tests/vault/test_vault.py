"""The Markdown view (docs/09-vault.md): `vault build` renders the log into an Obsidian vault,
append-only, keeping what the person changed; `vault sync` turns their edits of rendered lines
into corrections appended to the log."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from tests.conftest import entry
from tests.direct import Direct, open_app
from zettelclaw.app import App
from zettelclaw.cli import render
from zettelclaw.cli.main import main
from zettelclaw.errors import InvalidParamsError, LockTimeoutError, PathNotAllowedError
from zettelclaw.forget.service import hide_for_vault
from zettelclaw.home import Home
from zettelclaw.log.schema import ID_ALPHABET, parse_entry_json
from zettelclaw.methods.edge import from_domain
from zettelclaw.protocol.params import SearchParams
from zettelclaw.protocol.results import VaultSynced
from zettelclaw.vault import blocks
from zettelclaw.vault import pages as vault_pages
from zettelclaw.vault import sync as vault_sync
from zettelclaw.vault.build import SkippedPage, build
from zettelclaw.vault.state import load

WriteLog = Callable[..., list[dict[str, Any]]]
LINK = re.compile(r"\[\[([^\]|#]*)(?:#\^([^\]|]+))?(?:\|[^\]]*)?\]\]")
BLOCK = re.compile(r" \^(\S+)$")
AUTH = "01 Notes/Auth Migration.md"
DAY1 = "03 Journal/2026-02-20.md"


def sync(app: Any, root: Path | None = None) -> dict[str, Any]:
    """``vault sync`` as methods/vault.py runs it (hiding through forget's hide), answered as the
    method answers it."""
    return from_domain(VaultSynced, vault_sync.sync(app, root, hide=hide_for_vault)).wire()


@pytest.fixture
def app(home: Home, workspace: Path) -> Iterator[App]:
    (home.subjects).write_text('{"auth-migration": {"display": "Auth Migration", '
                               '"type": "project"}, "sarah": {"display": "Sarah Chen", '
                               '"type": "person"}}')
    made = open_app(home, workspace)
    yield made
    made.close()


def story(write_log: WriteLog) -> dict[str, dict[str, Any]]:
    """A small log: a fact later corrected, a decision replaced, an open task, a question,
    a handoff, and an entry about a person on the next day."""
    day1, day2 = "2026-02-20T09:00:00Z", "2026-02-21T10:00:00Z"
    e = {
        "fact": entry("fact", "Backoff is 1s, 5s, 15s", subject="auth-migration",
                      timestamp=day1, id="r7Wp3nKx_mZe"),
        "decision": entry("decision", "Retry in the request", subject="auth-migration",
                          timestamp=day1),
        "task": entry("task", "Backfill 47 failed jobs", subject="auth-migration",
                      timestamp=day1),
        "question": entry("question", "Enough for 10k/min bursts?", subject="auth-migration",
                          timestamp=day1),
        "handoff": entry("handoff", "Retries done, backfill not started",
                         subject="auth-migration", timestamp="2026-02-20T15:30:00Z",
                         session="abc12345xyz"),
    }
    e["fact2"] = entry("fact", "Backoff is 2s, 10s, 30s", subject="auth-migration",
                       timestamp=day2, replaces=e["fact"]["id"], id="Cx6tM-1pWn8Y")
    e["decision2"] = entry("decision", "Retry through a queue", subject="auth-migration",
                           timestamp=day2, replaces=e["decision"]["id"])
    e["person"] = entry("fact", "Sarah prefers async updates", subject="sarah", timestamp=day2)
    e["loose"] = entry("fact", "No subject here", timestamp=day2)
    write_log(*e.values())
    return e


def pages(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in root.rglob("*.md")}


def log_entries(home: Home) -> list[dict[str, Any]]:
    return [orjson.loads(raw) for raw in home.log.read_bytes().splitlines() if raw.strip()]


def line_of(text: str, needle: str) -> str:
    return next(row for row in text.splitlines() if needle in row)


def section(text: str, name: str) -> list[str]:
    rows = text.splitlines()
    start = rows.index(f"## {name}")
    out = []
    for row in rows[start + 1:]:
        if row.startswith("## "):
            break
        if row.strip():
            out.append(row)
    return out


# -- the build ------------------------------------------------------------------------------

def test_block_ids_follow_obsidians_rule_and_decode_to_the_entry_id() -> None:
    ids = ["r7Wp3nKx_mZe", "------------", "____________", "AAAAaaaa0000", ID_ALPHABET[:12],
           ID_ALPHABET[-12:]]
    for entry_id in ids:
        block = blocks.encode(entry_id)
        assert re.fullmatch(r"[a-z0-9-]+", block), block  # letters, digits, dashes; one case
        assert blocks.decode(block) == entry_id
    assert len({blocks.encode(i) for i in ids}) == len(ids)
    assert blocks.decode("zc-") is None
    assert blocks.decode("notours") is None


def test_build_lays_out_journals_topic_pages_and_the_subject_index(
        app: App, write_log: WriteLog, tmp_path: Path) -> None:
    e = story(write_log)
    report = build(app)
    root = app.home.root / "vault"
    assert report.vault == str(root)
    assert report.entries == len(e)
    found = pages(root)
    assert set(found) == {AUTH, "01 Notes/Sarah Chen.md", DAY1, "03 Journal/2026-02-21.md",
                          "Subjects.md"}
    for folder in ("00 Inbox", "04 Templates", "05 Attachments"):
        assert (root / folder).is_dir()
    journal = found[DAY1]
    assert section(journal, "Todo") == [
        f"- [ ] Backfill 47 failed jobs ([[Auth Migration]]) ^{blocks.encode(e['task']['id'])}"]
    assert "Enough for 10k/min bursts?" in section(journal, "Questions")[0]
    # the whole session id (a cut one named no session: `get session:ID` needs all of it)
    assert section(journal, "Sessions")[0].startswith("- abc12345xyz — 15:30: Retries done")
    topic = found[AUTH]
    assert [r.split(" ^")[0] for r in section(topic, "Pending")] == [
        "- [ ] Backfill 47 failed jobs ([[2026-02-20]])"]
    assert "Enough for 10k/min bursts?" in section(topic, "Open Questions")[0]
    decisions = section(topic, "Decisions")
    # the replaced decision is shown struck, linking to its replacement; the current one plain
    assert decisions[0].startswith("- 2026-02-20: ~~Retry in the request~~ → [[2026-02-21#^"
                                   + blocks.encode(e["decision2"]["id"]) + "|replaced]]")
    assert decisions[1].startswith("- 2026-02-21: Retry through a queue (replaces ~~Retry in "
                                   "the request~~)")
    assert "- [[Sarah Chen]]" in section(found["Subjects.md"], "Person")
    assert "- [[Auth Migration]]" in section(found["Subjects.md"], "Project")
    assert "No subject here" in found["03 Journal/2026-02-21.md"]


def test_every_page_has_yaml_frontmatter_every_link_resolves_every_block_is_unique(
        app: App, write_log: WriteLog) -> None:
    story(write_log)
    build(app)
    root = app.home.root / "vault"
    found = pages(root)
    names = {Path(rel).stem: rel for rel in found}
    for rel, text in found.items():
        assert text.startswith("---\n")
        head = yaml.safe_load(text.split("---\n")[1])
        assert isinstance(head, dict), rel
        assert "tags" in head, rel
        if rel.startswith("01 Notes/"):
            assert {"created", "updated", "type"} <= set(head)
        if rel.startswith("03 Journal/"):
            assert head["type"] == "journal"
            assert str(head["created"]) == Path(rel).stem
        page_blocks = [m.group(1) for row in text.splitlines() if (m := BLOCK.search(row))]
        assert len(page_blocks) == len(set(page_blocks)), rel
        for target, block in LINK.findall(text):
            target_page = names.get(target) if target else rel
            assert target_page is not None, f"{rel}: [[{target}]] names no page"
            if block:
                assert f" ^{block}\n" in found[target_page], f"{rel}: no block ^{block}"
    assert head is not None
    topic = yaml.safe_load(found[AUTH].split("---\n")[1])
    assert topic["type"] == "project"
    assert str(topic["created"]) == "2026-02-20"
    assert str(topic["updated"]) == "2026-02-21"
    person = yaml.safe_load(found["01 Notes/Sarah Chen.md"].split("---\n")[1])
    assert person["type"] == "person"
    assert person["tags"] == ["people"]


def test_a_rebuild_appends_new_lines_and_keeps_what_the_person_changed(
        app: App, write_log: WriteLog) -> None:
    e = story(write_log)
    build(app)
    root = app.home.root / "vault"
    topic_path = root / AUTH
    text = topic_path.read_text()
    question = line_of(text, "Enough for 10k")
    edited = text.replace("Backfill 47 failed jobs", "Backfill the 47 jobs (my words)")
    edited = edited.replace(question + "\n", "")  # a line the person deleted
    edited = edited.replace("## Decisions\n", "## Decisions\nMy own note.\n")
    topic_path.write_text(edited)
    write_log(entry("task", "Canary deploy", subject="auth-migration",
                    timestamp="2026-02-22T09:00:00Z"),
              entry("decision", "Canary first", subject="auth-migration",
                    timestamp="2026-02-22T09:05:00Z"))
    report = build(app)
    assert report.entries == 2
    after = topic_path.read_text()
    assert after.startswith(edited.split("## Log")[0].replace("updated: 2026-02-21",
                                                              "updated: 2026-02-22"))
    # everything the person left is there, in order; the new lines close their sections
    assert "Backfill the 47 jobs (my words)" in after
    assert "My own note." in after
    assert "Enough for 10k" not in after  # the deleted line is not put back
    pending = section(after, "Pending")
    assert pending[0].startswith("- [ ] Backfill the 47 jobs (my words)")
    assert pending[1].startswith("- [ ] Canary deploy ([[2026-02-22]])")
    decisions = section(after, "Decisions")
    assert decisions[0] == "My own note."
    assert decisions[-1].startswith("- 2026-02-22: Canary")
    without_new = [r for r in after.splitlines() if "Canary" not in r]
    assert "\n".join(without_new) == edited.replace(
        "updated: 2026-02-21", "updated: 2026-02-22").rstrip("\n")
    assert blocks.encode(e["task"]["id"]) in after  # the id survives the edit of the text
    # a rebuild with nothing new changes nothing
    assert build(app).lines_added == 0
    assert topic_path.read_text() == after


def test_a_page_the_person_wrote_is_left_alone(app: App, write_log: WriteLog) -> None:
    root = app.home.root / "vault"
    (root / "01 Notes").mkdir(parents=True)
    (root / AUTH).write_text("# Mine\n")
    story(write_log)
    report = build(app)
    assert (root / AUTH).read_text() == "# Mine\n"
    assert SkippedPage(AUTH, "a page the build did not write") in report.skipped_pages
    assert (root / DAY1).is_file()


def test_a_deleted_page_comes_back_with_only_what_is_new(app: App, write_log: WriteLog) -> None:
    story(write_log)
    build(app)
    root = app.home.root / "vault"
    (root / AUTH).unlink()
    build(app)
    assert not (root / AUTH).exists()  # nothing new: the deletion stands
    write_log(entry("fact", "Canary is green", subject="auth-migration",
                    timestamp="2026-02-22T09:00:00Z"))
    build(app)
    text = (root / AUTH).read_text()
    assert "Canary is green" in text
    assert "Backfill" not in text


def test_from_scratch_renders_again_and_refuses_a_folder_holding_the_persons_pages(
        app: App, write_log: WriteLog) -> None:
    story(write_log)
    build(app)
    root = app.home.root / "vault"
    first = pages(root)
    (root / DAY1).write_text("changed\n")
    build(app, from_scratch=True)
    assert pages(root) == first
    (root / "00 Inbox" / "clip.md").write_text("mine\n")
    with pytest.raises(InvalidParamsError, match="did not write"):
        build(app, from_scratch=True)
    assert (root / "00 Inbox" / "clip.md").read_text() == "mine\n"
    report = build(app, from_scratch=True, force=True)
    assert report.moved_aside is not None
    assert (Path(report.moved_aside) / "00 Inbox" / "clip.md").read_text() == "mine\n"
    assert pages(root) == first


def test_the_vault_is_never_written_through_a_link_nor_inside_the_workspace(
        app: App, write_log: WriteLog, tmp_path: Path) -> None:
    story(write_log)
    root = app.home.root / "vault"
    outside = tmp_path / "outside"
    outside.mkdir()
    root.mkdir()
    os.symlink(outside, root / "03 Journal")
    report = build(app)  # the journals are reported and left out; the rest is built
    assert list(outside.iterdir()) == []
    assert SkippedPage(DAY1, "not a regular file") in report.skipped_pages
    assert (root / AUTH).is_file()
    for inside in (app.workspace, app.workspace / "memory" / "vault", app.workspace.parent):
        with pytest.raises(PathNotAllowedError, match="workspace"):
            build(app, inside)
    assert not (app.workspace / "memory" / "vault").exists()
    build(app, app.workspace.parent / "zettelclaw-vault")  # beside it: not searched


# -- edits back into the log ----------------------------------------------------------------

def test_sync_turns_a_ticked_task_and_an_edited_line_into_corrections(
        app: App, write_log: WriteLog) -> None:
    e = story(write_log)
    build(app)
    root = app.home.root / "vault"
    topic = (root / AUTH).read_text()
    topic = topic.replace("- [ ] Backfill 47 failed jobs", "- [x] Backfill 47 failed jobs")
    topic = topic.replace("Enough for 10k/min bursts?", "Enough for 20k/min bursts?")
    (root / AUTH).write_text(topic)
    before = len(log_entries(app.home))
    result = sync(app)
    added = log_entries(app.home)[before:]
    assert len(added) == 2
    assert result["corrections"] == 2
    for raw in added:
        parse_entry_json(orjson.dumps(raw))  # a valid entry
    done = next(a for a in added if a["type"] == "task")
    assert done == {**done, "status": "done", "content": "Backfill 47 failed jobs",
                    "replaces": e["task"]["id"], "session": "vault",
                    "subject": "auth-migration"}
    question = next(a for a in added if a["type"] == "question")
    assert question["content"] == "Enough for 20k/min bursts?"
    assert question["replaces"] == e["question"]["id"]
    assert {r["action"] for r in result["receipts"]} == {"done", "correct"}
    assert all(r["applied"] and r["entry"]["id"] in {a["id"] for a in added}
               for r in result["receipts"])
    # a second sync finds nothing new; the log is only appended to
    assert sync(app)["receipts"] == []
    assert len(log_entries(app.home)) == before + 2
    # the next build does not repeat the person's line on their page; other pages get it
    build(app)
    after = (root / AUTH).read_text()
    assert after.count("20k/min") == 1
    assert after.count("Backfill 47") == 1
    today = pages(root)
    assert any("Enough for 20k/min bursts? (replaces ~~Enough for 10k/min bursts?~~)" in t
               for rel, t in today.items() if rel.startswith("03 Journal/"))


def test_an_edit_of_a_replaced_entry_corrects_its_current_version(
        app: App, write_log: WriteLog) -> None:
    e = story(write_log)
    build(app)
    root = app.home.root / "vault"
    journal = (root / DAY1).read_text()
    # the struck fact of day 1 is edited: the correction replaces the current fact (fact2)
    row = line_of(journal, "Backoff is 1s")
    journal = journal.replace(row, row.replace("~~Backoff is 1s, 5s, 15s~~",
                                               "Backoff is 3s, 10s, 30s"))
    (root / DAY1).write_text(journal)
    result = sync(app)
    (made,) = [r["entry"] for r in result["receipts"]]
    assert made["replaces"] == e["fact2"]["id"]
    assert made["content"] == "Backoff is 3s, 10s, 30s"


def test_a_struck_line_hides_the_entry_and_forget_undo_gives_it_back(
        app: App, write_log: WriteLog, workspace: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    e = story(write_log)
    build(app)
    root = app.home.root / "vault"
    direct = Direct(app)

    def found(query: str) -> list[str]:
        app.freshness.sync()
        answer = direct.search(SearchParams.model_validate({"query": query}))
        return [r["id"] for r in answer["results"] if r.get("id")]

    question = e["question"]["id"]
    assert question in found("bursts")
    text = (root / AUTH).read_text()
    (root / AUTH).write_text(text.replace("Enough for 10k/min bursts?",
                                          "~~Enough for 10k/min bursts?~~"))
    before = len(log_entries(app.home))
    result = sync(app)
    (receipt,) = result["receipts"]
    assert (receipt["action"], receipt["applied"], receipt["hidden"]) == (
        "hide", True, [question])
    assert result["corrections"] == 1
    assert f"hidden {question} ({AUTH})" in render.vault_sync(result)
    records = log_entries(app.home)
    assert len(records) == before + 1  # one hide record, through the hide mechanism
    assert records[-1]["forget"] == [question]
    assert records[-1]["by"] == "vault"
    assert question not in found("bursts")
    # settled: not reported again; the next build takes the hidden entry's lines off the pages
    assert sync(app)["receipts"] == []
    build(app)
    assert not any("10k/min" in t for t in pages(root).values())
    # `zettelclaw forget --undo` brings it back, to the search and to the pages
    where = ["--home", str(app.home.root), "--workspace", str(workspace), "--no-sidecar"]
    assert main(["forget", "--undo", question, *where]) == 0
    capsys.readouterr()
    assert question in found("bursts")
    build(app)
    assert (root / AUTH).read_text().count("Enough for 10k/min bursts?") == 1


def test_the_same_entry_edited_on_two_pages_is_corrected_once(
        app: App, write_log: WriteLog) -> None:
    story(write_log)
    build(app)
    root = app.home.root / "vault"
    for rel in (AUTH, DAY1):
        text = (root / rel).read_text()
        (root / rel).write_text(text.replace("Backfill 47 failed jobs", f"Backfill ({rel})"))
    result = sync(app)
    applied = [r for r in result["receipts"] if r["applied"]]
    assert len(applied) == 1
    assert [r["action"] for r in result["receipts"] if not r["applied"]] == ["conflict"]
    assert sync(app)["receipts"] == []  # the conflict is reported once, not applied later


def test_sync_reads_only_the_pages_changed_since_they_were_written_or_read(
        app: App, write_log: WriteLog, monkeypatch: pytest.MonkeyPatch) -> None:
    from zettelclaw.vault import pages as vault_pages

    story(write_log)
    build(app)
    read: list[str] = []
    real = vault_pages.read_page

    def counted(root: Path, relative: Any) -> str | None:
        read.append(str(relative))
        return real(root, relative)

    monkeypatch.setattr(vault_pages, "read_page", counted)
    assert sync(app)["receipts"] == []
    assert read == []
    page = app.home.root / "vault" / AUTH
    page.write_text(page.read_text() + "My note.\n")
    assert sync(app)["receipts"] == []
    assert read == [AUTH]
    assert sync(app)["receipts"] == []
    assert read == [AUTH]  # read once: its stamp was kept


def test_state_is_rebuildable_and_lives_beside_the_index(app: App, write_log: WriteLog) -> None:
    story(write_log)
    build(app)
    state = load(app.home)
    assert state is not None
    assert state.root == str(app.home.root / "vault")
    assert (app.home.root / "vault-state" / "state.json").is_file()


# -- the command ----------------------------------------------------------------------------

def test_the_command_builds_and_syncs_with_json(home: Home, workspace: Path,
                                                write_log: WriteLog,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    home.subjects.write_text("{}")
    task = write_log(entry("task", "Write the README", subject="docs"))[0]
    where = ["--home", str(home.root), "--workspace", str(workspace), "--no-sidecar"]
    assert main(["vault", "build", "--json", *where]) == 0
    built = orjson.loads(capsys.readouterr().out)
    assert built["entries"] == 1
    assert built["vault"] == str(home.root / "vault")
    page = home.root / "vault" / "01 Notes" / "Docs.md"
    page.write_text(page.read_text().replace("- [ ] Write", "- [x] Write"))
    assert main(["vault", "sync", "--json", *where]) == 0
    (receipt,) = orjson.loads(capsys.readouterr().out)["receipts"]
    assert receipt["action"] == "done"
    assert receipt["replaces"] == task["id"]
    assert main(["vault", "sync", *where]) == 0
    assert "no edits" in capsys.readouterr().out
    assert main(["vault", "build", "--force", *where]) != 0


def test_entries_after_reads_in_batches_in_log_order(app: App, write_log: WriteLog) -> None:
    from zettelclaw.index import vault_reads

    e = story(write_log)
    app.freshness.sync()
    with app.index.read() as conn:
        rows = list(vault_reads.entries_after(conn, 2, batch=2))
        assert [r["id"] for r in rows] == [v["id"] for v in e.values()][2:]
        assert vault_reads.last_line(conn) == len(e)


def test_a_removed_heading_comes_back_at_the_end_and_a_changed_updated_line_is_kept(
        app: App, write_log: WriteLog) -> None:
    story(write_log)
    build(app)
    page = app.home.root / "vault" / AUTH
    text = page.read_text().replace("## Pending\n", "").replace("updated: 2026-02-21",
                                                                "updated: my own date")
    page.write_text(text)
    state = app.home.root / "vault-state" / "state.json"
    before = state.stat().st_mtime_ns
    build(app)  # nothing new: neither the page nor the state is written
    assert page.read_text() == text
    assert state.stat().st_mtime_ns == before
    write_log(entry("task", "Canary deploy", subject="auth-migration",
                    timestamp="2026-02-22T09:00:00Z"))
    build(app)
    after = page.read_text()
    assert after.startswith(text.rstrip("\n"))
    assert after.endswith("\n## Pending\n- [ ] Canary deploy ([[2026-02-22]]) ^"
                          + after.rsplit("^", 1)[1])
    assert "updated: my own date" in after


def test_a_rebuild_reads_the_state_of_the_pages_it_touches_only(
        app: App, write_log: WriteLog) -> None:
    story(write_log)
    build(app)
    for kept in (app.home.root / "vault-state" / "pages").iterdir():
        if "Sarah prefers" in kept.read_text():
            kept.write_text("not read")  # would fail the build if it were read
    write_log(entry("fact", "Canary is green", subject="auth-migration",
                    timestamp="2026-02-20T19:00:00Z"))
    assert build(app).lines_added == 2  # its journal and its topic page


def test_an_edit_that_also_drops_the_link_keeps_only_the_text(
        app: App, write_log: WriteLog) -> None:
    e = story(write_log)
    build(app)
    page = app.home.root / "vault" / AUTH
    row = line_of(page.read_text(), "Enough for 10k")
    block = row.rsplit(" ", 1)[1]
    page.write_text(page.read_text().replace(row, f"- Enough for 50k/min bursts? {block}"))
    (receipt,) = sync(app)["receipts"]
    assert receipt["entry"]["content"] == "Enough for 50k/min bursts?"
    assert receipt["replaces"] == e["question"]["id"]
    decision = line_of(page.read_text(), "- 2026-02-21: Retry through a queue")
    block = decision.rsplit(" ", 1)[1]
    page.write_text(page.read_text().replace(
        decision, f"- 2026-02-21: Retry through a bigger queue {block}"))
    (receipt,) = sync(app)["receipts"]
    assert receipt["entry"]["content"] == "Retry through a bigger queue"  # no date in it
    assert receipt["replaces"] == e["decision2"]["id"]


def test_two_subjects_whose_names_differ_in_case_only_get_two_pages(
        app: App, write_log: WriteLog) -> None:
    app.home.subjects.write_text('{"api": {"display": "API", "type": "system"}, '
                                 '"api-2": {"display": "api", "type": "system"}}')
    write_log(entry("fact", "one", subject="api"), entry("fact", "two", subject="api-2"))
    build(app)
    notes = sorted(p.name for p in (app.home.root / "vault" / "01 Notes").iterdir())
    assert notes == ["API.md", "api (api-2).md"]


def test_a_build_cut_short_before_its_state_was_saved_adds_no_line_twice(
        app: App, write_log: WriteLog, monkeypatch: pytest.MonkeyPatch) -> None:
    from zettelclaw.vault import build as build_module

    story(write_log)
    build(app)
    write_log(entry("fact", "Canary is green", subject="auth-migration",
                    timestamp="2026-02-20T19:00:00Z"))

    def crash(*_: Any, **__: Any) -> None:
        raise OSError("killed")

    monkeypatch.setattr(build_module, "save", crash)
    with pytest.raises(OSError, match="killed"):
        build(app)
    monkeypatch.undo()
    assert "Canary is green" in (app.home.root / "vault" / AUTH).read_text()
    build(app)
    for rel in (AUTH, DAY1):
        assert (app.home.root / "vault" / rel).read_text().count("Canary is green") == 1
    assert sync(app)["receipts"] == []


def test_after_the_log_is_rewritten_new_entries_come_and_nothing_comes_twice(
        app: App, write_log: WriteLog) -> None:
    e = story(write_log)
    build(app)
    page = app.home.root / "vault" / AUTH
    row = line_of(page.read_text(), "Enough for 10k")
    page.write_text(page.read_text().replace(row + "\n", ""))  # deleted by the person
    # the log rewritten without one line (as a purge does), then one more entry: the new
    # entry's line number is one the vault has already shown
    kept = [raw for raw in app.home.log.read_bytes().splitlines(keepends=True)
            if e["loose"]["id"].encode() not in raw]
    app.home.log.write_bytes(b"".join(kept))
    write_log(entry("fact", "Canary is green", subject="auth-migration",
                    timestamp="2026-02-20T19:00:00Z"))
    report = build(app)
    assert report.lines_added == 2
    text = page.read_text()
    assert text.count("Canary is green") == 1
    assert "Enough for 10k" not in text  # still deleted
    assert all(t.count(" ^") == len(set(re.findall(r" \^(\S+)", t)))
               for t in pages(app.home.root / "vault").values())


def test_a_hidden_entry_is_not_rendered_and_comes_when_given_back(
        app: App, write_log: WriteLog) -> None:
    from zettelclaw.forget.select import Criteria
    from zettelclaw.forget.service import hide, unhide

    e = story(write_log)
    person = e["person"]["id"]
    hide(app, Criteria(ids=[person]), dry_run=False)
    build(app)
    root = app.home.root / "vault"
    assert not any("Sarah prefers" in t for t in pages(root).values())
    state = load(app.home)
    assert state is not None
    assert all(blocks.encode(person) not in p.items for p in state.pages.values())
    # after the index started over (a reindex), still not rendered
    app.freshness.rebuild()
    build(app)
    assert not any("Sarah prefers" in t for t in pages(root).values())
    # given back: the next build renders it
    unhide(app, [person], dry_run=False)
    build(app)
    assert sum(t.count("Sarah prefers async updates") for t in pages(root).values()) == 2


def test_a_purge_takes_the_entries_lines_off_the_pages_and_keeps_unsynced_edits(
        app: App, write_log: WriteLog) -> None:
    from zettelclaw.forget.select import Criteria
    from zettelclaw.forget.service import purge

    e = story(write_log)
    build(app)
    root = app.home.root / "vault"
    text = (root / AUTH).read_text()
    # not synced yet: a ticked task, and the person's own line mentioning the fact
    text = text.replace("- [ ] Backfill 47", "- [x] Backfill 47")
    (root / AUTH).write_text(text + "My note: see the backoff\n")  # a paragraph: not an entry
    answer = purge(app, Criteria(ids=[e["fact"]["id"]]), dry_run=False)
    assert answer.changed == 2  # the fact and its correction
    assert answer.removed is not None  # vault: two journals, the topic page
    assert (answer.removed.vault_pages, answer.removed.vault_lines) == (3, 4)
    after = pages(root)
    assert not any("Backoff is" in t for t in after.values())
    assert "My note: see the backoff" in after[AUTH]
    state = load(app.home)
    assert state is not None
    gone = {blocks.encode(e["fact"]["id"]), blocks.encode(e["fact2"]["id"])}
    assert all(not gone & p.items.keys() for p in state.pages.values())
    # the tick, made before the purge, is still read by the next sync
    (receipt,) = sync(app)["receipts"]
    assert (receipt["action"], receipt["of"]) == ("done", e["task"]["id"])


def saved_after_read(monkeypatch: pytest.MonkeyPatch, page: Path, edit: Callable[[str], str],
                     times: int = 1) -> list[str]:
    """A person's save of ``page`` landing just after the vault's writer read it (``times``
    reads in a row): the edit is written over what was read. Returns what each save wrote."""
    saved: list[str] = []
    real = vault_pages.read_page

    def read_then_save(root: Path, relative: Any) -> str | None:
        text = real(root, relative)
        if text is not None and root / relative == page and len(saved) < times:
            saved.append(edit(text))
            page.write_text(saved[-1])
        return text

    monkeypatch.setattr(vault_pages, "read_page", read_then_save)
    return saved


def test_a_page_saved_while_the_build_writes_it_keeps_the_save_and_gets_its_lines_next_time(
        app: App, write_log: WriteLog, monkeypatch: pytest.MonkeyPatch) -> None:
    story(write_log)
    build(app)
    root = app.home.root / "vault"
    write_log(entry("task", "Canary deploy", subject="auth-migration",
                    timestamp="2026-02-22T09:00:00Z"))
    saved = saved_after_read(monkeypatch, root / AUTH, lambda t: t + "- my own line\n")
    report = build(app)
    assert saved  # the save landed between the build's read and its write
    assert (root / AUTH).read_text() == saved[0]  # not overwritten
    assert [s.page for s in report.skipped_pages] == [AUTH]
    assert "next build" in report.skipped_pages[0].reason
    journal = (root / "03 Journal/2026-02-22.md").read_text()
    assert journal.count("Canary deploy") == 1  # the other pages were written
    # the next build (the watch runs one after the save it sees) adds the line to the page,
    # keeps the person's, and does not add the journal's line twice
    monkeypatch.undo()
    again = build(app)
    assert again.skipped_pages == []
    after = (root / AUTH).read_text()
    assert "- my own line" in after
    assert after.count("Canary deploy") == 1
    assert (root / "03 Journal/2026-02-22.md").read_text() == journal
    assert build(app).lines_added == 0


def purging_under_saves(app: App, write_log: WriteLog, monkeypatch: pytest.MonkeyPatch,
                        saves: int, line: str) -> tuple[Path, Callable[[], Any]]:
    """The story built, a person saving the topic page (adding ``line``) after each of the
    first ``saves`` reads of it; the page and a purge of the story's fact, to run."""
    from zettelclaw.forget.select import Criteria
    from zettelclaw.forget.service import purge

    e = story(write_log)
    build(app)
    page = app.home.root / "vault" / AUTH
    saved_after_read(monkeypatch, page, lambda t: t + line, times=saves)
    return page, lambda: purge(app, Criteria(ids=[e["fact"]["id"]]), dry_run=False)


def test_a_page_saved_while_a_purge_takes_lines_off_it_loses_the_lines_and_keeps_the_save(
        app: App, write_log: WriteLog, monkeypatch: pytest.MonkeyPatch) -> None:
    page, run_purge = purging_under_saves(app, write_log, monkeypatch, 2, "- my own line\n")
    run_purge()
    after = page.read_text()
    assert "Backoff is" not in after
    assert "- my own line\n- my own line\n" in after  # both saves, read again each time


def test_a_purge_gives_up_on_a_page_that_never_stops_changing(
        app: App, write_log: WriteLog, monkeypatch: pytest.MonkeyPatch) -> None:
    from zettelclaw.forget.purge import intent_path

    page, run_purge = purging_under_saves(app, write_log, monkeypatch, 100, "- again\n")
    with pytest.raises(LockTimeoutError, match="changed 5 times"):
        run_purge()
    assert intent_path(app.home).exists()  # the purge runs again (resume); nothing lost
    assert page.read_text().count("- again") == 5


def test_a_task_done_with_the_same_text_is_not_shown_struck_nor_replacing_itself(
        app: App, write_log: WriteLog) -> None:
    task = entry("task", "Backfill 47 failed jobs", subject="auth-migration",
                 timestamp="2026-02-20T09:00:00Z")
    done = {**entry("task", "Backfill 47 failed jobs", subject="auth-migration",
                    timestamp="2026-02-21T09:00:00Z"), "status": "done", "replaces": task["id"]}
    write_log(task, done)
    build(app)
    root = app.home.root / "vault"
    topic = (root / AUTH).read_text()
    old = line_of(topic, f"^{blocks.encode(task['id'])}")
    assert "~~" not in old
    assert f"[[2026-02-21#^{blocks.encode(done['id'])}|done]]" in old
    new = line_of((root / "03 Journal/2026-02-21.md").read_text(), "Backfill")
    assert new.startswith("- [x] Backfill 47 failed jobs (was open) ([[Auth Migration]])")
    assert "replaces" not in new
    # ticking the old line asks for nothing the log does not already say
    journal = root / DAY1
    journal.write_text(journal.read_text().replace("- [ ] Backfill", "- [x] Backfill"))
    assert sync(app)["receipts"] == []
