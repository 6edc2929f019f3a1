"""No dead code in the package: vulture finds nothing unused at 60% confidence or more, beyond
the names tests/repo/dead_code_whitelist.py lists (used where vulture cannot see: pydantic,
libraries' attributes, counters tests read) and the fields of the protocol's params and result
models (read and written by pydantic, on the wire)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel

from zettelclaw.protocol import params, results

ROOT = Path(__file__).resolve().parents[2]


def wire_fields() -> list[str]:
    """``_.field`` for every field of the protocol's models: a whitelist vulture reads."""
    names = {name for module in (params, results) for value in vars(module).values()
             if isinstance(value, type) and issubclass(value, BaseModel)
             for name in value.model_fields}
    return [f"_.{name}" for name in sorted(names)]


@pytest.mark.slow  # vulture over the package, as a process: seconds
def test_vulture_finds_no_unused_code(tmp_path: Path) -> None:
    pytest.importorskip("vulture")
    fields = tmp_path / "wire_fields.py"
    fields.write_text("\n".join(wire_fields()) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "vulture", "sidecar/zettelclaw", "tests/repo/dead_code_whitelist.py",
         str(fields), "--min-confidence", "60"], cwd=ROOT, capture_output=True, text=True,
        check=False)
    assert done.returncode == 0, (
        "unused code (remove it, or list a name used where vulture cannot see in "
        f"tests/repo/dead_code_whitelist.py):\n{done.stdout}{done.stderr}")


def test_the_wire_fields_are_found() -> None:
    assert {"_.start_line", "_.agents_total", "_.session_id"} <= set(wire_fields())
