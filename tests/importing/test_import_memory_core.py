"""memory-core's files read into items: dated bullet lines as notes without a model, prose as a
conversation for extraction, Zettelclaw's own briefing block left out."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from zettelclaw.importing.items import Conversation, Note, Problem
from zettelclaw.importing.sources import memory_core

BLOCK = ("<!-- BEGIN GENERATED BRIEFING -->\n## Active\n- billing-service: 3 open tasks\n"
         "<!-- END GENERATED BRIEFING -->\n")


def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text(
        "# About me\n\n- I prefer tea to coffee\n- [ ] renew the passport\n\n" + BLOCK
        + "\nI work at Acme on the billing team.\nMy manager is Ana.\n")
    (ws / "memory" / "2026-03-01.md").write_text(
        "# Sunday\n\n- Decision: Postgres for billing\n- [x] paid the invoice\n"
        "- Is the staging API stable?\n* met Ana for lunch\n1. ordered a desk\n")
    return ws


def test_a_daily_notes_bullets_are_notes_of_that_day(tmp_path: Path) -> None:
    items = list(memory_core.read(workspace(tmp_path) / "memory" / "2026-03-01.md"))
    notes = [i for i in items if isinstance(i, Note)]
    assert [(n.kind, n.content, n.status) for n in notes] == [
        ("decision", "Postgres for billing", None), ("task", "paid the invoice", "done"),
        ("question", "Is the staging API stable?", None), ("fact", "met Ana for lunch", None),
        ("fact", "ordered a desk", None)]
    assert {n.at for n in notes} == {datetime(2026, 3, 1, 12, tzinfo=UTC)}
    assert notes[0].origin == "2026-03-01.md, line 3"
    assert not [i for i in items if isinstance(i, Conversation)]  # a heading alone is no prose


def test_memory_md_without_the_generated_block_and_its_prose_as_a_conversation(
        tmp_path: Path) -> None:
    items = list(memory_core.read(workspace(tmp_path)))
    contents = [i.content for i in items if isinstance(i, Note)]
    assert "billing-service: 3 open tasks" not in contents  # the block is Zettelclaw's own
    assert contents[:2] == ["I prefer tea to coffee", "renew the passport"]
    prose = [i for i in items if isinstance(i, Conversation)]
    assert len(prose) == 1
    assert prose[0].messages[0].role == "user"
    assert prose[0].messages[0].text == "I work at Acme on the billing team.\nMy manager is Ana."
    assert "MEMORY.md, lines" in prose[0].origin


def test_source_ids_follow_the_text_not_the_line(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    before = {i.source_id for i in memory_core.read(ws) if isinstance(i, Note)}
    daily = ws / "memory" / "2026-03-01.md"
    daily.write_text("- a new first line\n" + daily.read_text())
    after = {i.source_id for i in memory_core.read(ws) if isinstance(i, Note)}
    assert before < after
    assert len(after - before) == 1


def test_the_same_line_twice_is_two_notes(tmp_path: Path) -> None:
    path = tmp_path / "2026-01-02.md"
    path.write_text("- water the plants\n- water the plants\n")
    notes = list(memory_core.read(path))
    assert len({n.source_id for n in notes if isinstance(n, Note)}) == 2


def test_bad_files_are_problems_naming_them_and_the_rest_is_read(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    (ws / "memory" / "2026-03-02.md").write_bytes(b"- ok\n\xff\xfe broken\n")
    (ws / "memory" / "2026-02-30.md").write_text("- a day that does not exist\n")
    (ws / "MEMORY.md").write_text("<!-- END GENERATED BRIEFING -->\n- x\n")
    items = list(memory_core.read(ws))
    problems = [i for i in items if isinstance(i, Problem)]
    assert any(p.origin == "MEMORY.md" and "END marker" in p.message for p in problems)
    assert any(p.origin.startswith("memory/2026-03-02.md, byte") for p in problems)
    assert any(p.origin == "memory/2026-02-30.md" for p in problems)
    assert any(isinstance(i, Note) and i.content == "a day that does not exist" for i in items)
    assert any(isinstance(i, Note) and i.content == "Postgres for billing" for i in items)


def test_a_huge_file_is_refused_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                        ) -> None:
    path = tmp_path / "2026-01-03.md"
    path.write_text("- x\n" * 10)
    monkeypatch.setattr(memory_core, "MAX_FILE", 8)
    (problem,) = memory_core.read(path)
    assert isinstance(problem, Problem)
    assert "too large" in problem.message
    assert problem.origin == "2026-01-03.md"


def test_a_missing_path_is_a_problem(tmp_path: Path) -> None:
    (problem,) = memory_core.read(tmp_path / "nowhere")
    assert isinstance(problem, Problem)
    assert "no such" in problem.message


def test_a_fenced_code_block_is_neither_notes_nor_prose_and_is_named(tmp_path: Path) -> None:
    """At 00f0efb a bullet inside a ``` fence became an entry and the fence lines were sent
    for extraction as a conversation."""
    daily = tmp_path / "2026-03-02.md"
    daily.write_text("- the deploy script lives in ops/\n\n```sh\n- rm -rf build\nmake all\n"
                     "```\nThe deploy went fine.\n~~~~\n* not a note\n~~~\n")
    items = list(memory_core.read(daily))
    assert [n.content for n in items if isinstance(n, Note)] == ["the deploy script lives in ops/"]
    [prose] = [c for c in items if isinstance(c, Conversation)]
    assert prose.messages[0].text == "The deploy went fine."
    assert [(p.origin, p.message) for p in items if isinstance(p, Problem)] == [
        ("2026-03-02.md, lines 3-6", "a fenced code block: not a note nor prose to extract; "
                                     "left out"),
        ("2026-03-02.md, lines 8-10", "a fenced code block: not a note nor prose to extract; "
                                      "left out")]
