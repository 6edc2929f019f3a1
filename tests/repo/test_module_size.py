"""No module of the package grows past ``MAX_LINES``: a module that large holds more than one
job, and is split by job (as ``methods/`` is, one module per namespace).
"""

from __future__ import annotations

from pathlib import Path

import zettelclaw

PACKAGE = Path(zettelclaw.__file__).parent
MAX_LINES = 400


def line_counts(root: Path) -> dict[str, int]:
    return {path.relative_to(root).as_posix(): len(path.read_text().splitlines())
            for path in sorted(root.rglob("*.py"))}


def too_long(counts: dict[str, int]) -> list[str]:
    return [f"{name}: {lines} lines" for name, lines in counts.items() if lines > MAX_LINES]


def test_no_module_is_over_the_limit() -> None:
    over = too_long(line_counts(PACKAGE))
    assert not over, f"modules over {MAX_LINES} lines (split them by job):\n" + "\n".join(over)


def test_the_check_sees_a_long_module(tmp_path: Path) -> None:
    (tmp_path / "short.py").write_text("x = 1\n" * MAX_LINES)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "long.py").write_text("x = 1\n" * (MAX_LINES + 1))
    counts = line_counts(tmp_path)
    assert too_long(counts) == [f"sub/long.py: {MAX_LINES + 1} lines"]
