"""importing/sources/clawvault.py on a vault built here in ClawVault's layout: each category's
page to its note (decisions, tasks with status, commitments, handoffs with their decisions and
questions, people and projects with subjects, facts, inbox captures), dialogue transcripts to
conversations, observation lines to dated notes, the vault's own state left out; ids stable
and new for an edited page; the frontmatter subset against PyYAML; and bad input: broken or
unclosed frontmatter, non-UTF-8 pages, a page too large, a file given for a folder."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from zettelclaw.importing.items import Conversation, Item, Note, Problem
from zettelclaw.importing.sources import clawvault
from zettelclaw.log.schema import SLUG_RE


def page(root: Path, rel: str, text: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def vault(root: Path) -> Path:
    page(root, ".clawvault.json", '{"name": "memory", "version": "1.0.0"}')
    page(root, ".clawvault/graph-index.json", "{}")
    page(root, ".clawvault/checkpoints/x.md", "# not a page")
    page(root, "README.md", "# Generated readme")
    page(root, "templates/decision.md", "---\ntitle: '{{title}}'\n---\n")
    page(root, "decisions/use-postgresql-for-auth.md",
         "---\ntitle: Use PostgreSQL for auth\ndate: 2026-02-13\nmemoryType: decision\n"
         "tags: [db, \"auth\"]\nproject: \"[[Zettelclaw Core]]\"\n---\n\n"
         "# Use PostgreSQL for auth\n\nSQLite could not take the concurrent writes.\n")
    page(root, "tasks/ship-the-importer.md",
         "---\nstatus: in-progress\ncreated: '2026-02-10T10:00:00.000Z'\n"
         "updated: '2026-02-11T10:00:00.000Z'\npriority: high\n---\n# Ship the importer\n")
    page(root, "tasks/write-the-docs.md",
         "---\nstatus: done\ncreated: 2026-02-09T08:30:00+02:00\ncompleted: 2026-02-12\n---\n"
         "# Write the docs\n")
    page(root, "commitments/call-pedro.md",
         "---\ntitle: Call Pedro back on Friday\ndate: 2026-02-12\n---\n")
    page(root, "handoffs/handoff-2026-02-13-1830.md",
         "---\ntitle: handoff-2026-02-13-1830\ntype: handoff\ndate: 2026-02-13\n"
         "workingOn:\n  - the importer's readers\n  - their tests\nblocked:\n  - review\n"
         "nextSteps:\n  - run the fast tier\nsessionKey: agent:main:main\nfeeling: focused\n"
         "decisions:\n  - Stream conversations.json\nopenQuestions:\n"
         "  - 'Is ''ijson'' needed?'\n---\n\nLeft off in exports.py.\n")
    page(root, "people/pedro-project-lead.md",
         "---\ntitle: Pedro (project lead)\ndate: 2026-01-20\nrole: project lead\n"
         "importance: high\n---\n\nLikes green tea.\nReviews on Fridays.\nAsks for numbers.\n")
    page(root, "projects/zettelclaw.md",
         "---\ntitle: Zettelclaw\nstatus: active\n---\nMemory for agents.\n")
    page(root, "people/José_García.md", "Met at the conference.\n")
    page(root, "people/山田.md", "---\ntitle: 山田\n---\nA colleague.\n")
    page(root, "lessons/untitled.md", "\nAlways stream large files.\n")
    page(root, "facts/office.md", "---\ntitle: The office is in Porto\nproject: Zettelclaw\n---\n")
    page(root, "inbox/note-1707849600000.md",
         "---\ntitle: note-1707849600000\n---\nBuy a new keyboard\nsecond line\n")
    page(root, "transcripts/2026-02-13-session.md",
         "---\ntitle: Session with the agent\ndate: 2026-02-13\n---\n"
         "**User:** can you stream the export?\nIt is 2 GB.\n\n"
         "**Assistant:** Yes: one conversation at a time.\n")
    page(root, "transcripts/2026-02-14-summary.md",
         "---\ntitle: Session summary\ndate: 2026-02-14\n---\nWe talked about streaming.\n")
    page(root, "ledger/observations/2026/02/14.md",
         "## 2026-02-14\n\n- [decision|c=0.90|i=0.85] 09:00 Decided on ledger-first memory\n"
         "- [todo|c=0.70|i=0.50] remember to rotate the keys\n"
         "- [preference|c=0.80|i=0.40] Pedro prefers tea\n"
         "- \U0001f534 10:30 The build broke twice\n"
         "not an observation line\n")
    page(root, "ledger/raw/openclaw/2026/02/14.jsonl", '{"message": "raw"}\n')
    page(root, "ledger/raw/openclaw/notes.md", "# raw: left out\n")
    page(root, "ledger/reflections/2026-W07.md", "# reflection: left out\n")
    page(root, "ledger/archive/2026/01/01.md", "- [fact|c=1|i=1] archived: left out\n")
    return root


def notes(items: list[Item]) -> dict[str, Note]:
    return {item.origin: item for item in items if isinstance(item, Note)}


def problems(items: list[Item]) -> list[Problem]:
    return [item for item in items if isinstance(item, Problem)]


def test_each_category_becomes_its_note(tmp_path: Path) -> None:
    items = list(clawvault.read(vault(tmp_path)))
    assert problems(items) == []
    got = notes(items)
    decision = got["decisions/use-postgresql-for-auth.md"]
    assert (decision.kind, decision.content, decision.detail, decision.subject, decision.at) == (
        "decision", "Use PostgreSQL for auth", "SQLite could not take the concurrent writes.",
        "zettelclaw-core", datetime(2026, 2, 13, tzinfo=UTC))
    ship = got["tasks/ship-the-importer.md"]
    assert (ship.kind, ship.status, ship.content, ship.at) == (
        "task", "open", "Ship the importer", datetime(2026, 2, 10, 10, tzinfo=UTC))
    docs = got["tasks/write-the-docs.md"]
    assert (docs.status, docs.at) == ("done", datetime(2026, 2, 9, 6, 30, tzinfo=UTC))
    call = got["commitments/call-pedro.md"]
    assert (call.kind, call.status, call.content) == ("task", "open", "Call Pedro back on Friday")
    pedro = got["people/pedro-project-lead.md"]
    assert (pedro.kind, pedro.subject, pedro.content, pedro.detail) == (
        "fact", "pedro-project-lead", "Pedro (project lead): Likes green tea.",
        "Reviews on Fridays.\nAsks for numbers.")
    assert got["projects/zettelclaw.md"].subject == "zettelclaw"
    # subjects are slugs the log takes, or none
    assert got["people/José_García.md"].subject == "jose-garcia"
    assert got["people/山田.md"].subject is None
    assert all(SLUG_RE.fullmatch(n.subject) for n in got.values() if n.subject)
    assert got["facts/office.md"].subject == "zettelclaw"
    capture = got["inbox/note-1707849600000.md"]
    assert (capture.content, capture.detail, capture.at) == (
        "Buy a new keyboard", "second line", datetime.fromtimestamp(1_707_849_600, UTC))
    untitled = got["lessons/untitled.md"]
    assert (untitled.kind, untitled.content, untitled.detail) == (
        "fact", "Always stream large files.", None)
    summary = got["transcripts/2026-02-14-summary.md"]
    assert (summary.kind, summary.content, summary.detail) == (
        "fact", "Session summary: We talked about streaming.", None)


def test_a_handoff_gives_its_decisions_and_questions_too(tmp_path: Path) -> None:
    got = notes(list(clawvault.read(vault(tmp_path))))
    handoff = got["handoffs/handoff-2026-02-13-1830.md"]
    assert handoff.kind == "handoff"
    assert handoff.content == "Working on: the importer's readers; their tests. " \
                              "Next: run the fast tier."
    assert handoff.detail == "Blocked: review\nFeeling: focused\nLeft off in exports.py."
    assert handoff.at == datetime(2026, 2, 13, tzinfo=UTC)
    decision = got["handoffs/handoff-2026-02-13-1830.md, decisions[0]"]
    question = got["handoffs/handoff-2026-02-13-1830.md, openQuestions[0]"]
    assert (decision.kind, decision.content) == ("decision", "Stream conversations.json")
    assert (question.kind, question.content) == ("question", "Is 'ijson' needed?")
    assert len({handoff.source_id, decision.source_id, question.source_id}) == 3


def test_a_dialogue_transcript_is_a_conversation(tmp_path: Path) -> None:
    items = list(clawvault.read(vault(tmp_path)))
    [talk] = [item for item in items if isinstance(item, Conversation)]
    assert talk.title == "Session with the agent"
    assert talk.origin == "transcripts/2026-02-13-session.md"
    assert [(m.role, m.text) for m in talk.messages] == [
        ("user", "can you stream the export?\nIt is 2 GB."),
        ("assistant", "Yes: one conversation at a time.")]
    assert talk.started == datetime(2026, 2, 13, tzinfo=UTC)


def test_observation_lines_are_dated_notes_and_the_ledger_copies_are_left_out(
        tmp_path: Path) -> None:
    items = list(clawvault.read(vault(tmp_path)))
    observed = [item for item in items
                if isinstance(item, Note) and item.origin.startswith("ledger/")]
    assert [(n.kind, n.status, n.content, n.at, n.origin) for n in observed] == [
        ("decision", None, "Decided on ledger-first memory",
         datetime(2026, 2, 14, 9, tzinfo=UTC), "ledger/observations/2026/02/14.md, line 3"),
        ("task", "open", "remember to rotate the keys", datetime(2026, 2, 14, tzinfo=UTC),
         "ledger/observations/2026/02/14.md, line 4"),
        ("fact", None, "Pedro prefers tea", datetime(2026, 2, 14, tzinfo=UTC),
         "ledger/observations/2026/02/14.md, line 5"),
        ("fact", None, "The build broke twice", datetime(2026, 2, 14, 10, 30, tzinfo=UTC),
         "ledger/observations/2026/02/14.md, line 6"),
    ]
    origins = {item.origin for item in items}
    assert not any(origin.startswith(("templates/", ".clawvault", "README", "ledger/raw",
                                      "ledger/reflections", "ledger/archive"))
                   for origin in origins)


def test_ids_are_stable_and_an_edited_page_is_new(tmp_path: Path) -> None:
    root = vault(tmp_path)
    first = [item.source_id for item in clawvault.read(root)
             if isinstance(item, Note | Conversation)]
    assert first == [item.source_id for item in clawvault.read(root)
                     if isinstance(item, Note | Conversation)]
    assert len(set(first)) == len(first)
    assert all(sid.startswith("clawvault:") for sid in first)
    decision = root / "decisions/use-postgresql-for-auth.md"
    decision.write_text(decision.read_text() + "\nAnd it replicates.\n")
    observations = root / "ledger/observations/2026/02/14.md"
    observations.write_text(observations.read_text().replace(
        "## 2026-02-14\n\n", "## 2026-02-14\n\n- [fact|c=0.5|i=0.5] A new line on top\n"))
    second = [item.source_id for item in clawvault.read(root)
              if isinstance(item, Note | Conversation)]
    changed = set(second) - set(first)
    assert {sid.split("#")[0] for sid in changed} == {
        "clawvault:decisions/use-postgresql-for-auth.md",
        "clawvault:ledger/observations/2026/02/14.md"}
    # the edited page is one new id; the observation file's old lines keep theirs
    assert len(changed) == 2


def test_broken_frontmatter_non_utf8_and_oversized_pages_are_problems(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = vault(tmp_path)
    page(root, "decisions/unclosed.md", "---\ntitle: Never closed\n\nbody\n")
    page(root, "decisions/bad-quote.md", "---\ntitle: fine\ndate: \"2026-02-13\n---\nbody\n")
    page(root, "decisions/no-colon.md", "---\ntitle: fine\njust some words\n---\n")
    page(root, "decisions/tab.md", "---\ntags:\n\t- x\n---\n")
    page(root, "people/latin1.md", "---\ntitle: Jos\xe9\n---\nCaf\xe9\n".encode("latin-1"))
    page(root, "facts/huge.md", "x" * 2000)
    monkeypatch.setattr(clawvault, "PAGE_CAP", 1000)
    items = list(clawvault.read(root))
    assert {p.origin: p.message.split(":")[0] for p in problems(items)} == {
        "decisions/unclosed.md, line 1": "broken frontmatter",
        "decisions/bad-quote.md, line 3": "broken frontmatter",
        "decisions/no-colon.md, line 3": "broken frontmatter",
        "decisions/tab.md, line 3": "broken frontmatter",
        "people/latin1.md, line 2": "not UTF-8 (byte 14)",
        "facts/huge.md": "larger than 1,000 bytes",
    }
    # the rest is read as before
    assert "decisions/use-postgresql-for-auth.md" in notes(items)


def test_a_folder_gone_while_reading_is_a_problem_and_the_rest_is_read(
        tmp_path: Path) -> None:
    root = vault(tmp_path)
    reading = clawvault.read(root)
    first = next(reading)
    assert first.origin == "commitments/call-pedro.md"
    shutil.rmtree(root / "people")  # listed already, not yet walked into
    items = [first, *reading]
    assert [(p.origin, p.message.split(":")[0]) for p in problems(items)] == [
        ("people", "folder cannot be read")]
    assert "decisions/use-postgresql-for-auth.md" in notes(items)
    assert "projects/zettelclaw.md" in notes(items)


def test_not_a_folder_and_detection(tmp_path: Path) -> None:
    root = vault(tmp_path / "vault")
    assert clawvault.detect(root) == "clawvault"
    bare = tmp_path / "bare"
    for name in ("decisions", "people", "handoffs"):
        (bare / name).mkdir(parents=True)
    assert clawvault.detect(bare) == "clawvault"
    (tmp_path / "other" / "memory").mkdir(parents=True)
    assert clawvault.detect(tmp_path / "other") is None
    assert clawvault.detect(root / "README.md") is None
    [problem] = clawvault.read(root / "README.md")
    assert isinstance(problem, Problem)
    assert "not a folder" in problem.message


FRONTMATTERS = [
    "title: Use PostgreSQL\ndate: '2026-02-13'\n",
    "title: 'It''s quoted'\ntags: [a, \"b c\", 'd']\n",
    "title: \"escaped \\\"quote\\\" and \\u00e9\"\nempty:\nnothing: ~\nflag: true\n",
    "workingOn:\n  - one\n  - 'two: with colon'\nnextSteps:\n- three\n# a comment\nfeeling: ok\n",
    "summary: |\n  line one\n  line two\nfolded: >\n  a\n  b\n",
    "title: plain # trailing comment\nurl: http://example.com/a#b\n",
]


@pytest.mark.parametrize("text", FRONTMATTERS)
def test_the_frontmatter_subset_reads_as_yaml_does(text: str) -> None:
    fields, body, first = clawvault.parse_frontmatter(f"---\n{text}---\nbody\n")
    assert (body, first) == ("body\n", text.count("\n") + 3)
    expected = yaml.safe_load(text)
    assert {key: value.strip() if isinstance(value, str) else value
            for key, value in fields.items()} == \
        {key: value.strip() if isinstance(value, str) else value
         for key, value in expected.items()}


def test_a_nested_mapping_is_skipped_not_refused() -> None:
    fields, _, _ = clawvault.parse_frontmatter(
        "---\ntitle: t\nmeta:\n  source: x\n  count: 2\nafter: y\n---\n")
    assert fields == {"title": "t", "meta": None, "after": "y"}


def test_no_frontmatter_is_the_whole_text_as_body() -> None:
    assert clawvault.parse_frontmatter("# Title\n---\ntext\n") == ({}, "# Title\n---\ntext\n", 1)


def test_numbers_dates_and_yes_stay_the_text_written() -> None:
    fields, _, _ = clawvault.parse_frontmatter(
        "---\ncount: 007\ndate: 2026-02-13\nat: 2026-02-13T18:30:00\nok: yes\nv: 1.0\n"
        "off: false\n---\n")
    assert fields == {"count": "007", "date": "2026-02-13", "at": "2026-02-13T18:30:00",
                      "ok": "yes", "v": "1.0", "off": False}


HOSTILE = {
    # a billion laughs: nine levels of ten aliases
    "laughs": "a: &a [lol, lol]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
              "c: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n",
    # no Python object is ever built
    "python": "title: !!python/object/apply:os.system ['touch pwned']\n",
    "module": "title: !!python/name:os.system\n",
    "tag": "title: !custom x\n",
    "deep": "title: " + "[" * 10_000 + "]" * 10_000 + "\n",
    "large": "title: " + "x" * (clawvault.FRONTMATTER_CAP + 1) + "\n",
}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_frontmatter_is_refused_not_run_or_expanded(name: str, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(clawvault.FrontmatterError) as raised:
        clawvault.parse_frontmatter(f"---\n{HOSTILE[name]}---\nbody\n")
    assert raised.value.line >= 2
    assert not (tmp_path / "pwned").exists()
