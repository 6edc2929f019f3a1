"""The commands a Markdown document shows, read as a newcomer would paste them.

Every fenced ```sh block is a list of commands, run in order in one shell. What a block's
commands must do is said in an HTML comment right above its fence (invisible on GitHub):

    <!-- readme-test
    background: listening on          the block's one command keeps running; it is ready when
                                      its output shows this text, and is stopped at the end
    exit 1: zettelclaw search nothing  the command starting with this text exits 1 (default 0)
    fresh-clone: why                  the block runs in a new terminal (no variable exported
                                      before) in a new copy of the working tree (no .venv,
                                      nothing the blocks before made there); HOME stays, and
                                      the blocks after it go on from there
    output: zettelclaw log => webhook  its output (stdout and stderr) contains this text
    skip-line: openclaw gateway restart => why it cannot run in CI
    skip: why the whole block cannot run in CI
    timeout: 600                      seconds each command may take (default 120)
    -->

The shell carries the working directory and exported variables from one command to the next
(not plain shell variables: write `export NAME=...`). A directive naming a command that the
block does not have is an error, so a README edit cannot silently drop a check. Blocks in
other languages (json, markdown, text) are not commands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

FENCE = re.compile(r"^```(\S*)\s*$")
DIRECTIVES_OPEN = "<!-- readme-test"
DEFAULT_TIMEOUT = 120.0


class DirectiveError(ValueError):
    """A readme-test comment that cannot be read, reported with its file and line."""


@dataclass(frozen=True)
class Command:
    text: str
    line: int  # 1-based line of the document where the command starts
    exit_code: int = 0
    outputs: tuple[str, ...] = ()
    skip: str | None = None


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # the fence's line
    commands: tuple[Command, ...]
    skip: str | None = None
    background: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    fresh_clone: str | None = None  # why the block starts from a new copy and a new terminal
    directives: dict[str, str] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"{self.path.name}:{self.line}"


def read_blocks(path: Path) -> list[Block]:
    return parse(path.read_text(encoding="utf-8"), path)


def parse(text: str, path: Path) -> list[Block]:
    lines = text.splitlines()
    blocks: list[Block] = []
    pending: list[tuple[int, str]] | None = None  # directive lines above the next fence
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip().startswith(DIRECTIVES_OPEN):
            pending, i = _directive_lines(lines, i, path)
            continue
        fence = FENCE.match(line)
        if fence is None:
            if line.strip() and pending is not None:
                raise DirectiveError(f"{path.name}:{i + 1}: a readme-test comment must stand "
                                     "right above a ```sh fence")
            i += 1
            continue
        end = _closing_fence(lines, i, path)
        if fence.group(1) == "sh":
            blocks.append(_block(path, i + 1, lines[i + 1:end], pending or []))
        elif pending is not None:
            raise DirectiveError(f"{path.name}:{i + 1}: readme-test directives above a "
                                 f"```{fence.group(1)} block (only sh blocks are run)")
        pending = None
        i = end + 1
    return blocks


def _directive_lines(lines: list[str], start: int, path: Path) -> tuple[list[tuple[int, str]], int]:
    first = lines[start].strip()[len(DIRECTIVES_OPEN):].strip()
    found: list[tuple[int, str]] = []
    if first.endswith("-->"):  # one-line form: <!-- readme-test skip: why -->
        body = first[:-3].strip()
        return ([(start + 1, body)] if body else []), start + 1
    for j in range(start + 1, len(lines)):
        text = lines[j].strip()
        if text == "-->":
            return found, j + 1
        if text:
            found.append((j + 1, text))
    raise DirectiveError(f"{path.name}:{start + 1}: readme-test comment never closed")


def _closing_fence(lines: list[str], start: int, path: Path) -> int:
    for j in range(start + 1, len(lines)):
        if lines[j].strip() == "```":
            return j
    raise DirectiveError(f"{path.name}:{start + 1}: code block never closed")


def _commands(body: list[str], first_line: int) -> list[Command]:
    """One command per line; a trailing backslash continues it (the text keeps it, so that the
    shell runs the lines as pasted: `\\` then a line starting `&&`); comment lines are not
    commands."""
    commands: list[Command] = []
    parts: list[str] = []
    start = first_line
    for offset, raw in enumerate(body):
        if not parts:
            start = first_line + offset
            if not raw.strip() or raw.lstrip().startswith("#"):
                continue
        parts.append(raw)  # as written: bash reads backslash-newline as one line
        if raw.endswith("\\"):
            continue
        commands.append(Command(text="\n".join(parts).strip(), line=start))
        parts = []
    if parts:
        commands.append(Command(text="\n".join(parts).strip(), line=start))
    return commands


def _block(path: Path, fence_line: int, body: list[str],
           directives: list[tuple[int, str]]) -> Block:
    commands = _commands(body, fence_line + 1)
    timeout = DEFAULT_TIMEOUT
    seen: dict[str, str] = {}
    for line_no, text in directives:
        key, sep, value = text.partition(":")
        key, value = key.strip(), value.strip()
        where = f"{path.name}:{line_no}"
        if not sep or not value:
            raise DirectiveError(f"{where}: expected 'KEY: VALUE', got {text!r}")
        seen[key] = value
        if key in {"skip", "background", "fresh-clone"}:
            pass  # read from `seen` below
        elif key == "timeout":
            timeout = float(value)
        elif key in {"output", "skip-line"}:
            prefix, arrow, what = value.partition("=>")
            if not arrow or not what.strip():
                raise DirectiveError(f"{where}: expected '{key}: COMMAND => TEXT'")
            commands = _amend(commands, prefix.strip(), key, what.strip(), where)
        elif key.startswith("exit "):
            code = key.removeprefix("exit ").strip()
            if not code.isdigit():
                raise DirectiveError(f"{where}: expected 'exit N: COMMAND'")
            commands = _amend(commands, value, "exit", code, where)
        else:
            raise DirectiveError(f"{where}: unknown readme-test directive {key!r}")
    skip, background = seen.get("skip"), seen.get("background")
    if background is not None and len(commands) != 1:
        raise DirectiveError(f"{path.name}:{fence_line}: a background block holds one command")
    if not commands and skip is None:
        raise DirectiveError(f"{path.name}:{fence_line}: an sh block with no command")
    return Block(path=path, line=fence_line, commands=tuple(commands), skip=skip,
                 background=background, timeout=timeout, fresh_clone=seen.get("fresh-clone"),
                 directives=seen)


def _amend(commands: list[Command], prefix: str, key: str, value: str,
           where: str) -> list[Command]:
    matches = [c for c in commands if c.text.startswith(prefix)]
    if len(matches) != 1:
        raise DirectiveError(f"{where}: {len(matches)} commands of the block start with "
                             f"{prefix!r} (a directive names exactly one)")
    target = matches[0]
    if key == "exit":
        amended = Command(target.text, target.line, int(value), target.outputs, target.skip)
    elif key == "output":
        amended = Command(target.text, target.line, target.exit_code,
                          (*target.outputs, value), target.skip)
    else:
        amended = Command(target.text, target.line, target.exit_code, target.outputs, value)
    return [amended if c is target else c for c in commands]
