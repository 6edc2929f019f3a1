"""The plugin's copy of the sidecar's rules that are single values: each error code (``errors.py``)
and the agent an unnamed call means (``agent_ids.py``). ``python -m zettelclaw.protocol.constants
--write`` writes ``clients/openclaw/src/protocol_constants.ts``; without ``--write`` it prints
it. tests/protocol/test_protocol_constants.py fails when the committed file is stale, and when the
plugin's sources spell an error code as a number instead of naming it here.
"""

from __future__ import annotations

import json
from pathlib import Path

from zettelclaw.agent_ids import AGENT_ID_RE, MAIN
from zettelclaw.errors import ALL_ERRORS
from zettelclaw.protocol.generated import write_or_print

TS_FILE = (Path(__file__).resolve().parents[3] / "clients" / "openclaw" / "src"
           / "protocol_constants.ts")
HEADER = """\
// Generated from sidecar/zettelclaw/errors.py and agent_ids.py by
// `python -m zettelclaw.protocol.constants --write`: do not edit
// (tests/protocol/test_protocol_constants.py fails when this file is not what they generate).
"""


def error_codes() -> dict[str, int]:
    """Each error's name as the plugin spells it (the class's, without ``Error``) and its code."""
    return {cls.__name__.removesuffix("Error"): cls.code for cls in ALL_ERRORS}


def text() -> str:
    out = [HEADER]
    out.append("/** The sidecar's JSON-RPC error codes (protocol.md, \"Errors\"). */")
    out.append("export const ErrorCode = {")
    out.extend(f"  {name}: {code}," for name, code in error_codes().items())
    out.append("} as const;\n")
    out.append("export type ErrorCodeName = keyof typeof ErrorCode;\n")
    out.append("/** The agent a call that names none is for (and whose memory is the data "
               "directory). */")
    out.append(f"export const MAIN_AGENT = {json.dumps(MAIN)};\n")
    out.append("/** A canonical agent id: what the sidecar accepts (after trimming and "
               "lower-casing ASCII). */")
    out.append(f"export const AGENT_ID = /{AGENT_ID_RE.pattern}/;")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    return write_or_print("python -m zettelclaw.protocol.constants", TS_FILE, text, argv)


if __name__ == "__main__":
    raise SystemExit(main())
