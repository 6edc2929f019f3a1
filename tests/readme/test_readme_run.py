"""tests/readme/run.py: blocks run in order in one terminal; a fresh-clone block starts over."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readme.blocks import parse
from tests.readme.run import REPO, Outcome, Shell, default_docs, run_document

DOC = """\
```sh
export MARK=set-before
mkdir .venv && touch made-before
```

<!-- readme-test
fresh-clone: nothing the blocks above made
exit 1: test -e .venv
exit 1: test -e made-before
-->
```sh
test -e .venv
test -e made-before
test -z "$MARK"
export MARK=set-after
```

```sh
test "$MARK" = set-after && test ! -e .venv
```
"""


def test_a_fresh_clone_block_runs_in_a_new_copy_and_a_new_terminal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, state, logs = (tmp_path / d for d in ("clone", "state", "logs"))
    for d in (first, state, logs):
        d.mkdir()
    copies: list[Path] = []

    def fresh_clone() -> Path:
        copies.append(tmp_path / f"clone-{len(copies) + 2}")
        copies[-1].mkdir()
        return copies[-1]

    shell = Shell(state, first, {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    outcome = Outcome()
    run_document(shell, parse(DOC, Path("DOC.md")), logs, outcome, fresh_clone)
    out = capsys.readouterr().out
    assert (outcome.passed, outcome.failed) == (7, 0), out
    assert len(copies) == 1
    assert "nothing the blocks above made" in out
    assert (first / ".venv").is_dir()
    assert not (copies[0] / ".venv").exists()


def test_every_page_that_shows_commands_is_run_after_the_readme() -> None:
    docs = default_docs()
    assert docs[0] == Path("README.md")
    showing = {p.relative_to(REPO) for p in (REPO / "docs").glob("*.md")
               if "```sh" in p.read_text("utf-8")}
    assert showing  # docs/13-import.md shows the import's commands
    assert set(docs[1:]) == showing
