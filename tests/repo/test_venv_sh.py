"""scripts/venv.sh: the stamp read back as written, and pip's real error shown when it fails.

The install runs against a fake `.venv/bin/python` that records what pip was asked for, so these
tests take well under a second and need no network. README.md's first two commands,
`scripts/serve` then `scripts/test`, are the first case.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.timing import scaled

REPO = Path(__file__).resolve().parents[2]

FAKE_PYTHON = r"""#!/usr/bin/env bash
here=$(dirname "$0")
if [ "$1" = -VV ]; then echo "Python 3.11.2 (fake)"; exit 0; fi
if [ "$1 $2 $3" = "-m pip install" ]; then
    spec=${*: -1}
    echo "$spec" >>"$here/../pip-calls"
    echo "Collecting pytest"
    if [ -n "${FAKE_PIP_FAIL:-}" ]; then
        # what pip 23-25 print for a requirement they cannot parse: the reason comes last
        echo "ERROR: Exception:" >&2
        echo "Traceback (most recent call last):" >&2
        echo "  File \"pip/_internal/cli/base_command.py\", line 180, in exc_logging_wrapper" >&2
        echo "pip._vendor.packaging.requirements.InvalidRequirement: $FAKE_PIP_FAIL" >&2
        exit 2
    fi
    printf '#!/bin/sh\n' >"$here/zettelclaw" && chmod +x "$here/zettelclaw"
    echo "Successfully installed zettelclaw-0.1.0"
    exit 0
fi
echo "fake python: unexpected arguments: $*" >&2
exit 99
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "scripts").mkdir()
    shutil.copy(REPO / "scripts" / "venv.sh", tmp_path / "scripts" / "venv.sh")
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").write_text(FAKE_PYTHON)
    (bin_dir / "python").chmod(0o755)
    return tmp_path


def ensure(project: Path, *extras: str, env: dict[str, str] | None = None,
           ) -> subprocess.CompletedProcess[str]:
    """Each EXTRAS in turn, as scripts/serve and scripts/test call it (set -euo pipefail)."""
    calls = "".join(f"zc_venv_ensure {e!r}\n" for e in extras)
    return subprocess.run(
        ["bash", "-c", f"set -euo pipefail\nsource scripts/venv.sh\n{calls}echo done"],
        check=False, cwd=project, capture_output=True, text=True, timeout=scaled(60),
        env={"PATH": "/usr/bin:/bin", "PYTHON": sys.executable, **(env or {})})


def pip_calls(project: Path) -> list[str]:
    calls = project / ".venv" / "pip-calls"
    return calls.read_text().splitlines() if calls.exists() else []


def test_serve_then_test_installs_the_test_extra(project: Path) -> None:
    """README's order: scripts/serve (no extras), then scripts/test (the test extra)."""
    result = ensure(project, "", "test")
    assert result.returncode == 0, result.stderr
    assert pip_calls(project) == [".", ".[test]"]


def test_a_matching_stamp_installs_nothing(project: Path) -> None:
    result = ensure(project, "test", "", "test")
    assert result.returncode == 0, result.stderr
    assert pip_calls(project) == [".[test]"]  # serve after test keeps test's extras


def test_the_extras_are_kept_across_installs(project: Path) -> None:
    result = ensure(project, "", "test", "embeddings", "")
    assert result.returncode == 0, result.stderr
    assert pip_calls(project) == [".", ".[test]", ".[embeddings,test]"]
    stamp = (project / ".venv" / ".zettelclaw-stamp").read_text().splitlines()
    assert stamp[1] == "extras embeddings,test"


def test_an_old_stamp_is_not_read_as_extras(project: Path) -> None:
    """The stamp once wrote `-` for "no extras": it must never reach pip."""
    (project / ".venv" / "bin" / "zettelclaw").write_text("#!/bin/sh\n")
    (project / ".venv" / "bin" / "zettelclaw").chmod(0o755)
    (project / ".venv" / ".zettelclaw-stamp").write_text("0123456789abcdef -\n")
    result = ensure(project, "test")
    assert result.returncode == 0, result.stderr
    assert pip_calls(project) == [".[test]"]


def test_a_failed_install_shows_pips_reason_and_says_so(project: Path) -> None:
    result = ensure(project, "test", env={"FAKE_PIP_FAIL": "Parse error at the extras"})
    assert result.returncode == 1
    assert "done" not in result.stdout
    assert "the install into .venv failed (pip exited 2)" in result.stderr
    assert "InvalidRequirement: Parse error at the extras" in result.stderr
    assert "Collecting pytest" in result.stderr  # the progress lines, as the install ran
    log = (project / ".venv" / "pip-install.log").read_text()
    assert "Traceback" in log
    assert "Parse error at the extras" in log
    assert not (project / ".venv" / ".zettelclaw-stamp").exists()
