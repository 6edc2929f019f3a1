"""tests/readme/blocks.py: which commands a document shows, and what each must do."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.readme.blocks import DEFAULT_TIMEOUT, DirectiveError, parse, read_blocks

DOC = Path("DOC.md")
REPO = Path(__file__).resolve().parents[2]


def test_sh_blocks_are_commands_and_other_blocks_are_not() -> None:
    text = "\n".join([
        "intro", "```sh", "zettelclaw status   # counts", "", "# a comment line",
        "zettelclaw log -n 5", "```", "```json", '{"a": 1}', "```",
    ])
    [block] = parse(text, DOC)
    assert [c.text for c in block.commands] == ["zettelclaw status   # counts",
                                                "zettelclaw log -n 5"]
    assert [c.line for c in block.commands] == [3, 6]
    assert all(c.exit_code == 0 and not c.outputs for c in block.commands)
    assert block.timeout == DEFAULT_TIMEOUT
    assert block.where == "DOC.md:2"


def test_a_backslash_continues_a_command() -> None:
    [block] = parse("```sh\nzettelclaw search \\\n  --type task\nzettelclaw log\n```\n", DOC)
    assert [c.text for c in block.commands] == ["zettelclaw search \\\n  --type task",
                                                "zettelclaw log"]
    assert [c.line for c in block.commands] == [2, 4]


def test_a_continued_command_runs_as_pasted(tmp_path: Path) -> None:
    """A line that starts with `&&` after a backslash is still one command for the shell."""
    [block] = parse("```sh\ntrue \\\n    && echo one \\\n    && echo two\n```\n", DOC)
    [command] = block.commands
    done = subprocess.run(["bash", "-c", command.text], capture_output=True, text=True,
                          check=False, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "one\ntwo\n"), done.stderr


def test_directives_set_exit_codes_outputs_and_skips() -> None:
    text = "\n".join([
        "<!-- readme-test", "exit 1: zettelclaw search nothing",
        "output: zettelclaw log => webhook", "output: zettelclaw log => retries",
        "skip-line: openclaw gateway restart => needs a service manager",
        "timeout: 30", "-->",
        "```sh", "zettelclaw search nothing", "zettelclaw log", "openclaw gateway restart", "```",
    ])
    [block] = parse(text, DOC)
    search, log, restart = block.commands
    assert (search.exit_code, search.outputs, search.skip) == (1, (), None)
    assert log.outputs == ("webhook", "retries")
    assert restart.skip == "needs a service manager"
    assert block.timeout == 30


def test_one_line_skip_and_background() -> None:
    text = ("<!-- readme-test skip: it is the test command itself -->\n```sh\nscripts/test\n```\n"
            "<!-- readme-test\nbackground: listening on\n-->\n```sh\nscripts/serve\n```\n")
    skipped, served = parse(text, DOC)
    assert skipped.skip == "it is the test command itself"
    assert served.background == "listening on"
    assert served.skip is None


@pytest.mark.parametrize(("text", "message"), [
    ("<!-- readme-test\nexit 1: nope\n-->\n```sh\nzettelclaw log\n```\n", "0 commands"),
    ("<!-- readme-test\nexit 1: zettelclaw\n-->\n```sh\nzettelclaw a\nzettelclaw b\n```\n",
     "2 commands"),
    ("<!-- readme-test\nexpect: x\n-->\n```sh\nx\n```\n", "unknown readme-test directive"),
    ("<!-- readme-test\nskip\n-->\n```sh\nx\n```\n", "expected 'KEY: VALUE'"),
    ("<!-- readme-test\noutput: x\n-->\n```sh\nx\n```\n", "COMMAND => TEXT"),
    ("<!-- readme-test\nexit one: x\n-->\n```sh\nx\n```\n", "exit N"),
    ("<!-- readme-test\nbackground: ready\n-->\n```sh\na\nb\n```\n", "one command"),
    ("<!-- readme-test\nskip: why\n-->\n\nsome prose\n```sh\nx\n```\n", "right above"),
    ("<!-- readme-test\nskip: why\n-->\n```json\n{}\n```\n", "only sh blocks"),
    ("<!-- readme-test\nskip: why\n", "never closed"),
    ("```sh\nx\n", "never closed"),
    ("```sh\n# only a comment\n```\n", "no command"),
])
def test_a_directive_that_cannot_be_read_is_an_error_with_its_line(text: str,
                                                                   message: str) -> None:
    with pytest.raises(DirectiveError, match=message) as info:
        parse(text, DOC)
    assert str(info.value).startswith("DOC.md:")


def test_the_readme_reads_and_starts_with_the_two_commands() -> None:
    """The README's own directives parse, and its first two blocks are serve and test."""
    blocks = read_blocks(REPO / "README.md")
    first, second = blocks[0], blocks[1]
    assert [c.text.split()[0] for c in first.commands] == ["scripts/serve"]
    assert first.background is not None, "the first command serves in the background"
    assert [c.text.split()[0] for c in second.commands] == ["scripts/test"]
    assert "scripts/test" in (REPO / ".ci" / "run").read_text()


def test_fresh_clone_is_read() -> None:
    text = ("```sh\nscripts/serve\n```\n"
            "<!-- readme-test\nfresh-clone: no .venv there\n-->\n```sh\npip wheel .\n```\n")
    before, fresh = parse(text, DOC)
    assert before.fresh_clone is None
    assert fresh.fresh_clone == "no .venv there"


def test_install_without_a_clone_runs_from_a_clone_without_the_venv() -> None:
    """The block must work in a clone where nothing made .venv (it once began
    with `.venv/bin/pip`, which only the README test's own earlier scripts/serve had made)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text[:text.index("\n## Install without a clone\n")].count("\n") + 2
    end = text[:text.index("\n## With OpenClaw\n")].count("\n") + 2
    [block] = [b for b in read_blocks(REPO / "README.md") if start < b.line < end]
    assert block.fresh_clone is not None
    assert block.skip is None
    assert not [c.text for c in block.commands if ".venv" in c.text or c.skip]
