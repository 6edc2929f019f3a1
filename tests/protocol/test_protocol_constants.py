"""protocol/constants.py: the plugin's error codes and main agent are generated from errors.py
and agent_ids.py, and the plugin's sources name them rather than spell them."""

from __future__ import annotations

import re
from pathlib import Path

from zettelclaw.errors import ALL_ERRORS
from zettelclaw.protocol import constants

SOURCES = Path(__file__).resolve().parents[2] / "clients" / "openclaw"
GENERATED = {"protocol_constants.ts", "protocol_types.ts", "tool_schemas.ts"}
CODE = re.compile(r"(?<![\w.])-32[0-9]{3}\b")
MAIN = re.compile(r"""["'`]main["'`]""")


def test_the_committed_constants_are_what_the_sidecar_generates() -> None:
    assert constants.TS_FILE.read_text() == constants.text(), (
        "clients/openclaw/src/protocol_constants.ts is stale: run "
        "`python -m zettelclaw.protocol.constants --write`, then scripts/build-plugin")


def test_every_error_class_has_its_code_under_one_name() -> None:
    codes = constants.error_codes()
    assert sorted(codes.values()) == sorted({cls.code for cls in ALL_ERRORS})
    assert codes["NotFound"] == -32002


def code_lines(text: str) -> list[tuple[int, str]]:
    """The lines of TypeScript with their comments taken out (// to the end, /* ... */)."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group().count("\n"), text, flags=re.DOTALL)
    return [(n, line.split("//", 1)[0]) for n, line in enumerate(text.splitlines(), 1)]


def spelled(pattern: re.Pattern[str]) -> list[str]:
    found = []
    for file in sorted([*SOURCES.glob("src/*.ts"), SOURCES / "index.ts"]):
        if file.name in GENERATED:
            continue
        found += [f"{file.name}:{n}: {line.strip()}" for n, line in code_lines(file.read_text())
                  if pattern.search(line)]
    return found


def test_the_plugin_names_error_codes_instead_of_spelling_them() -> None:
    assert spelled(CODE) == [], "use ErrorCode from ./protocol_constants.ts"


def test_the_plugin_names_the_main_agent_instead_of_spelling_it() -> None:
    assert spelled(MAIN) == [], "use MAIN_AGENT from ./protocol_constants.ts"


def test_comments_are_not_code() -> None:
    assert code_lines("a // -32002\n/* -32002\n */ b") == [(1, "a "), (2, ""), (3, " b")]
