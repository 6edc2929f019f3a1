"""Run README.md's commands as a newcomer would: in order, in one shell, on a fresh HOME.

    .venv/bin/python -m tests.readme.run [--doc README.md] [--keep]

(by default README.md, then each docs/*.md page that has an sh block)

A copy of the working tree (what `git ls-files` lists, tracked or not ignored: a fresh clone of
it) is made in a temporary directory, HOME is a new empty directory, and every ```sh block of the
document runs from the copy's top, each command in a bash that carries the last one's working
directory and exported variables, as one terminal would. What each command must do is written
above its block (tests/readme/blocks.py); a command that cannot run here is marked there with
the reason, and the reason is printed. Background commands (the sidecar) are stopped with
SIGTERM at the end and must exit 0. Prints a line per command and `N passed, M failed` last;
exits 1 when a command failed.

The machine is expected to have what a user's has before they start: Python 3.11+, and for the
OpenClaw section the Node and OpenClaw that scripts/openclaw-env.sh installs (its cache is
passed on as ZETTELCLAW_E2E_CACHE, which the README's PATH line names).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.readme.blocks import Block, Command, DirectiveError, read_blocks

REPO = Path(__file__).resolve().parents[2]
# Variables of the developer's or CI's own shell that a newcomer's shell does not have.
SCRUBBED_PREFIXES = ("ZETTELCLAW_", "OPENCLAW_", "ANTHROPIC_", "VIRTUAL_ENV", "PYTHONPATH",
                     "PYTEST_", "CLAUDE", "npm_")
ANSI = re.compile(r"\x1b\[[0-9;]*m")  # colours, in case a command ignores NO_COLOR
STOP_TIMEOUT = 60.0  # seconds a background command has to exit after SIGTERM (a gateway drains)


@dataclass
class Outcome:
    passed: int = 0
    failed: int = 0
    skipped: int = 0


class Shell:
    """One terminal: each command runs in a new bash that resumes the last one's cwd and exports."""

    def __init__(self, state: Path, cwd: Path, env: dict[str, str]) -> None:
        self.state = state
        self.env_file = state / "env.sh"
        self.cwd_file = state / "cwd"
        self.base_env = env
        self.new_terminal(cwd)
        self.background: list[tuple[Command, subprocess.Popen[bytes], Path]] = []

    def new_terminal(self, cwd: Path) -> None:
        """From the next command on: the first environment (nothing exported since), in cwd."""
        self.cwd_file.write_text(str(cwd))
        self.env_file.write_text("".join(f"export {k}={shlex.quote(v)}\n"
                                         for k, v in self.base_env.items()))

    def _script(self, command: str, keep_state: bool) -> str:
        resume = (f'. {shlex.quote(str(self.env_file))} >/dev/null 2>&1\n'
                  f'cd "$(cat {shlex.quote(str(self.cwd_file))})" || exit 97\n')
        if not keep_state:
            return resume + command + "\n"
        save = (f'\n__zc_rc=$?\nexport -p > {shlex.quote(str(self.env_file))}.new '
                f'&& mv {shlex.quote(str(self.env_file))}.new {shlex.quote(str(self.env_file))}\n'
                f'pwd > {shlex.quote(str(self.cwd_file))}\nexit $__zc_rc\n')
        return resume + command + save

    def run(self, command: str, timeout: float, log: Path) -> tuple[int | None, str]:
        """The command's exit code (None on timeout) and its output (stdout and stderr)."""
        with log.open("wb") as out:
            proc = subprocess.Popen(["bash", "--noprofile", "--norc", "-c",
                                     self._script(command, keep_state=True)],
                                    env=self.base_env, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, start_new_session=True)
            try:
                code: int | None = proc.wait(timeout)
            except subprocess.TimeoutExpired:
                _kill_group(proc)
                code = None
        return code, log.read_text(errors="replace")

    def start(self, command: Command, ready: str, timeout: float, log: Path) -> str | None:
        """Start a background command; None once its output shows `ready`, else why not."""
        out = log.open("wb")
        proc = subprocess.Popen(["bash", "--noprofile", "--norc", "-c",
                                 self._script(command.text, keep_state=False)],
                                env=self.base_env, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
        out.close()
        self.background.append((command, proc, log))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if ready in ANSI.sub("", log.read_text(errors="replace")):
                return None
            if proc.poll() is not None:
                return f"exited {proc.returncode} before printing {ready!r}"
            time.sleep(0.2)
        return f"did not print {ready!r} within {timeout:.0f} s"

    def stop_background(self) -> list[tuple[Command, str | None, str]]:
        """SIGTERM each background command, the last started first (the gateway before the
        sidecar it uses); (command, why it failed or None, its output), in the order started."""
        results = []
        for command, proc, log in reversed(self.background):
            why = None
            if proc.poll() is not None:
                why = f"had already exited ({proc.returncode}) before the end"
            else:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    code = proc.wait(STOP_TIMEOUT)
                    if code != 0:
                        why = f"exited {code} on SIGTERM (expected 0)"
                except subprocess.TimeoutExpired:
                    _kill_group(proc)
                    why = f"did not stop within {STOP_TIMEOUT:.0f} s of SIGTERM"
            results.append((command, why, log.read_text(errors="replace")))
        return results[::-1]


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def copy_working_tree(repo: Path, into: Path) -> None:
    """What a fresh clone of the working tree holds: tracked files and untracked, unignored ones."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=repo, check=True, capture_output=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        source = repo / name
        if not source.exists() and not source.is_symlink():
            continue  # deleted in the working tree, not yet in the index
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, target)


def newcomer_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUBBED_PREFIXES)}
    venv_bins = {str(REPO / ".venv" / "bin"), str(Path(sys.executable).parent)}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "/usr/bin:/bin").split(os.pathsep)
                                  if p not in venv_bins)
    cache = os.environ.get("ZETTELCLAW_E2E_CACHE") or str(Path.home() / ".cache/zettelclaw-e2e")
    env.update({"HOME": str(home), "ZETTELCLAW_E2E_CACHE": cache, "NO_COLOR": "1"})
    return env


def _report(status: str, block: Block, command: Command, detail: str = "") -> None:
    first_line = command.text.splitlines()[0]
    print(f"{status:<4} {block.path.name}:{command.line}  {first_line}"
          + (f"  ({detail})" if detail else ""), flush=True)


def _check(command: Command, code: int | None, output: str) -> str | None:
    if code is None:
        return "timed out"
    if code != command.exit_code:
        return f"exit {code}, expected {command.exit_code}"
    missing = [text for text in command.outputs if text not in output]
    return f"output lacks {missing[0]!r}" if missing else None


def run_document(shell: Shell, blocks: list[Block], logs: Path, outcome: Outcome,
                 fresh_clone: Callable[[], Path]) -> None:
    for n, block in enumerate(blocks):
        if block.fresh_clone is not None and block.skip is None:
            clone = fresh_clone()
            print(f"     {block.where}: a new terminal in a new copy of the tree, {clone} "
                  f"({block.fresh_clone})", flush=True)
            shell.new_terminal(clone)
        if block.skip is not None:
            for command in block.commands:
                _report("skip", block, command, block.skip)
                outcome.skipped += 1
            continue
        for k, command in enumerate(block.commands):
            log = logs / f"{block.path.stem}-{n:02d}-{k:02d}.log"
            if command.skip is not None:
                _report("skip", block, command, command.skip)
                outcome.skipped += 1
                continue
            started = time.monotonic()
            if block.background is not None:
                why = shell.start(command, block.background, block.timeout, log)
                output = log.read_text(errors="replace")
            else:
                code, output = shell.run(command.text, block.timeout, log)
                why = _check(command, code, output)
            took = f"{time.monotonic() - started:.1f} s"
            if why is None:
                _report("ok", block, command, took)
                outcome.passed += 1
            else:
                _report("FAIL", block, command, f"{why}; {took}")
                print("     | " + "\n     | ".join(output.splitlines()[-25:]), flush=True)
                outcome.failed += 1


def default_docs() -> list[Path]:
    """README.md, then the docs/ pages that show commands: every command the documentation
    shows runs, in the order a reader meets them (the pages after the README's set-up)."""
    pages = sorted(p for p in (REPO / "docs").glob("*.md") if "```sh" in p.read_text("utf-8"))
    return [Path("README.md"), *(p.relative_to(REPO) for p in pages)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--doc", type=Path, action="append",
                        help="a Markdown file of the repository (default: README.md, then every "
                             "docs/*.md with an sh block, in name order, in the same shell)")
    parser.add_argument("--keep", action="store_true", help="keep the sandbox directory")
    args = parser.parse_args(argv)
    docs = args.doc or default_docs()
    try:
        documents = [read_blocks(REPO / d) for d in docs]
    except DirectiveError as exc:
        print(f"readme-test: {exc}", file=sys.stderr)
        return 2
    sandbox = Path(tempfile.mkdtemp(prefix="zc-readme."))
    outcome = Outcome()
    try:
        home, clone, state, logs = (sandbox / d for d in ("home", "zettelclaw", "state", "logs"))
        for d in (home, clone, state, logs):
            d.mkdir(mode=0o700)
        copy_working_tree(REPO, clone)
        shell = Shell(state, clone, newcomer_env(home))
        print(f"readme-test: HOME={home}, the clone in {clone}", flush=True)
        copies = itertools.count(2)

        def fresh_clone() -> Path:
            another = sandbox / f"zettelclaw-{next(copies)}"
            another.mkdir(mode=0o700)
            copy_working_tree(REPO, another)
            return another

        try:
            for blocks in documents:
                run_document(shell, blocks, logs, outcome, fresh_clone)
        finally:
            for command, why, output in shell.stop_background():
                if why is None:
                    print(f"ok   stopped: {command.text}", flush=True)
                    outcome.passed += 1
                else:
                    print(f"FAIL stopped: {command.text}  ({why})", flush=True)
                    print("     | " + "\n     | ".join(output.splitlines()[-25:]), flush=True)
                    outcome.failed += 1
    finally:
        if args.keep:
            print(f"readme-test: kept {sandbox}", file=sys.stderr)
        else:
            shutil.rmtree(sandbox, ignore_errors=True)
    print(f"{outcome.passed} passed, {outcome.failed} failed, {outcome.skipped} skipped")
    return 1 if outcome.failed else 0


if __name__ == "__main__":
    sys.exit(main())
