"""The plugin's TypeScript types of the protocol, generated from ``protocol.schema.json``:
``python -m zettelclaw.protocol.typescript --write`` writes
``clients/openclaw/src/protocol_types.ts``; without ``--write`` it prints it.
tests/protocol/test_typescript.py fails when the committed file is not what the schema generates, as
tests/protocol/test_protocol_schema.py does for the schema itself.

One type per model (``$defs``), as the wire spells it: params as accepted (a field with a default
is optional), results as sent (a field that may be left out is optional); and ``Methods``, each
method's params and result, for ``RpcClient.request``. Only the JSON Schema the pydantic models
produce is read: objects, arrays, ``anyOf``, ``enum``, ``const``, ``$ref`` and the scalar types.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from zettelclaw.protocol.generated import write_or_print
from zettelclaw.protocol.schema import SCHEMA_FILE

TS_FILE = (Path(__file__).resolve().parents[3] / "clients" / "openclaw" / "src"
           / "protocol_types.ts")
IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
SCALARS = {"string": "string", "integer": "number", "number": "number", "boolean": "boolean",
           "null": "null"}
HEADER = """\
// Generated from sidecar/zettelclaw/protocol/protocol.schema.json by
// `python -m zettelclaw.protocol.typescript --write`: do not edit
// (tests/protocol/test_typescript.py fails when this file is not what the schema generates).
// The sidecar's pydantic models are the source: protocol/params/ and protocol/results/,
// paired by protocol/contract.py.
"""


def ts_type(node: dict[str, Any], indent: str) -> str:  # noqa: PLR0911  (one return per kind)
    if "$ref" in node:
        return str(node["$ref"]).rsplit("/", 1)[-1]
    if "const" in node:
        return json.dumps(node["const"])
    if "enum" in node:
        return " | ".join(json.dumps(v) for v in node["enum"])
    if "anyOf" in node:
        members: list[str] = []
        for option in node["anyOf"]:
            member = ts_type(option, indent)
            if member not in members:
                members.append(member)
        return " | ".join(f"({m})" if "=>" in m else m for m in members)
    kind = node.get("type")
    if isinstance(kind, list):
        return " | ".join(ts_type({**node, "type": k}, indent) for k in kind)
    if kind in SCALARS:
        return SCALARS[kind]
    if kind == "array":
        item = ts_type(node.get("items", {}), indent)
        return f"{item}[]" if re.fullmatch(r"[\w.]+", item) else f"({item})[]"
    if kind == "object" or "properties" in node:
        return object_type(node, indent)
    return "unknown"


def object_type(node: dict[str, Any], indent: str) -> str:
    properties: dict[str, Any] = node.get("properties", {})
    extra = node.get("additionalProperties")
    if not properties:  # a map, or (extra fields forbidden) an empty object
        value = ts_type(extra, indent) if isinstance(extra, dict) else (
            "never" if extra is False else "unknown")
        return f"Record<string, {value}>"
    required = set(node.get("required", []))
    inner = indent + "  "
    lines = ["{"]
    for name, schema in properties.items():
        key = name if IDENTIFIER.match(name) else json.dumps(name)
        if "description" in schema:
            lines.append(f"{inner}/** {' '.join(str(schema['description']).split())} */")
        optional = "" if name in required else "?"
        lines.append(f"{inner}{key}{optional}: {ts_type(schema, inner)};")
    lines.append(indent + "}")
    return "\n".join(lines)


def text(schema: dict[str, Any] | None = None) -> str:
    schema = schema if schema is not None else json.loads(SCHEMA_FILE.read_text())
    out = [HEADER]
    for name, node in schema["$defs"].items():
        if "description" in node:
            doc = " ".join(str(node["description"]).split())
            out.append(f"/** {doc} */")
        out.append(f"export type {name} = {ts_type(node, '')};\n")
    out.append("/** Every method's params and result. */")
    out.append("export type Methods = {")
    for method, pair in schema["methods"].items():
        params, result = ts_type(pair["params"], "  "), ts_type(pair["result"], "  ")
        out.append(f"  {json.dumps(method)}: {{ params: {params}; result: {result} }};")
    out.append("};\n")
    out.append("export type MethodName = keyof Methods;")
    out.append('export type ParamsOf<M extends MethodName> = Methods[M]["params"];')
    out.append('export type ResultOf<M extends MethodName> = Methods[M]["result"];')
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    return write_or_print("python -m zettelclaw.protocol.typescript", TS_FILE, text, argv)


if __name__ == "__main__":
    raise SystemExit(main())
