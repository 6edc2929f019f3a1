"""tests/e2e/openclaw_e2e.py's checks by name: each name has its check, ``--only`` (ZC_E2E_ONLY)
takes names and the numbers the checks had before, and refuses a name no check has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e import openclaw_e2e as e2e


def test_each_check_has_its_method_and_its_line_in_the_docstring() -> None:
    assert len(set(e2e.CHECKS)) == len(e2e.CHECKS)
    for name in e2e.CHECKS:
        assert callable(getattr(e2e.E2E, f"check_{name}", None)), name
    assert set(e2e.NUMBERS.values()) == set(e2e.CHECKS)
    doc = e2e.__doc__ or ""
    for number, name in e2e.NUMBERS.items():
        assert f"``{name}`` ({number}):" in doc, name


def test_only_takes_names_and_the_old_numbers() -> None:
    assert e2e.chosen("") is None
    assert e2e.chosen("write_receipts, forget_tool") == {"write_receipts", "forget_tool"}
    assert e2e.chosen("1,17") == {"extract_at_reset", "sync_two_gateways"}
    assert e2e.chosen("7,plugin_installed") == {"plugin_installed"}


@pytest.mark.parametrize("only", ["no_such_check", "18", "0", "receipts"])
def test_only_refuses_a_check_that_does_not_exist(only: str) -> None:
    with pytest.raises(ValueError, match="the checks are extract_at_reset, handoff_injected"):
        e2e.chosen(only)


def test_every_zc_e2e_only_the_repository_shows_names_real_checks() -> None:
    repo = Path(__file__).resolve().parents[2]
    shown = {}
    for path in [repo / "scripts/test", repo / "CONTRIBUTING.md", *repo.glob("docs/*.md"),
                 *repo.glob("tests/e2e/*")]:
        if path.is_file():
            for value in re.findall(r"ZC_E2E_ONLY=([\w,]+)", path.read_text()):
                shown[value] = path.name
    assert "test" in shown.values()  # scripts/test's run against the oldest OpenClaw
    for value in shown:
        assert e2e.chosen(value), value
