"""index/file_chunks.py: the memory files' chunks follow the files, incrementally, and only the
files memory.get may read are indexed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zettelclaw.home import Home
from zettelclaw.index import file_chunks
from zettelclaw.index.database import Index
from zettelclaw.index.file_chunks import WorkspaceIndexer
from zettelclaw.workspace import watch as watch_module


def chunks(index: Index) -> list[tuple[int, str, int, int]]:
    with index.read() as conn:
        return [tuple(r) for r in conn.execute(
            "SELECT id, path, start_line, end_line FROM chunks ORDER BY id")]


def fts(index: Index, word: str) -> list[str]:
    with index.read() as conn:
        return [r[0] for r in conn.execute(
            "SELECT c.path FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid"
            " WHERE chunks_fts MATCH ?", (f'"{word}"',))]


def test_memory_files_are_indexed_and_follow_edits(index: Index, workspace: Path) -> None:
    indexer = WorkspaceIndexer(index, workspace)
    (workspace / "MEMORY.md").write_text("# Goals\n- learn the cello\n")
    (workspace / "memory" / "deep").mkdir()
    (workspace / "memory" / "deep" / "notes.md").write_text("oboe lessons on Fridays\n")
    assert indexer.sync() == 2
    assert fts(index, "cello") == ["MEMORY.md"]
    assert fts(index, "oboe") == ["memory/deep/notes.md"]

    assert indexer.sync() == 0, "nothing changed, nothing read"
    (workspace / "MEMORY.md").write_text("# Goals\n- learn the viola\n")
    assert indexer.sync() == 1
    assert fts(index, "cello") == []
    assert fts(index, "viola") == ["MEMORY.md"]

    (workspace / "memory" / "deep" / "notes.md").unlink()
    assert indexer.sync() == 1
    assert fts(index, "oboe") == []


def test_a_touched_file_with_the_same_content_keeps_its_chunks(
        index: Index, workspace: Path) -> None:
    indexer = WorkspaceIndexer(index, workspace)
    path = workspace / "MEMORY.md"
    path.write_text("same words\n")
    indexer.sync()
    before = chunks(index)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    assert indexer.sync() == 0
    assert chunks(index) == before


def test_only_allowed_files_are_indexed(index: Index, workspace: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("the bank pin is 1234\n")
    (workspace / "memory" / "leak.md").symlink_to(secret)
    (workspace / "memory" / "notes.txt").write_text("plain text, not markdown\n")
    (workspace / "README.md").write_text("a readme beside MEMORY.md\n")
    WorkspaceIndexer(index, workspace).sync()
    assert chunks(index) == []
    assert fts(index, "bank") == []


def test_reset_forgets_the_chunks(index: Index, workspace: Path) -> None:
    indexer = WorkspaceIndexer(index, workspace)
    (workspace / "MEMORY.md").write_text("cello\n")
    indexer.sync()
    indexer.reset()
    assert chunks(index) == []
    assert indexer.sync() == 1
    assert fts(index, "cello") == ["MEMORY.md"]


def test_a_missing_workspace_is_an_empty_one(index: Index, tmp_path: Path) -> None:
    assert WorkspaceIndexer(index, tmp_path / "nowhere").sync() == 0


def test_the_generated_briefing_block_is_not_indexed(index: Index, workspace: Path) -> None:
    (workspace / "MEMORY.md").write_text(
        "# Goals\n- learn the cello\n\n<!-- BEGIN GENERATED BRIEFING -->\n## Recent Decisions\n"
        "- 2026-02-20: Postgres for billing\n<!-- END GENERATED BRIEFING -->\n- after: oboe\n")
    WorkspaceIndexer(index, workspace).sync()
    assert fts(index, "cello") == ["MEMORY.md"]
    assert fts(index, "oboe") == ["MEMORY.md"]
    assert fts(index, "postgres") == [], "the block repeats the log: search finds it there"
    assert chunks(index)[0][2:] == (1, 8), "line numbers are the file's"


def test_the_briefing_markers_are_not_indexed_either(index: Index, workspace: Path) -> None:
    """A MEMORY.md the briefing wrote, nothing but its block: no chunk at all (the marker
    lines alone were one, which semantic search returned for unrelated questions)."""
    (workspace / "MEMORY.md").write_text(
        "<!-- BEGIN GENERATED BRIEFING -->\n## Recent Decisions\n- 2026-02-20: Postgres\n"
        "<!-- END GENERATED BRIEFING -->\n")
    WorkspaceIndexer(index, workspace).sync()
    assert fts(index, "generated") == []
    assert chunks(index) == []
    text = "a\r\n<!-- BEGIN GENERATED BRIEFING -->\r\nx\r\n<!-- END GENERATED BRIEFING -->"
    assert file_chunks.without_generated_block(text).count("\n") == text.count("\n")
    assert "GENERATED" not in file_chunks.without_generated_block(text)


def test_a_file_in_a_new_folder_is_found_and_then_followed(index: Index,
                                                           workspace: Path) -> None:
    indexer = WorkspaceIndexer(index, workspace)
    indexer.sync()
    (workspace / "memory" / "2027").mkdir()
    (workspace / "memory" / "2027" / "jan.md").write_text("skis\n")
    assert indexer.sync() == 1
    (workspace / "memory" / "2027" / "jan.md").write_text("snowboard\n")
    assert indexer.sync() == 1
    assert fts(index, "snowboard") == ["memory/2027/jan.md"]
    indexer.close()


def test_another_process_that_commits_makes_the_next_sync_look(index: Index, home: Home,
                                                               workspace: Path) -> None:
    """The kernel reports the files; it cannot report another process clearing the chunks
    (e.g. a reindex): SQLite's data_version does."""
    (workspace / "MEMORY.md").write_text("cello\n")
    indexer = WorkspaceIndexer(index, workspace)
    assert indexer.sync() == 1
    other = Index(home.index)
    try:
        WorkspaceIndexer(other, workspace).reset()
    finally:
        other.close()
    assert indexer.sync() == 1
    assert fts(index, "cello") == ["MEMORY.md"]
    assert indexer.sync() == 0
    indexer.close()


def test_a_failed_walk_is_walked_again(index: Index, workspace: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    indexer = WorkspaceIndexer(index, workspace)
    indexer.sync()
    (workspace / "MEMORY.md").write_text("cello\n")

    def failing(*args: object) -> list[tuple[str, Path]]:
        raise OSError(5, "I/O error")

    monkeypatch.setattr(file_chunks, "list_files", failing)
    with pytest.raises(OSError, match="I/O error"):
        indexer.sync()
    monkeypatch.undo()
    assert indexer.sync() == 1, "the change the failed walk drained is still looked at"
    indexer.close()


@pytest.mark.skipif(watch_module._INOTIFY is None, reason="inotify is Linux's")
def test_nothing_changed_nothing_walked(index: Index, workspace: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """be607a8: every search walked and stat'ed every memory file (365 daily files: 11-22 ms a
    search); with nothing changed, the kernel's empty queue answers instead."""
    (workspace / "MEMORY.md").write_text("cello\n")
    for day in range(1, 31):
        (workspace / "memory" / f"2026-01-{day:02}.md").write_text(f"day {day}\n")
    indexer = WorkspaceIndexer(index, workspace)
    assert indexer.sync() == 31

    def walked(*args: object) -> list[tuple[str, Path]]:
        raise AssertionError("walked the memory files with nothing changed")

    monkeypatch.setattr(file_chunks, "list_files", walked)
    assert indexer.sync() == 0
    assert indexer.sync() == 0
    indexer.close()
