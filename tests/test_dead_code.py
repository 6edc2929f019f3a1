"""No dead code in the package: vulture finds nothing unused at 60% confidence or more, beyond
the names tests/dead_code_whitelist.py lists (used where vulture cannot see: pydantic, libraries'
attributes, counters tests read)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_vulture_finds_no_unused_code() -> None:
    pytest.importorskip("vulture")
    done = subprocess.run(
        [sys.executable, "-m", "vulture", "sidecar/zettelclaw", "tests/dead_code_whitelist.py",
         "--min-confidence", "60"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, (
        "unused code (remove it, or list a name used where vulture cannot see in "
        f"tests/dead_code_whitelist.py):\n{done.stdout}{done.stderr}")
