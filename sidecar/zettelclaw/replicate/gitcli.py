"""The git command line, run for the sync repository: never a prompt, never the user's hooks,
and a clear ``SyncError`` (the command and git's own words) when it fails."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from zettelclaw.errors import SyncError

NETWORK_TIMEOUT = 300.0  # a fetch or push of a large catch-up over a slow link
LOCAL_TIMEOUT = 120.0


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")
           or k in ("GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS")}
    env["GIT_TERMINAL_PROMPT"] = "0"  # a background sync must fail, not wait for a password
    env["LC_ALL"] = "C"
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    return env


class Git:
    def __init__(self, repo: Path, author: str) -> None:
        self.repo = repo
        self.author = author

    def run(self, *args: str, network: bool = False, check: bool = True,
            stdin: bytes | None = None, cwd: Path | None = None
            ) -> subprocess.CompletedProcess[bytes]:
        command = ["git", "-c", f"user.name=zettelclaw {self.author}",
                   "-c", f"user.email={self.author}@zettelclaw.invalid",
                   "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null",
                   "-c", "gc.auto=0", *args]
        try:
            # umask: the clone holds the memory (plain when not encrypted): 0600 files and
            # 0700 directories, like the rest of the data directory
            done = subprocess.run(command, cwd=cwd or self.repo, input=stdin, umask=0o077,
                                  capture_output=True, env=environment(), check=False,
                                  timeout=NETWORK_TIMEOUT if network else LOCAL_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise SyncError(f"git {args[0]} took over "
                            f"{NETWORK_TIMEOUT if network else LOCAL_TIMEOUT:g} s; is the "
                            "remote reachable?") from None
        except FileNotFoundError:
            raise SyncError("git is not installed (sync runs the git command)") from None
        if check and done.returncode != 0:
            raise SyncError(f"git {' '.join(args[:2])} failed: {said(done)}")
        return done

    def text(self, *args: str, network: bool = False) -> str:
        return self.run(*args, network=network).stdout.decode().strip()


def said(done: subprocess.CompletedProcess[bytes]) -> str:
    """What git said, in one line (its last few lines: the reason comes last)."""
    lines = [line.strip() for line in (done.stderr or done.stdout or b"").decode(
        "utf-8", "replace").splitlines() if line.strip()]
    return " / ".join(lines[-3:]) or f"exit status {done.returncode}"
