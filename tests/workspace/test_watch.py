"""workspace/watch.py: the kernel says whether the memory files may have changed.

Covers: nothing changed after a walk, then an edit, a new file, a removal, a rename, a new
folder (watched by the walk that finds it), and a new memory/ all say "changed", once; the
root's other files and memory/'s non-Markdown files do not; a symlinked memory file, a closed
watch and a system without inotify make every look say "changed".
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from zettelclaw.workspace import watch as watch_module
from zettelclaw.workspace.memory_files import is_memory_change, list_files
from zettelclaw.workspace.watch import Watch

pytestmark = pytest.mark.skipif(watch_module._INOTIFY is None, reason="inotify is Linux's")


@pytest.fixture
def watch(workspace: Path) -> Iterator[Watch]:
    root = os.path.realpath(workspace)
    made = Watch(lambda directory, name, is_dir: is_memory_change(directory, name, is_dir,
                                                                  root))
    yield made
    made.close()


def walk(watch: Watch, workspace: Path) -> list[str]:
    """What a sync does when told "changed": drain, start afresh, walk (watching)."""
    watch.changed()
    watch.reset()
    return sorted(relative for relative, _ in list_files(workspace, watch))


def test_an_edit_says_changed_once(watch: Watch, workspace: Path) -> None:
    (workspace / "MEMORY.md").write_text("cello\n")
    (workspace / "memory" / "a.md").write_text("oboe\n")
    assert walk(watch, workspace) == ["MEMORY.md", "memory/a.md"]
    assert not watch.changed()
    (workspace / "memory" / "a.md").write_text("viola\n")
    assert watch.changed()
    assert not watch.changed(), "the queue was drained"
    (workspace / "MEMORY.md").write_text("harp\n")
    assert watch.changed()


@pytest.mark.parametrize("change", ["create", "remove", "rename", "touch"])
def test_files_coming_and_going_say_changed(watch: Watch, workspace: Path, change: str) -> None:
    note = workspace / "memory" / "a.md"
    note.write_text("oboe\n")
    walk(watch, workspace)
    if change == "create":
        (workspace / "memory" / "b.md").write_text("flute\n")
    elif change == "remove":
        note.unlink()
    elif change == "rename":
        note.rename(workspace / "memory" / "c.md")
    else:
        os.utime(note, ns=(1, 1))
    assert watch.changed()


def test_a_new_folder_is_watched_by_the_walk_that_finds_it(watch: Watch,
                                                           workspace: Path) -> None:
    walk(watch, workspace)
    (workspace / "memory" / "2027").mkdir()
    assert watch.changed()
    (workspace / "memory" / "2027" / "jan.md").write_text("skis\n")
    assert walk(watch, workspace) == ["memory/2027/jan.md"]
    assert not watch.changed()
    (workspace / "memory" / "2027" / "jan.md").write_text("snowboard\n")
    assert watch.changed(), "an edit in the new folder"


def test_a_memory_folder_made_later_is_seen(watch: Watch, workspace: Path) -> None:
    (workspace / "memory").rmdir()
    walk(watch, workspace)
    (workspace / "memory").mkdir()
    assert watch.changed()
    assert walk(watch, workspace) == []
    (workspace / "memory" / "a.md").write_text("oboe\n")
    assert watch.changed()


def test_other_files_do_not_say_changed(watch: Watch, workspace: Path) -> None:
    walk(watch, workspace)
    (workspace / "AGENTS.md").write_text("the agent's own file, not memory\n")
    (workspace / "src").mkdir()
    (workspace / "memory" / "photo.jpg").write_bytes(b"\xff\xd8")
    assert not watch.changed()


def test_a_symlinked_memory_file_makes_every_look_walk(watch: Watch, workspace: Path,
                                                        tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "notes.md").write_text("oboe\n")
    (workspace / "memory" / "notes.md").symlink_to(elsewhere / "notes.md")
    walk(watch, workspace)
    assert watch.changed(), "an edit at the target raises no event here"
    assert watch.changed()


def test_a_closed_watch_says_changed(watch: Watch, workspace: Path) -> None:
    walk(watch, workspace)
    watch.close()
    assert watch.changed()


def test_without_inotify_every_look_says_changed(watch: Watch, workspace: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watch_module, "_INOTIFY", None)
    walk(watch, workspace)
    assert watch.changed()
    assert watch.changed()


def test_no_inotify_instance_left_makes_every_look_walk(watch: Watch, workspace: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    def exhausted(**_: object) -> None:
        raise OSError(errno.EMFILE, "Too many open files")

    monkeypatch.setattr(watch_module, "_INOTIFY", exhausted)
    walk(watch, workspace)
    assert watch.changed()
    assert watch.changed()
